"""program.load: a saved program comes back identical, and a bad one fails with its reason."""

import json

import dspy
import pytest

from program import load
from program.assembly.loading import ProgramLoadError, apply_state, read_state
from program.judges.acceptance import AcceptanceModel
from program.judges.sufficiency import SufficiencyModel
from program.base.settings import Settings
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


def valid_state() -> dict:
    return GatedRAG(FakeSearch(DOCS)).dump_state()


@pytest.mark.parametrize("content, reason", [
    ("not json", "line 1: not JSON: Expecting value"),
    ('{\n  "judge": {\n  "x": 1', "line 3: not JSON"),
    (json.dumps({"decompose": {}}), "decompose.signature: missing"),
    (json.dumps(valid_state() | {"judge": 5}), "judge: should be a JSON object"),
    (json.dumps(valid_state() | {"gatedrag": {"format": 99}}), "gatedrag.format: 99 is newer than this version reads"),
    (json.dumps(valid_state() | {"gatedrag": {"format": 0}}), "gatedrag.format: input should be greater than or equal to 1"),
    (json.dumps(valid_state() | {"gatedrag": {"format": "3"}}), "gatedrag.format: input should be a valid integer"),
    (json.dumps(valid_state() | {"thresholds": {"max_iterations": -1}}), "thresholds.max_iterations: input should be "
                                                                          "greater than or equal to 0"),
    (json.dumps(valid_state() | {"thresholds": {"max_iterations": True}}), "thresholds.max_iterations: input should "
                                                                           "be a valid integer"),
    (json.dumps(valid_state() | {"thresholds": {"score_floor": float("nan")}}), "thresholds.score_floor"),
    (json.dumps(valid_state() | {"thresholds": {"no_such": 1}}), "thresholds.no_such: extra inputs are not permitted"),
    ('{"a": ' + "[" * 5000 + "]" * 5000 + "}", "line 1: nested deeper than 64 levels"),
    ("[1, 2]", "the top level: should be a JSON object of predictors, not list"),
])
def test_bad_programs_fail_in_one_line_naming_the_file_and_the_line_or_field(tmp_path, content, reason):
    path = tmp_path / "program.json"
    path.write_text(content)
    with pytest.raises(ProgramLoadError) as error:
        load(path, search=FakeSearch(DOCS))
    assert str(error.value).startswith(str(path)) and reason in str(error.value) and "\n" not in str(error.value)


def test_bytes_that_are_not_utf8_are_named_with_their_line(tmp_path):
    path = tmp_path / "program.json"
    path.write_bytes(json.dumps(valid_state(), indent=1).replace("Answer", "An\udcffswer", 1)
                     .encode("utf-8", "surrogateescape"))
    with pytest.raises(ProgramLoadError, match=r"line \d+: not UTF-8 \(byte 0xff\)"):
        load(path, search=FakeSearch(DOCS))


def test_missing_file_and_empty_folder(tmp_path):
    with pytest.raises(ProgramLoadError, match="no compiled program"):
        load(tmp_path / "nope.json", search=FakeSearch(DOCS))
    with pytest.raises(ProgramLoadError, match="no program.json in this folder"):
        load(tmp_path, search=FakeSearch(DOCS))


def test_a_program_saved_before_the_code_repair_still_loads(tmp_path):
    rag = saved(tmp_path)
    state = json.loads((tmp_path / "run" / "program.json").read_text())
    del state["repair_code"]
    (tmp_path / "run" / "program.json").write_text(json.dumps(state))
    loaded = load(tmp_path / "run", search=FakeSearch(DOCS))
    assert loaded.synthesize.demos[0]["answer"] == "a [1]" and loaded.thresholds == rag.thresholds
    assert loaded.repair_code.demos == []


def _with_predictor(**extra) -> dict:
    state = valid_state()
    return state | {"synthesize": state["synthesize"] | extra}


@pytest.mark.parametrize("state, reason", [
    # a per-call LM setting on a predictor sent the API key and every prompt to this host
    (_with_predictor(config={"api_base": "http://127.0.0.1:9/v1"}), "synthesize.config: extra inputs are not permitted"),
    (_with_predictor(lm={"model": "openai/gpt-4o", "api_base": "http://127.0.0.1:9/v1"}), "synthesize.lm"),
    (_with_predictor(lm={"model": "openai/gpt-4o", "api_key": "sk-planted"}), "synthesize.lm"),
    (valid_state() | {"lm": {"model": "openai/x"}}, "lm: extra inputs are not permitted"),
    (valid_state() | {"gatedrag": {"format": 3, "api_base": "http://x"}}, "gatedrag.api_base: extra inputs"),
    (valid_state() | {"metadata": {"dependency_versions": {}, "api_key": "k"}}, "metadata.api_key: extra inputs"),
    (_with_predictor(signature={**valid_state()["synthesize"]["signature"], "model": "x"}), "synthesize.signature.model"),
])
def test_a_program_file_holds_only_what_the_program_writes_never_an_endpoint_a_key_or_an_lm_setting(tmp_path, state,
                                                                                                      reason):
    path = tmp_path / "program.json"
    path.write_text(json.dumps(state))
    with pytest.raises(ProgramLoadError) as error:
        load(path, search=FakeSearch(DOCS))
    assert reason in str(error.value) and "\n" not in str(error.value)


