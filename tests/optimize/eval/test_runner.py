"""The runner: records every example once, resumes without re-running, records timeouts and errors."""

import json
import time

import dspy
import pytest
from dspy.utils.dummies import DummyLM

from optimize.eval import runner
from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from program.base.settings import Settings
from program.retrieval.chunking import Document
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.indexing import index_documents
from program.retrieval.retriever import HybridSearch
from tests.conftest import scripted_lm
from tests.optimize.conftest import (
    GOLD,
    FakeProgram,
    SearchingProgram,
    examples,
    result,
    score,
)


@pytest.fixture
def log(tmp_path):
    return RecordLog(tmp_path / "results.jsonl")


def run(program, log, qids=(), **kwargs):
    return run_examples(program, examples(*qids), "gated", log, score, progress=False, **kwargs)


def test_each_example_is_recorded_once_and_a_rerun_executes_nothing(log):
    first = FakeProgram()
    records = run(first, log)
    assert [r.qid for r in records] == ["q1", "q2", "q3"] and len(first.calls) == 3
    assert all(r.status == "ok" and r.result is not None for r in records)
    assert records[0].scores.exact_match == 1.0 and records[0].hotpot_type == "bridge"
    again = FakeProgram()
    assert run(again, log) == records
    assert again.calls == [] and len(log.path.read_text().splitlines()) == 3


def test_a_partial_run_resumes_with_only_the_missing_examples(log):
    run(FakeProgram(), log, ("q1", "q2"))
    program = FakeProgram()
    records = run(program, log)
    assert program.calls == [GOLD["q3"][0]] and [r.qid for r in records] == ["q1", "q2", "q3"]


def test_a_system_that_resumed_whole_shows_no_bar_and_one_with_work_shows_its_own(log, capsys):
    run(FakeProgram(), log)
    run_examples(FakeProgram(), examples(), "gated", log, score, progress=True)
    assert "gated" not in capsys.readouterr().err  # a full bar would say it just ran them
    run_examples(FakeProgram(), examples(), "single_pass", log, score, progress=True)
    assert "single_pass" in capsys.readouterr().err


def test_another_system_in_the_same_log_runs_its_own_examples(log):
    run(FakeProgram(), log)
    program = FakeProgram()
    records = run_examples(program, examples(), "single_pass", log, score, progress=False)
    assert len(program.calls) == 3 and {r.system for r in records} == {"single_pass"}


def test_an_interrupted_run_keeps_what_finished(tmp_path):
    class InterruptedLog(RecordLog):
        def append(self, record):
            if self.read():
                raise KeyboardInterrupt
            return super().append(record)

    with pytest.raises(KeyboardInterrupt):
        run(FakeProgram(), InterruptedLog(tmp_path / "results.jsonl"))
    program = FakeProgram()
    records = run(program, RecordLog(tmp_path / "results.jsonl"))
    assert len(program.calls) == 2 and len(records) == 3


def test_an_exception_is_recorded_as_an_error_scored_as_no_answer(log):
    records = run(FakeProgram(fail=GOLD["q2"][0]), log)
    assert [r.status for r in records] == ["ok", "error", "ok"]
    assert "the fake program broke" in records[1].error and records[1].scores.exact_match == 0
    assert records[1].result is None


def test_a_loop_that_ended_in_error_is_recorded_as_an_error(log):
    class Broken(dspy.Module):
        def forward(self, question, time_limit_s=None):
            r = result(question, "x", [], actions=("decompose",), ended="error")
            r.warnings = ["the loop stopped: ConnectionError: store down"]
            return dspy.Prediction(answer=r.answer, result=r, evidence=[])

    [record] = run(Broken(), log, ("q1",))
    assert record.status == "error" and "store down" in record.error and record.result is not None


def test_a_question_past_its_time_limit_is_a_timeout_with_its_draft_scored(log, monkeypatch):
    monkeypatch.setattr(runner, "HARD_FACTOR", 1000.0)
    records = run(FakeProgram(sleep_s={GOLD["q1"][0]: 0.06}), log, time_limit_s=0.05)
    assert [r.status for r in records] == ["timeout", "ok", "ok"]
    assert records[0].result is not None and records[0].scores.exact_match == 1.0


@pytest.mark.parametrize("threads", [1, 2])
def test_a_hung_question_is_given_up_recorded_and_the_rest_still_run(log, monkeypatch, threads):
    monkeypatch.setattr(runner, "POLL_S", 0.02)
    program = FakeProgram(sleep_s={GOLD["q2"][0]: 3.0})
    records = run(program, log, time_limit_s=0.05, threads=threads)
    assert [r.status for r in records] == ["ok", "timeout", "ok"]
    assert records[1].result is None and "given up" in records[1].error and records[1].scores.f1 == 0
    assert len(log.read()) == 3


