"""One eval run end to end with fake programs: records, report, summary and MLflow, then a resume."""

import mlflow
from mlflow import MlflowClient

from optimize.eval.evaluate import run_eval
from optimize.eval.records import Recovery
from optimize.eval.run_config import EvalConfig
from optimize.eval.summary import RunSummary
from optimize.eval.tracking import RUN_ID_FILE, tracking_uri
from tests.optimize.conftest import GOLD, FakeProgram, examples, score

SYSTEMS = ["gated", "single_pass", "fixed_hops"]
CONFIG = EvalConfig(split="smoke", systems=SYSTEMS, profile="local", model="qwen2.5-coder-0.5b", time_limit_s=60)


def programs():
    return {"gated": FakeProgram(), "single_pass": FakeProgram(answers={GOLD["q1"][0]: "nobody"}),
            "fixed_hops": FakeProgram(fail=GOLD["q2"][0])}


def test_an_eval_run_writes_everything_and_a_rerun_executes_nothing(settings, tmp_path):
    first = programs()
    summary = run_eval(CONFIG, settings, tmp_path, first, examples(), score, progress=False, params={"threshold.top_k": 3})
    assert [s.system for s in summary.systems] == SYSTEMS
    assert {p.name for p in tmp_path.iterdir()} >= {"results.jsonl", "report.md", "report.html", "summary.json",
                                                     "config.json", RUN_ID_FILE, "plots"}
    assert RunSummary.model_validate_json((tmp_path / "summary.json").read_text()) == summary
    run = MlflowClient(tracking_uri(settings)).get_run((tmp_path / RUN_ID_FILE).read_text())
    assert run.info.status == "FINISHED" and run.data.params["threshold.top_k"] == "3"
    assert run.data.metrics["single_pass.exact_match"] < run.data.metrics["gated.exact_match"]
    assert run.data.metrics["fixed_hops.status_error"] == 1
    assert run.data.metrics["gated.vs_single_pass.f1_delta"] > 0 and "gated.right_a_minute" in run.data.metrics

    again = programs()
    resumed = run_eval(CONFIG, settings, tmp_path, again, examples(), score, progress=False)
    assert summary.recovered is None and resumed.recovered == Recovery(kept=9)  # 3 questions x 3 systems
    assert resumed.model_copy(update={"recovered": None}) == summary
    assert all(p.calls == [] for p in again.values())


def test_each_question_gets_one_mlflow_trace_linked_to_the_run_with_gate_retrieval_and_lm_spans(settings, tmp_path):
    config = CONFIG.model_copy(update={"systems": ["gated"]})
    run_eval(config, settings, tmp_path, {"gated": FakeProgram(actions=("decompose", "retrieve", "draft", "answer"))},
             examples()[:3], score, progress=False)
    run_id = (tmp_path / RUN_ID_FILE).read_text()
    experiment = MlflowClient(tracking_uri(settings)).get_run(run_id).info.experiment_id
    traces = mlflow.search_traces(locations=[experiment], run_id=run_id, return_type="list")
    assert sorted(t.info.tags["gatedrag.qid"] for t in traces) == sorted(e.qid for e in examples()[:3])
    spans = [(s.name, s.span_type, s.attributes.get("rule")) for s in traces[0].data.spans]
    assert spans[0][:2] == ("gated", "AGENT")
    assert ("gate: retrieve", "CHAIN", "") in spans and ("retrieval", "RETRIEVER", None) in spans
    assert ("lm: draft", "LLM", None) in spans and ("lm: decompose", "LLM", None) in spans
    llm = next(s for s in traces[0].data.spans if s.name == "lm: draft")
    assert llm.attributes["prompt_tokens"] == 300


def test_the_run_id_follows_the_arguments_that_change_results():
    assert CONFIG.run_id == EvalConfig(**CONFIG.model_dump()).run_id
    assert CONFIG.run_id.startswith("eval-smoke-uncompiled-")
    assert CONFIG.run_id != CONFIG.model_copy(update={"limit": 5}).run_id
    assert CONFIG.model_copy(update={"program": "/x/compiled_v2.json"}).run_id.startswith("eval-smoke-compiled_v2-")


def test_a_hidden_gold_or_web_off_run_has_its_own_id_that_says_so():
    hidden = CONFIG.model_copy(update={"web": "none", "hide_gold": True}).run_id
    assert hidden.startswith("eval-smoke-uncompiled-web_none-hide_gold-")
    assert hidden != CONFIG.model_copy(update={"web": "none"}).run_id != CONFIG.run_id


def test_a_reranked_run_has_its_own_id_that_says_so():
    reranked = CONFIG.model_copy(update={"reranker": "embedding"}).run_id
    assert "-rerank_embedding-" in reranked and reranked[-8:] != CONFIG.run_id[-8:]


def test_each_system_starts_cold_and_a_resumed_one_does_not(settings, tmp_path):
    systems, starts = programs(), []
    # at each cold start, how many questions each system had run: none of the next one's yet
    run_eval(CONFIG, settings, tmp_path, systems, examples(), score, progress=False,
             cold_start=lambda: starts.append([len(p.calls) for p in systems.values()]))
    assert starts == [[0, 0, 0], [3, 0, 0], [3, 3, 0]]
    run_eval(CONFIG, settings, tmp_path, programs(), examples(), score, progress=False,
             cold_start=lambda: starts.append("again"))
    assert "again" not in starts
