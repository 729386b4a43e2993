"""The optimize job, phase by phase: baseline eval, prompts, thresholds, compiled eval, calibration.

Each phase writes its output into the run folder before the next starts, and `job_state.json`
lists the phases done, so a killed job resumes where it stopped: finished phases are skipped,
and the eval phases and threshold trials resume question by question from their JSONL. One
MLflow run (experiment "gatedrag-optimize") follows the job; a resumed job reopens it, says on
stderr which phases it found done, and a crashed one ends FAILED. Every file is written
atomically (`optimize.durable`), so a kill never leaves a half-written one to resume from.
At the end the confidence calibrator is fitted on the compiled program's validation records
(no LM call, about a second; skipped with a note when there are too few, as with the quick
preset's 12 questions) and saved with the program. Its fit is in-sample: the final report shows
the confidence before it, and `python -m optimize calibrate --check` measures it on other questions.
The caller configures DSPy (LM, adapter, cache, spending guard).
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import dspy
from pydantic import BaseModel

from metrics import CompositeMetric, CompositeWeights, build_support_judge, score_example
from optimize.durable import read_state, replacing, write_atomic
from optimize.job.budget import SpendingGuard
from optimize.eval.evaluate import RESULTS, run_eval
from optimize.eval.records import RecordLog, outcomes
from optimize.job.config import OptimizeConfig
from optimize.eval.run_config import EvalConfig
from optimize.eval.summary import RunSummary
from optimize.job.threshold_search import Point
from optimize.job.mlflow_model import log_program_model
from optimize.eval.tracking import EvalTracking, tracking_uri
from program import loading
from program.loop import GatedRAG
from program.settings import Settings
from program.thresholds import Thresholds

PROGRAM = "program.json"
PROMPTS = "prompts_only.json"
THRESHOLDS = "thresholds.json"
STATE = "job_state.json"


class JobState(BaseModel):
    done: list[str] = []

    @classmethod
    def read(cls, folder: Path) -> JobState:
        # subtle: an unreadable state only costs re-running phases; each resumes from its own files
        return read_state(folder / STATE, cls) or cls()

    def finish(self, phase: str, folder: Path) -> None:
        self.done.append(phase)
        write_atomic(folder / STATE, self.model_dump_json(indent=2))


@dataclass
class Job:
    config: OptimizeConfig
    settings: Settings
    folder: Path
    model: str
    guard: SpendingGuard
    tracking: EvalTracking
    progress: bool = True

    def run(self, uncompiled: GatedRAG, train: list[dspy.Example], val: list[dspy.Example]) -> RunSummary:
        state = JobState.read(self.folder)
        if state.done:
            print(f"resuming job {self.folder.name}: done {', '.join(state.done)}; spent so far {self.guard.calls} LM calls",
                  file=sys.stderr)
        baseline = self._eval({"baseline": uncompiled}, val, "eval_baseline", step=0)
        compiled = self._prompts(uncompiled, train, val, state)
        compiled.thresholds = self._thresholds(compiled, val, baseline, state)
        _save(compiled, self.folder / PROGRAM)
        _seed_records(self.folder / "eval_baseline", self.folder / "eval")  # the baseline is not run twice
        final = self._eval({"baseline": uncompiled, "compiled": compiled}, val, "eval", step=2)
        self._calibrate(compiled)
        # the baseline-vs-compiled report sits with the job's run too, not only with its eval run
        report = [p for p in (self.folder / "eval").rglob("*") if p.is_file() and p.suffix in (".md", ".html", ".json", ".png")]
        self.tracking.log_files([self.folder / PROGRAM, *report], self.folder)
        model_uri = log_program_model(compiled, tracking_uri(self.settings), self.tracking.run_id)
        write_atomic(self.folder / "model_uri", model_uri)
        state.finish("done", self.folder)
        return final

    def _prompts(self, program: GatedRAG, train, val, state: JobState) -> GatedRAG:
        from optimize.job.prompt_optimizers import compile_prompts

        path = self.folder / PROMPTS
        if "prompts" in state.done:
            # the job's own file, read like any program: a damaged one fails in one line naming it
            return loading.apply_state(program.deepcopy(), loading.read_state(path), str(path))
        self.guard.check()
        compiled = compile_prompts(program, train, self._metric(), self.config, valset=val)
        _save(compiled, path)
        demos = {name: len(getattr(compiled, name).demos) for name in GatedRAG.PREDICTORS}
        self.tracking.log_metrics({f"demos.{k}": v for k, v in demos.items()} | self._spent(), step=1)
        state.finish("prompts", self.folder)
        return compiled

    def _thresholds(self, program: GatedRAG, val, baseline: RunSummary, state: JobState) -> Thresholds:
        from optimize.job.pareto_plot import plot_front
        from optimize.job.threshold_search import all_points, search_thresholds

        path = self.folder / THRESHOLDS
        if "thresholds" in state.done:
            return Thresholds.model_validate_json(path.read_text())
        self.guard.check()
        chosen, front = search_thresholds(program, val, self._score(), self.config, self.folder / "thresholds",
                                          _seconds_per_call(baseline), self.progress, self.guard)
        write_atomic(path, chosen.model_dump_json(indent=2))
        figure = plot_front(all_points(self.folder / "thresholds"), front, chosen, self.folder / "pareto_front.png")
        self._log_trials(all_points(self.folder / "thresholds"))
        self.tracking.log_files([path, figure], self.folder)
        state.finish("thresholds", self.folder)
        return chosen

    def _eval(self, programs: dict[str, GatedRAG], val, name: str, step: int) -> RunSummary:
        # subtle: the evals run uncached, so their latencies are real: with the cache on, the
        # compiled eval would replay the chosen trial's calls, and a second job (or one after
        # an eval of the same questions) would replay the baseline's, in about a second each
        with dspy.context(lm=dspy.settings.lm.copy(cache=False)):
            return self._run_eval(programs, val, name, step)

    def _run_eval(self, programs: dict[str, GatedRAG], val, name: str, step: int) -> RunSummary:
        config = EvalConfig(dataset=self.config.dataset, dataset_sha256=self.config.dataset_sha256,
                            split=self.config.val_split or "validation", systems=list(programs), limit=self.config.val_limit,
                            profile=self.settings.resolved_profile, model=self.model, time_limit_s=self.config.time_limit_s,
                            program=self.folder.name, cache=False)
        summary = run_eval(config, self.settings, self.folder / name, programs, val, self._score(),
                           params={"job": self.folder.name}, progress=self.progress)
        for system in summary.systems:
            values = {f"{system.system}.{k}": e.mean for k, e in system.metrics.items()}
            self.tracking.log_metrics(values | {f"{system.system}.latency_p50_s": system.latency_p50_s}, step=step)
        self.tracking.log_metrics(self._spent(), step=step)
        return summary

    def _calibrate(self, program: GatedRAG) -> None:
        from optimize.calibration.fit import FitError, before_and_after, fit_calibrator

        records = [r for r in RecordLog(self.folder / "eval" / RESULTS).read() if r.system == "compiled"]
        results, rights = outcomes(records)
        try:
            program.calibrator = fit_calibrator(results, rights, fitted_on=f"{self.folder.name}: {len(results)} "
                                                f"{self.config.val_split or 'validation'} records, in-sample")
        except FitError as error:
            print(f"no confidence calibrator: {error}", file=sys.stderr)
            return
        _save(program, self.folder / PROGRAM)
        before, after = before_and_after(results, rights, program.calibrator)
        values = {"calibration.ece_before": before.ece, "calibration.ece_after": after.ece,
                  "calibration.auroc_before": before.auroc, "calibration.auroc_after": after.auroc}
        self.tracking.log_metrics({k: v for k, v in values.items() if v is not None}, step=2)

    def _log_trials(self, points: list[Point]) -> None:
        for p in sorted(points, key=lambda p: p.trial):
            self.tracking.log_metrics({"trial.quality": p.quality, "trial.latency_s": p.latency_s}, step=p.trial)

    def _spent(self) -> dict[str, float]:
        return {"spent.lm_calls": self.guard.calls, "spent.prompt_tokens": self.guard.prompt_tokens,
                "spent.completion_tokens": self.guard.completion_tokens}

    def _score(self):
        judge, weights = build_support_judge("lexical"), self._weights()
        return lambda example, pred: score_example(example, pred, judge, weights, self.model)

    def _metric(self) -> CompositeMetric:
        return CompositeMetric(self._weights(), build_support_judge("lexical"), self.model,
                               with_feedback=self.config.optimizer == "gepa")

    def _weights(self) -> CompositeWeights:
        return CompositeWeights(latency_budget_s=self.config.time_limit_s / 2)


def _seed_records(source: Path, target: Path) -> None:
    if (target / RESULTS).exists() or not (source / RESULTS).exists():
        return
    target.mkdir(parents=True, exist_ok=True)
    with replacing(target / RESULTS) as tmp:  # a half copy would be taken for a resumable log
        shutil.copyfile(source / RESULTS, tmp)


def _save(program: GatedRAG, path: Path) -> None:
    with replacing(path) as tmp:
        program.save(tmp)


def _seconds_per_call(baseline: RunSummary) -> float:
    """Measured in the baseline eval: its mean seconds per question over its mean LM calls."""
    system = baseline.systems[0]
    calls = system.metrics["lm_calls"].mean if "lm_calls" in system.metrics else 0
    seconds = system.metrics["wall_s"].mean if "wall_s" in system.metrics else system.latency_p50_s
    return seconds / calls if calls else 10.0
