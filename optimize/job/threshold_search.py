"""Multi-objective search over the loop's thresholds and budgets: quality against latency.

Optuna's NSGA-II sampler (seeded) proposes thresholds; `evaluate` scores each proposal on the
select questions as (mean composite quality, estimated seconds a question). The job evaluates
by replaying recorded LM calls (`optimize.replay`), so a trial costs no LM call and hundreds
fit in minutes. The first trial is the current thresholds. The study lives in a journal file in
the run folder, so a killed search resumes with its finished trials and retries the one cut short
with the same thresholds. The Pareto front is kept; the operating point is the best of
`quality - latency_weight * latency` (both scaled to the front's range), or the best quality
within `latency_budget_s`. Each trial keeps its per-question scores, so that the pick can be
cross-validated (`optimize.job.cross_validation`). This module neither runs the program nor
compiles prompts.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from pathlib import Path
from typing import Callable, NamedTuple

import optuna
from optuna.storages.journal import JournalFileBackend
from pydantic import BaseModel
from tqdm import tqdm

from optimize.job.config import OptimizeConfig
from program.thresholds import Thresholds

STUDY = "thresholds"
JOURNAL = "trials.journal"  # the study, in the run folder's thresholds/
DEEPEST_CUT = 16  # the most candidates a trial retrieves a query for
READ_SUFFICIENCY = (None, 0.3, 0.5, 0.7, 0.9)
LINK_WEIGHTS = ("link_path_weight", "link_title_weight", "link_description_weight", "link_in_degree_weight",
                "link_depth_weight")


class Point(BaseModel):
    trial: int
    quality: float
    latency_s: float
    thresholds: Thresholds
    # each select question's (composite, estimated seconds), in order, for cross-validating the pick
    questions: list[tuple[float, float]] = []


class Scored(NamedTuple):
    """What `evaluate` returns: a trial's means, and optionally its per-question scores."""
    quality: float
    latency_s: float
    questions: list[tuple[float, float]] = []


Evaluate = Callable[[Thresholds], tuple[float, float] | Scored]


def space(trial: optuna.Trial, kind: str) -> dict:
    """The knobs a trial sets. `quick`: the gate's answer-now thresholds, its read-or-expand and the web budget.
    `full`: every number the gate, the retrieval cut and the evidence shown read. Planning stays
    as it is: an LM-planned query has no recording to replay. `links`: the link score's weights
    alone, which only a traversal from a seed URL reads (`optimize.links`)."""
    if kind == "links":
        return _on_grid({name: trial.suggest_float(name, 0.0, 1.0, step=0.05) for name in LINK_WEIGHTS})
    knobs = {"cliff_to_answer": trial.suggest_float("cliff_to_answer", 0.0, 0.35, step=0.05),
             "coverage_similarity": trial.suggest_float("coverage_similarity", 0.3, 0.65, step=0.05),
             "answer_confidence": trial.suggest_float("answer_confidence", 0.5, 0.95, step=0.05),
             "max_web_searches": trial.suggest_int("max_web_searches", 0, 2),
             # the learned read-or-expand: None leaves reading to the rules (`program.gate`)
             "read_sufficiency": trial.suggest_categorical("read_sufficiency", READ_SUFFICIENCY)}
    if kind == "full":
        knobs |= {"top_k": trial.suggest_int("top_k", 2, 6), "candidates_k": trial.suggest_int("candidates_k", 6, DEEPEST_CUT, step=2),
                  "cut_cliff": trial.suggest_float("cut_cliff", 0.0, 0.35, step=0.05),
                  "score_floor": trial.suggest_float("score_floor", 0.1, 0.4, step=0.05),
                  "entity_coverage": trial.suggest_float("entity_coverage", 0.5, 1.0, step=0.25),
                  "term_coverage": trial.suggest_float("term_coverage", 0.5, 1.0, step=0.25),
                  "plateau_spread": trial.suggest_float("plateau_spread", 0.01, 0.07, step=0.02),
                  "plateau_best": trial.suggest_float("plateau_best", 0.45, 0.75, step=0.05),
                  "redundancy_cosine": trial.suggest_float("redundancy_cosine", 0.85, 0.99, step=0.02),
                  "saturation": trial.suggest_float("saturation", 0.6, 1.4, step=0.1),
                  "min_gain": trial.suggest_float("min_gain", 0.0, 0.15, step=0.05),
                  "locality_similarity": trial.suggest_float("locality_similarity", 0.45, 0.8, step=0.05),
                  "off_topic_similarity": trial.suggest_float("off_topic_similarity", 0.1, 0.45, step=0.05),
                  "answer_source_similarity": trial.suggest_float("answer_source_similarity", 0.1, 0.6, step=0.05),
                  "answer_support": trial.suggest_float("answer_support", 0.25, 0.75, step=0.25),
                  "names_on_topic": trial.suggest_float("names_on_topic", 0.0, 0.75, step=0.25),
                  "web_gap_similarity": trial.suggest_float("web_gap_similarity", 0.4, 0.7, step=0.05),
                  "max_iterations": trial.suggest_int("max_iterations", 1, 4),
                  "max_judge_calls": trial.suggest_int("max_judge_calls", 0, 2),
                  "max_doc_queries": trial.suggest_int("max_doc_queries", 0, 3),
                  "evidence_tokens": trial.suggest_int("evidence_tokens", 300, 600, step=100),
                  "relevance_weight": trial.suggest_float("relevance_weight", 0.5, 1.0, step=0.1),
                  "judge_weight": trial.suggest_float("judge_weight", 0.5, 0.9, step=0.1),
                  "accept_score": trial.suggest_float("accept_score", 0.5, 0.9, step=0.05)}
    return _on_grid(knobs)


