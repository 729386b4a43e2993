"""program/contract/answer_response.py: the response built from a program call, and the published schema file."""

import json

import dspy

from program.contract.answer_response import (
    SCHEMA_FILE,
    SCHEMA_VERSION,
    AnswerResponse,
    respond,
    schema_text,
)
from program.contract.result import Result, Timing, Trace
from program.loop import GatedRAG
from tests.conftest import FakeSearch
from tests.program.fake_engine import DOCS, QUESTION, signature_lm


def test_the_published_schema_file_is_the_models_schema():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), \
        "the model changed: run `python -m program.contract.answer_response` and bump SCHEMA_VERSION if a client would notice"


def test_the_schema_names_its_version_and_the_fields_http_clients_rely_on():
    schema = json.loads(schema_text())
    assert schema["properties"]["schema_version"]["const"] == SCHEMA_VERSION
    assert SCHEMA_VERSION in schema["$id"]
    assert {"confidence", "retrieval_quality", "suggestions", "related_queries", "warnings", "processing_time_ms",
            "fallback"} <= set(schema["properties"])


def test_from_prediction_adds_the_agent_metadata_and_the_trace_only_when_asked():
    with dspy.context(lm=signature_lm(), adapter=dspy.JSONAdapter()):
        prediction = GatedRAG(FakeSearch(DOCS))(question=QUESTION)
    plain = AnswerResponse.from_prediction(prediction)
    traced = AnswerResponse.from_prediction(prediction, include_trace=True)
    assert plain.schema_version == SCHEMA_VERSION and plain.answer == prediction.result.answer
    # the reader's draft is supported, so no judge spoke: the confidence is the heuristic's
    assert 0 < plain.confidence < 90 and plain.retrieval_quality == "high" and plain.fallback is None
    assert plain.processing_time_ms == round(prediction.result.timing.total_s * 1000)
    assert plain.trace is None and traced.trace == prediction.result.trace


def test_a_fallback_replaces_the_draft_and_says_whether_a_web_was_there():
    uncited = Result(question=QUESTION, answer="A guess.", trace=Trace(ended="budget_exhausted"), timing=Timing(total_s=0.25))
    without_web = respond(uncited)
    with_web = respond(uncited.model_copy(update={"trace": Trace(ended="budget_exhausted", web="fake web")}), elapsed_ms=7)
    assert without_web.answer.startswith("Not enough evidence") and without_web.fallback.unverified_draft == "A guess."
    assert "no web backend" in without_web.fallback.reason and "no web backend" not in with_web.fallback.reason
    assert without_web.processing_time_ms == 250 and with_web.processing_time_ms == 7