def test_a_saved_program_with_dspy_s_own_metadata_still_loads(tmp_path):
    path = tmp_path / "program.json"
    GatedRAG(FakeSearch(DOCS)).save(str(path))
    assert "metadata" in json.loads(path.read_text())
    assert load(path, search=FakeSearch(DOCS)).thresholds == GatedRAG(FakeSearch(DOCS)).thresholds


def test_a_program_records_its_reranker_and_loading_it_under_another_warns(tmp_path):
    class RerankedSearch(FakeSearch):
        reranker = type("Embedding", (), {"name": "embedding"})()

    rag = GatedRAG(RerankedSearch(DOCS))
    rag.save(tmp_path / "program.json")
    assert json.loads((tmp_path / "program.json").read_text())["gatedrag"]["reranker"] == "embedding"
    with pytest.warns(UserWarning, match="fitted with GATEDRAG_RERANKER=embedding, and this run uses none"):
        load(tmp_path / "program.json", search=FakeSearch(DOCS))
    assert load(tmp_path / "program.json", search=RerankedSearch(DOCS)).reranker == "embedding"


def test_a_program_records_the_lm_it_was_compiled_with_and_serving_it_with_another_warns(tmp_path, recwarn):
    rag = GatedRAG(FakeSearch(DOCS))
    rag.compiled_with = "qwen2.5-coder-1.5b"
    rag.save(tmp_path / "program.json")
    state = read_state(tmp_path / "program.json")
    assert state["gatedrag"]["lm"] == "qwen2.5-coder-1.5b"
    with pytest.warns(UserWarning, match="chosen with qwen2.5-coder-1.5b, and this run answers with qwen2.5-coder-0.5b"):
        apply_state(GatedRAG(FakeSearch(DOCS)), state, "p", "qwen2.5-coder-0.5b")
    assert apply_state(GatedRAG(FakeSearch(DOCS)), state, "p", "qwen2.5-coder-1.5b").compiled_with == "qwen2.5-coder-1.5b"
    api = Settings(_env_file=None, profile="ollama_chat/qwen2.5:7b").serving_model
    with pytest.warns(UserWarning, match="chosen with qwen2.5-coder-1.5b, and this run answers with ollama_chat/qwen2.5:7b"):
        apply_state(GatedRAG(FakeSearch(DOCS)), state, "p", api)
    GatedRAG(FakeSearch(DOCS)).save(tmp_path / "uncompiled.json")  # never compiled: nothing to warn about
    apply_state(GatedRAG(FakeSearch(DOCS)), read_state(tmp_path / "uncompiled.json"), "u", "qwen2.5-coder-0.5b")
    assert not [w for w in recwarn if "chosen with" in str(w.message)]


# A program carries its sufficiency model through save and load; one saved before it, the shipped default.
MODEL = SufficiencyModel(features=["best", "cliff"], center=[0.5, 0.1], scale=[0.1, 0.05], weights=[1.5, 0.4],
                         intercept=-0.2, fitted_on="hand")
ACCEPTANCE = AcceptanceModel(features=["support"], center=[0.5], scale=[0.25], weights=[1.0], intercept=0.0)


def test_a_new_program_carries_the_shipped_model():
    assert GatedRAG(FakeSearch([])).sufficiency == SufficiencyModel.shipped()


def test_a_program_saved_with_a_model_loads_it(tmp_path):
    rag = GatedRAG(FakeSearch([]))
    rag.sufficiency = MODEL
    rag.save(tmp_path / "program.json")
    assert load(tmp_path / "program.json", search=FakeSearch([])).sufficiency == MODEL


def test_a_program_saved_before_the_models_loads_with_the_defaults(tmp_path):
    old = GatedRAG(FakeSearch([])).dump_state()
    del old["sufficiency"], old["acceptance"]
    (tmp_path / "program.json").write_text(json.dumps(old))
    rag = GatedRAG(FakeSearch([]))
    rag.sufficiency = MODEL
    rag.acceptance = ACCEPTANCE
    again = rag.load_state(old)
    assert again.sufficiency == SufficiencyModel.shipped() and again.acceptance == AcceptanceModel.shipped()
    loaded = load(tmp_path / "program.json", search=FakeSearch([]))
    assert loaded.sufficiency == SufficiencyModel.shipped() and loaded.acceptance == AcceptanceModel.shipped()


def test_a_malformed_model_fails_in_one_line_naming_the_file(tmp_path):
    state = GatedRAG(FakeSearch([])).dump_state()
    state["sufficiency"] = MODEL.model_dump() | {"features": ["mood", "best"]}
    (tmp_path / "program.json").write_text(json.dumps(state))
    with pytest.raises(ProgramLoadError, match=r"program.json: sufficiency"):
        read_state(tmp_path / "program.json")