def _on_grid(knobs: dict) -> dict:
    """Optuna's steps are float sums (0.15000000000000002): rounded, a saved point reads as the grid's."""
    return {name: round(value, 6) if isinstance(value, float) else value for name, value in knobs.items()}


def replay_objective(replay: Callable[[Thresholds], list], seconds_per_call: float) -> Evaluate:
    """`evaluate` from a replay (thresholds -> each question's replay, with its `scores`): a trial's
    mean composite and estimated seconds a question, and each question's; the seconds are the LM
    calls the replay made times the seconds a call took in the recorded run."""
    def evaluate(thresholds: Thresholds) -> Scored:
        questions = [(r.scores.composite, r.scores.lm_calls * seconds_per_call) for r in replay(thresholds)]
        return Scored(statistics.fmean(q for q, _ in questions), statistics.fmean(s for _, s in questions), questions)

    return evaluate


def search_thresholds(current: Thresholds, evaluate: Evaluate, config: OptimizeConfig, folder: Path,
                      progress: bool = True, kind: str | None = None) -> tuple[Thresholds, list[Point]]:
    """The chosen thresholds and the Pareto front, after `config.threshold_trials` trials in all, over
    the `kind` of space (default: the config's)."""
    kind = kind or config.search_space
    study = _study(folder, config.seed)
    names = list(space(optuna.trial.FixedTrial(current.model_dump()), kind))
    if not study.trials:
        study.enqueue_trial({k: getattr(current, k) for k in names})
    _retry_unfinished(study)

    def objective(trial: optuna.Trial) -> tuple[float, float]:
        thresholds = current.model_copy(update=space(trial, kind))
        trial.set_user_attr("thresholds", thresholds.model_dump())
        scored = Scored(*evaluate(thresholds))
        trial.set_user_attr("questions", [list(q) for q in scored.questions])
        return scored.quality, scored.latency_s

    done = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    todo = max(0, config.threshold_trials - done)
    desc = "link weight trials (replayed)" if kind == "links" else "threshold trials (replayed)"
    with tqdm(total=todo, desc=desc, disable=not progress, unit="trial") as bar:
        study.optimize(objective, n_trials=todo, callbacks=[lambda *_: bar.update()])
    front = [_point(t) for t in study.best_trials]
    return choose(front, config.latency_weight, config.latency_budget_s).thresholds, front


def pareto_front(points: list[Point]) -> list[Point]:
    """The points no other point beats on both quality (higher) and latency (lower)."""
    def beaten(p: Point) -> bool:
        return any(o.quality >= p.quality and o.latency_s <= p.latency_s
                   and (o.quality > p.quality or o.latency_s < p.latency_s) for o in points)
    return [p for p in points if not beaten(p)]


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
    # subtle: a journal file rather than SQLite: 200 trials of NSGA-II spent 36 s in SQLite storage
    # (each trial re-reads the study) and 5 s in a journal, which is replayed in memory
    storage = optuna.storages.JournalStorage(JournalFileBackend(str(folder / JOURNAL)))
    return optuna.create_study(study_name=STUDY, storage=storage, load_if_exists=True,
                               directions=["maximize", "minimize"], sampler=optuna.samplers.NSGAIISampler(seed=seed))


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
                 thresholds=Thresholds.model_validate(trial.user_attrs["thresholds"]),
                 questions=[tuple(q) for q in trial.user_attrs.get("questions", [])])
