"""Multi-objective search over the loop's thresholds and budgets: quality against latency.

Optuna's NSGA-II sampler (seeded) proposes thresholds; each trial runs the program over the
validation questions and reports mean composite quality and estimated latency. The first
trial is the current thresholds. With DSPy's cache on, a trial that only moves a gate pays
only for the LM calls it has not seen, so its wall time is not its latency: latency is
estimated as LM calls x the seconds per call measured in the baseline eval. The study lives
in SQLite in the run folder, so a killed search resumes with its finished trials, retries the
one cut short with the same thresholds, and skips the questions that trial had finished. The Pareto
front is kept; the operating point is the best of `quality - latency_weight * latency`
(both scaled to the front's range), or the best quality within `latency_budget_s`.
This module does not compile prompts.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from pathlib import Path

import dspy
import optuna
from pydantic import BaseModel

from optimize.job.budget import BudgetExceeded, SpendingGuard
from optimize.job.config import OptimizeConfig
from optimize.eval.records import RecordLog, announce_recovery
from optimize.eval.runner import Score, run_examples
from program.thresholds import Thresholds

STUDY = "thresholds"
TRIALS_LOG = "trials.jsonl"


class Point(BaseModel):
    trial: int
    quality: float
    latency_s: float
    thresholds: Thresholds


def space(trial: optuna.Trial, kind: str) -> dict:
    """The knobs a trial sets. `quick` moves only the gates and budgets, so the evidence a
    question sees, and hence most prompts, stay as cached; `full` also moves retrieval."""
    knobs = {"cliff_to_answer": trial.suggest_float("cliff_to_answer", 0.05, 0.35, step=0.05),
             "coverage_similarity": trial.suggest_float("coverage_similarity", 0.45, 0.65, step=0.05),
             "answer_confidence": trial.suggest_float("answer_confidence", 0.5, 0.95, step=0.05),
             "max_web_searches": trial.suggest_int("max_web_searches", 0, 2)}
    if kind == "full":
        knobs |= {"decompose_mode": trial.suggest_categorical("decompose_mode", ["none", "rule_based", "llm"]),
                  "top_k": trial.suggest_int("top_k", 2, 6), "score_floor": trial.suggest_float("score_floor", 0.1, 0.4, step=0.05),
                  "abstain_similarity": trial.suggest_float("abstain_similarity", 0.3, 0.75, step=0.05),
                  "web_gap_similarity": trial.suggest_float("web_gap_similarity", 0.4, 0.7, step=0.05),
                  "max_judge_calls": trial.suggest_int("max_judge_calls", 0, 2),
                  "max_doc_queries": trial.suggest_int("max_doc_queries", 0, 3),
                  "relevance_weight": trial.suggest_float("relevance_weight", 0.5, 1.0, step=0.1),
                  # the answer's score: they move only repairs, which need a failed criterion or a contradiction
                  "judge_weight": trial.suggest_float("judge_weight", 0.5, 0.9, step=0.1),
                  "accept_score": trial.suggest_float("accept_score", 0.5, 0.9, step=0.05)}
    return knobs


def search_thresholds(program: dspy.Module, val: list[dspy.Example], score: Score, config: OptimizeConfig,
                      folder: Path, seconds_per_call: float, progress: bool = True,
                      guard: SpendingGuard | None = None) -> tuple[Thresholds, list[Point]]:
    """The chosen thresholds and the Pareto front, after `config.threshold_trials` trials in all,
    or fewer when the spending guard's cap is hit: then the front of the finished trials."""
    study = _study(folder, config.seed)
    if not study.trials:
        study.enqueue_trial({k: getattr(program.thresholds, k) for k in _names(config.search_space)})
    _retry_unfinished(study)
    log = RecordLog(folder / TRIALS_LOG)
    announce_recovery(log)

    def objective(trial: optuna.Trial) -> tuple[float, float]:
        if guard is not None:
            guard.check()
        candidate = program.deepcopy()
        candidate.thresholds = program.thresholds.model_copy(update=space(trial, config.search_space))
        trial.set_user_attr("thresholds", candidate.thresholds.model_dump())
        # keyed by the thresholds, not the trial number: a retried trial finds its finished questions
        key = f"trial-{_digest(trial.params)}"
        records = run_examples(candidate, val, key, log, score, 1, config.time_limit_s, progress)
        quality = statistics.fmean(r.scores.composite for r in records)
        latency = statistics.fmean(r.scores.lm_calls for r in records) * seconds_per_call
        return quality, latency

    done = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    try:
        study.optimize(objective, n_trials=max(0, config.threshold_trials - done))
    except BudgetExceeded as stop:
        print(f"threshold search stopped: {stop}; choosing from the finished trials")
    front = [_point(t) for t in study.best_trials]
    return choose(front, config.latency_weight, config.latency_budget_s).thresholds, front


def choose(front: list[Point], latency_weight: float, latency_budget_s: float | None = None) -> Point:
    if latency_budget_s is not None:
        within = [p for p in front if p.latency_s <= latency_budget_s]
        return max(within, key=lambda p: p.quality) if within else min(front, key=lambda p: p.latency_s)
    q_lo, q_hi = min(p.quality for p in front), max(p.quality for p in front)
    l_lo, l_hi = min(p.latency_s for p in front), max(p.latency_s for p in front)
    scaled = lambda v, lo, hi: (v - lo) / (hi - lo) if hi > lo else 0.0  # noqa: E731
    return max(front, key=lambda p: scaled(p.quality, q_lo, q_hi) - latency_weight * scaled(p.latency_s, l_lo, l_hi))


def all_points(folder: Path) -> list[Point]:
    return [_point(t) for t in _study(folder, 0).trials if t.state == optuna.trial.TrialState.COMPLETE]


def _study(folder: Path, seed: int) -> optuna.Study:
    folder.mkdir(parents=True, exist_ok=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    # subtle: NSGA-II rather than TPE: it keeps a population spread along the front, which is
    # what a quality/latency trade-off needs, and it is Optuna's default for two objectives
    return optuna.create_study(study_name=STUDY, storage=f"sqlite:///{(folder / 'thresholds.db').resolve()}",
                               load_if_exists=True, directions=["maximize", "minimize"],
                               sampler=optuna.samplers.NSGAIISampler(seed=seed))


def _retry_unfinished(study: optuna.Study) -> None:
    """Queue again the thresholds of a trial that a kill or Ctrl-C cut short (left RUNNING or
    FAIL), so the search still measures them, the current thresholds of trial 0 above all."""
    finished = {_digest(t.params) for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE}
    queued = {_digest(t.params) for t in study.trials if t.state == optuna.trial.TrialState.WAITING}
    for t in study.trials:
        cut_short = t.state in (optuna.trial.TrialState.RUNNING, optuna.trial.TrialState.FAIL)
        if cut_short and t.params and _digest(t.params) not in finished | queued:
            study.enqueue_trial(t.params)
            queued.add(_digest(t.params))


def _digest(params: dict) -> str:
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]


def _point(trial: optuna.trial.FrozenTrial) -> Point:
    return Point(trial=trial.number, quality=trial.values[0], latency_s=trial.values[1],
                 thresholds=Thresholds.model_validate(trial.user_attrs["thresholds"]))


def _names(kind: str) -> list[str]:
    quick = ["cliff_to_answer", "coverage_similarity", "answer_confidence", "max_web_searches"]
    full = ["decompose_mode", "top_k", "score_floor", "abstain_similarity", "web_gap_similarity", "max_judge_calls",
            "max_doc_queries", "relevance_weight", "judge_weight", "accept_score"]
    return quick + (full if kind == "full" else [])
