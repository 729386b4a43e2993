"""program.load: a saved program comes back identical, and a bad one fails with its reason."""

import json

import dspy
import pytest

from program import load
from program.loading import ProgramLoadError
from program.loop import GatedRAG
from program.thresholds import Thresholds
from tests.conftest import FakeSearch, passage, scripted_lm

DOCS = [passage("Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple.")]
SCRIPT = ({"sub_queries": ["Kiss and Tell"], "query_type": "factual", "key_concepts": []}, {"answer": "Shirley Temple [1]."},
          {"sufficient": True, "confidence": 0.9, "gaps": []})


def answer(rag):
    with dspy.context(lm=scripted_lm(*SCRIPT)):
        return rag(question="Who starred in Kiss and Tell?").result


def saved(tmp_path):
    rag = GatedRAG(FakeSearch(DOCS), thresholds=Thresholds(top_k=5, answer_confidence=0.8))
    rag.synthesize.demos = [dspy.Example(question="q", evidence="[1] e", answer="a [1]")]
    (tmp_path / "run").mkdir()
    rag.save(tmp_path / "run" / "program.json")
    return rag


def test_a_loaded_program_answers_like_the_one_in_memory(tmp_path):
    rag = saved(tmp_path)
    loaded = load(tmp_path / "run", search=FakeSearch(DOCS))  # a run folder holding program.json
    assert loaded.thresholds == rag.thresholds and loaded.synthesize.demos[0]["answer"] == "a [1]"
    a, b = answer(rag), answer(loaded)
    assert (a.answer, [s.action for s in a.trace.steps]) == (b.answer, [s.action for s in b.trace.steps])


@pytest.mark.parametrize("content, reason", [
    ("not json", "is not JSON"),
    (json.dumps({"decompose": {}}), "lacks the module(s) judge"),
    (json.dumps({"decompose": {}, "judge": {}, "rewrite": {}, "synthesize": {}, "refine": {}, "gatedrag": {"format": 99}}),
     "format 99"),
])
def test_bad_programs_fail_with_the_reason(tmp_path, content, reason):
    path = tmp_path / "program.json"
    path.write_text(content)
    with pytest.raises(ProgramLoadError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        load(path, search=FakeSearch(DOCS))


def test_missing_file_and_empty_folder(tmp_path):
    with pytest.raises(ProgramLoadError, match="no compiled program"):
        load(tmp_path / "nope.json", search=FakeSearch(DOCS))
    with pytest.raises(ProgramLoadError, match="no program.json"):
        load(tmp_path, search=FakeSearch(DOCS))


def test_a_program_saved_before_the_code_repair_still_loads(tmp_path):
    rag = saved(tmp_path)
    state = json.loads((tmp_path / "run" / "program.json").read_text())
    del state["repair_code"]
    (tmp_path / "run" / "program.json").write_text(json.dumps(state))
    loaded = load(tmp_path / "run", search=FakeSearch(DOCS))
    assert loaded.synthesize.demos[0]["answer"] == "a [1]" and loaded.thresholds == rag.thresholds
    assert loaded.repair_code.demos == []
