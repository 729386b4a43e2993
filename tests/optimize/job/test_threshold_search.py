"""Choosing on the Pareto front, and a threshold search that resumes without redoing trials."""

import dspy
import pytest

from optimize.eval.example_schema import make_example
from optimize.job import threshold_search
from optimize.job.config import load_config
from optimize.eval.records import RecordLog
from optimize.job.threshold_search import Point, all_points, choose, search_thresholds
from program.result import Resources, Result, Tokens, Trace
from program.thresholds import Thresholds
from metrics import Scorecard


def point(trial, quality, latency):
    return Point(trial=trial, quality=quality, latency_s=latency, thresholds=Thresholds(top_k=trial + 1))


FRONT = [point(0, 0.2, 10), point(1, 0.5, 30), point(2, 0.6, 90)]


def test_latency_weight_moves_the_operating_point():
    assert choose(FRONT, latency_weight=0.0).trial == 2
    assert choose(FRONT, latency_weight=0.5).trial == 1  # 0.75 - 0.5*0.25 beats 1.0 - 0.5*1.0 and 0
    assert choose(FRONT, latency_weight=5.0).trial == 0


def test_latency_budget_takes_the_best_quality_within_it_or_the_fastest():
    assert choose(FRONT, 0.3, latency_budget_s=40).trial == 1
    assert choose(FRONT, 0.3, latency_budget_s=5).trial == 0


class CountingProgram(dspy.Module):
    """Quality rises with answer_confidence, LM calls with max_iterations: a known trade-off."""

    def __init__(self):
        super().__init__()
        self.thresholds, self.runs = Thresholds(), []

    def forward(self, question, time_limit_s=None):
        self.runs.append(question)
        calls = self.thresholds.max_iterations + 2
        result = Result(question=question, answer="x", trace=Trace(resources=Resources(lm=Tokens(calls=calls))))
        return dspy.Prediction(answer="x", result=result, evidence=[], quality=self.thresholds.answer_confidence)

    def deepcopy(self):
        return self  # the test counts runs across copies


def score(example, pred):
    return Scorecard(composite=pred.quality, lm_calls=pred.result.trace.resources.lm.calls)


def test_search_keeps_a_front_and_resumes_without_redoing_trials(tmp_path):
    program = CountingProgram()
    val = [make_example(f"q{i}", f"q{i}", ["a"], []) for i in range(2)]
    config = load_config("quick", overrides={"threshold_trials": 3})
    chosen, front = search_thresholds(program, val, score, config, tmp_path, seconds_per_call=2.0, progress=False)
    assert len(all_points(tmp_path)) == 3 and len(program.runs) == 6
    assert all(not (q.quality > p.quality and q.latency_s < p.latency_s) for p in front for q in front)
    assert all_points(tmp_path)[0].thresholds.answer_confidence == Thresholds().answer_confidence  # baseline first
    search_thresholds(program, val, score, config, tmp_path, seconds_per_call=2.0, progress=False)
    assert len(program.runs) == 6  # resumed: all three trials were done
    assert chosen in [p.thresholds for p in front]


class InterruptedLog(RecordLog):
    """Ctrl-C (which reaches the main thread) as the second question's record is written, once."""
    appended = 0

    def append(self, record):
        InterruptedLog.appended += 1
        if InterruptedLog.appended == 2:
            raise KeyboardInterrupt
        return super().append(record)


def test_a_trial_cut_short_is_retried_with_its_thresholds_and_keeps_its_finished_questions(tmp_path, monkeypatch):
    program = CountingProgram()
    val = [make_example(f"q{i}", f"q{i}", ["a"], []) for i in range(2)]
    config = load_config("quick", overrides={"threshold_trials": 2})
    monkeypatch.setattr(threshold_search, "RecordLog", InterruptedLog)
    with pytest.raises(KeyboardInterrupt):
        search_thresholds(program, val, score, config, tmp_path, seconds_per_call=2.0, progress=False)
    assert program.runs == ["q0", "q1"] and all_points(tmp_path) == []
    search_thresholds(program, val, score, config, tmp_path, seconds_per_call=2.0, progress=False)
    points = all_points(tmp_path)
    assert len(points) == 2 and points[0].thresholds == Thresholds()  # the current thresholds were measured
    assert program.runs[:3] == ["q0", "q1", "q1"]  # the retried trial asked only its unrecorded question
