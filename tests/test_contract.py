"""One contract everywhere: `python -m program ask --json`, the Python API, HTTP `/answer`, MCP `answer`
and the MLflow model return the same top-level keys, those of `program.contract.answer_response.AnswerResponse`.
Each surface runs the real loop on the scripted engine of the serving tests; no LM, no index."""

from __future__ import annotations

import contextlib
import json
from types import SimpleNamespace

import anyio
import dspy
import pandas as pd
from mcp import Client

import program.assembly.factory
import program.assembly.served
import program.lm.lm_profiles
from program.assembly.served import SERVED
from program.assembly.served_model import GatedRAGModel
from program.baselines import SinglePass
from program.cli import main
from program.contract.answer_response import AnswerResponse
from program.loop import GatedRAG
from program.serving.mcp_server import create_mcp_server
from tests.conftest import FakeSearch
from tests.program.fake_engine import DOCS, QUESTION, fake_answerer, signature_lm
from tests.program.serving.live_server import serving, settings


def cli_keys(monkeypatch, capsys, tmp_path) -> set[str]:
    monkeypatch.setattr(program.assembly.factory, "build_program", lambda *_, **__: GatedRAG(FakeSearch(DOCS)))
    handle = SimpleNamespace(lm=signature_lm(), description="scripted")
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda *_, **__: contextlib.nullcontext(handle))
    assert main(["ask", QUESTION, "--json", "--data-dir", str(tmp_path)]) == 0
    return set(json.loads(capsys.readouterr().out))


def python_keys() -> set[str]:
    with dspy.context(lm=signature_lm(), adapter=dspy.JSONAdapter()):
        prediction = GatedRAG(FakeSearch(DOCS))(question=QUESTION)
    return set(json.loads(AnswerResponse.from_prediction(prediction).model_dump_json()))


def http_keys(tmp_path) -> set[str]:
    config = settings(tmp_path)
    with serving(fake_answerer(config), config) as client:
        return set(client.post("/answer", json={"question": QUESTION}).json())


def mcp_keys(tmp_path) -> set[str]:
    config = settings(tmp_path)

    async def ask():
        async with Client(create_mcp_server(fake_answerer(config), config)) as client:
            return await client.call_tool("answer", {"question": QUESTION})

    return set(anyio.run(ask).structured_content)


def mlflow_keys() -> set[str]:
    # the model `mlflow.pyfunc.load_model` returns for a logged program, over the served program its
    # `load_context` rebuilds; logging and loading it for real is tests/optimize/job/test_mlflow_model.py
    model = GatedRAGModel()
    model.program = SERVED["gated"](FakeSearch(DOCS))
    with dspy.context(lm=signature_lm(), adapter=dspy.JSONAdapter()):
        answer = model.predict(None, pd.DataFrame({"question": [QUESTION]}))
    return set(json.loads(json.dumps(answer)))


def test_every_surface_returns_the_same_top_level_keys(tmp_path, monkeypatch, capsys):
    keys = {"cli": cli_keys(monkeypatch, capsys, tmp_path), "python": python_keys(), "http": http_keys(tmp_path),
            "mcp": mcp_keys(tmp_path), "mlflow": mlflow_keys()}
    assert keys == dict.fromkeys(keys, set(AnswerResponse.model_fields))


def test_a_served_baseline_answers_with_the_same_contract(monkeypatch):
    # what `mlflow models serve` rebuilds when the serving process sets GATEDRAG_SYSTEM=single_pass
    monkeypatch.setenv("GATEDRAG_SYSTEM", "single_pass")
    monkeypatch.setattr(program.assembly.served, "build_program",
                        lambda settings, program_class, **_: program_class(FakeSearch(DOCS)))
    served = program.assembly.served.rebuild(GatedRAG(FakeSearch(DOCS)).dump_state())
    assert isinstance(served, SinglePass)
    with dspy.context(lm=signature_lm(), adapter=dspy.JSONAdapter()):
        response = served(question=QUESTION, include_trace=True)
    assert set(response.toDict()) == set(AnswerResponse.model_fields)
    assert [s["action"] for s in response.trace["steps"]] == ["retrieve", "draft"]