def test_threads_run_every_example_and_keep_the_example_order(log):
    records = run(FakeProgram(), log, threads=3)
    assert [r.qid for r in records] == ["q1", "q2", "q3"]


def test_workers_see_the_callers_dspy_settings(log):
    class UsesLM(dspy.Module):
        def __init__(self):
            super().__init__()
            self.predict = dspy.Predict("question -> answer")

        def forward(self, question, time_limit_s=None):
            answer = self.predict(question=question).answer
            r = result(question, answer, [])
            return dspy.Prediction(answer=r.answer, result=r, evidence=[])

    with dspy.context(lm=scripted_lm({"answer": "Richard Wallace"})):
        [record] = run(UsesLM(), log, ("q1",), threads=2)
    assert record.status == "ok" and record.answer == "Richard Wallace"


def test_hide_gold_runs_each_example_on_a_copy_whose_searches_never_find_its_gold(log, gold_program):
    hidden = run(gold_program, log, hide_gold=True)
    for record, example in zip(hidden, examples()):
        titles = {p.title for p in record.result.evidence}
        assert titles and not titles & set(example.gold_sources), record.qid
        assert record.scores.evidence_recall == 0.0
    shown = run_examples(gold_program, examples(), "shown", log, score, progress=False)
    assert all(r.scores.evidence_recall > 0 for r in shown)  # the program itself still sees everything
    assert {p.title for p in shown[1].result.evidence if p.source == "web"} >= {"Beta"}  # the held-out one, on the web


def test_without_gold_filters_the_index_and_the_offline_web_of_a_copy(gold_program):
    copy = runner.without_gold(gold_program, ["Santa Monica", "Shirley Temple"])
    assert copy is not gold_program and copy.web is not gold_program.web
    question = GOLD["q3"][0]
    assert {p.title for p in copy.search(question, 5)}.isdisjoint({"Santa Monica", "Shirley Temple"})
    assert "Santa Monica" not in {r.title for r in copy.web.search(question, 5)}
    assert "Santa Monica" in {r.title for r in gold_program.web.search(question, 5)}


def test_without_gold_hides_documents_named_by_a_path_as_well_as_by_title(tmp_path):
    embedder, store = load_embedder(Settings()), EdgeStore(tmp_path)
    pages = {"forecast/doc_source/limits.md": "Service quotas: a dataset holds at most 1 billion rows.",
             "forecast/doc_source/what-is.md": "Amazon Forecast predicts time series; quotas limit datasets."}
    documents = [Document(doc_id=path, title="Quotas" if "limits" in path else "What is Forecast",
                          text=text, origin=f"guides.tar.gz!/documents/{path}") for path, text in pages.items()]
    index_documents(store, "aws", documents, progress=False, embedder=embedder)
    search = HybridSearch(store, "aws", embedder=embedder)
    program = SearchingProgram(search, None)
    hidden = runner.without_gold(program, ["forecast/doc_source/limits.md"])
    assert "Quotas" in {p.title for p in search("dataset rows quota", 5)}
    assert {p.title for p in hidden.search("dataset rows quota", 5)} == {"What is Forecast"}


class AsksTheLM(dspy.Module):
    """Asks its LM for the answer; the first questions sleep longest, so workers finish them last."""

    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict("question -> answer")

    def forward(self, question, time_limit_s=None):
        time.sleep({GOLD[q][0]: 0.3 - 0.1 * i for i, q in enumerate(GOLD)}[question])
        answer = self.predict(question=question).answer
        r = result(question, answer, [])
        return dspy.Prediction(answer=r.answer, result=r, evidence=[])


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_give_a_serial_runs_records_question_for_question_with_a_deterministic_lm(tmp_path, workers):
    # the LM answers by the question it reads, as a deterministic one does whatever the order of calls
    lm = DummyLM({GOLD[q][0]: {"answer": f"answer to {q}"} for q in GOLD})
    with dspy.context(lm=lm):
        serial = run(AsksTheLM(), RecordLog(tmp_path / "serial.jsonl"), threads=1)
        parallel = run(AsksTheLM(), RecordLog(tmp_path / "parallel.jsonl"), threads=workers)

    def outcome(record):
        return record.model_dump(exclude={"seconds", "result"}), record.result.answer, record.result.trace

    assert [outcome(r) for r in parallel] == [outcome(r) for r in serial]
    assert [r.answer for r in serial] == [f"answer to {q}" for q in GOLD]
    written = [json.loads(line)["qid"] for line in (tmp_path / "parallel.jsonl").read_text().splitlines()]
    assert sorted(written) == sorted(GOLD) and written != list(GOLD)  # written as each finished, each once

