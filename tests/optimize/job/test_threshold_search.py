"""Choosing on the Pareto front, and a threshold search that resumes without redoing trials."""

import optuna
import pytest

from optimize.job.config import load_config
from optimize.job.threshold_search import (
    READ_SUFFICIENCY,
    Point,
    all_points,
    choose,
    search_thresholds,
    space,
)
from program.thresholds import Thresholds


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


class Evaluate:
    """Quality rises with answer_confidence, latency with max_iterations: a known trade-off."""

    def __init__(self, interrupt_at: int | None = None):
        self.seen, self.interrupt_at = [], interrupt_at

    def __call__(self, thresholds: Thresholds) -> tuple[float, float]:
        self.seen.append(thresholds)
        if len(self.seen) == self.interrupt_at:
            raise KeyboardInterrupt
        return thresholds.answer_confidence, (thresholds.max_iterations + 2) * 2.0


def test_search_keeps_a_front_and_resumes_without_redoing_trials(tmp_path):
    evaluate, config = Evaluate(), load_config("quick", overrides={"threshold_trials": 3})
    chosen, front = search_thresholds(Thresholds(), evaluate, config, tmp_path, progress=False)
    assert len(all_points(tmp_path)) == 3 and len(evaluate.seen) == 3
    assert evaluate.seen[0] == Thresholds()  # the current thresholds are the first trial
    assert all(not (q.quality > p.quality and q.latency_s < p.latency_s) for p in front for q in front)
    search_thresholds(Thresholds(), evaluate, config, tmp_path, progress=False)
    assert len(evaluate.seen) == 3  # resumed: all three trials were done
    assert chosen in [p.thresholds for p in front]


def test_a_trial_cut_short_is_retried_with_its_thresholds(tmp_path):
    config = load_config("quick", overrides={"threshold_trials": 2})
    with pytest.raises(KeyboardInterrupt):
        search_thresholds(Thresholds(), Evaluate(interrupt_at=1), config, tmp_path, progress=False)
    assert all_points(tmp_path) == []
    again = Evaluate()
    search_thresholds(Thresholds(), again, config, tmp_path, progress=False)
    assert len(all_points(tmp_path)) == 2 and again.seen[0] == Thresholds()  # the current thresholds were measured


def test_the_full_space_moves_every_number_the_gate_reads_but_planning():
    knobs = space(optuna.trial.FixedTrial(Thresholds().model_dump()), "full")
    assert {"off_topic_similarity", "answer_source_similarity", "answer_support", "plateau_best", "evidence_tokens",
            "candidates_k"} <= set(knobs)
    assert "decompose_mode" not in knobs  # an LM-planned query has no recording to replay
    assert Thresholds().model_copy(update=knobs) == Thresholds()  # the defaults lie on the grid


def test_the_quick_space_tries_the_learned_read_or_expand_and_starts_from_the_rules_reading():
    knobs = space(optuna.trial.FixedTrial(Thresholds().model_dump()), "quick")
    assert knobs["read_sufficiency"] is None  # the current thresholds: the rules decide when to read
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    assert {space(study.ask(), "quick")["read_sufficiency"] for _ in range(40)} == set(READ_SUFFICIENCY)


def test_a_searched_point_is_saved_on_the_grid_not_as_a_float_sum():
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    knobs = [space(study.ask(), kind) for kind in ("full", "links") for _ in range(20)]
    floats = [v for k in knobs for v in k.values() if isinstance(v, float)]
    assert all(round(v, 6) == v and len(repr(v)) <= 6 for v in floats)
