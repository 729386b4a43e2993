"""The optimize job, phase by phase, over three disjoint question sets (train, select, report).

1. Baseline: the uncompiled program on the report questions, and single pass beside it (unless
   `single_pass` is off), so that the report says whether the loop earns its cost on this corpus
   (`optimize.eval.against_baseline`).
2. Prompts: candidate prompts (labelled demo sets, or a DSPy optimizer's output) and the
   uncompiled prompts run on the select questions, each run's LM calls recorded
   (`optimize.replay.recorder`). The best candidate ships only if it beats the uncompiled
   prompts there (`optimize.job.keep_rule`); otherwise the job keeps them and says so.
3. Thresholds: hundreds of trials replayed from the shipped prompts' recording, no LM call
   each (`optimize.replay`); the chosen point then runs for real on the select questions, which
   measures the replay's fidelity and decides, by the same rule, whether the thresholds ship.
   The chosen point is the search's pick with every change the replay cannot tell from none
   put back (`optimize.job.sparse_point`).
   Then, when the dataset has a site (`aws_docs`, or `--site` and `--seed`), the link score's
   weights: walked offline from each train and select question's seed page (`optimize.links`),
   shipped only if their cross-validated gain in reach holds, and checked on the report questions.
4. Judges: `sufficiency` refitted on the train and select questions' retrieval-only rollouts (no
   LM), then the program with the learned release run on the select questions, whose final drafts
   refit `acceptance`; each refit starts from the program's model as its prior and ships only if it
   beats it on held-out questions, and the learned release ships only if, replayed with held-out
   P(right), its net right beats the program's own release there (`optimize.job.judges_refit`).
5. Report: compiled against uncompiled on the report questions, which no phase trained or
   selected on, with paired bootstrap intervals on each difference (`compiled_vs_uncompiled.md`),
   and each against single pass.
   When nothing shipped, the uncompiled program's report stands alone; with `report_rejected`
   the candidate kept out (the best prompt candidate with the searched thresholds) runs there
   too, as a held-out check of the keep rule.

Each phase writes its output into the run folder before the next starts, and `job_state.json`
lists the phases done, so a killed job resumes where it stopped: finished phases are skipped,
and every run resumes question by question from its JSONL. A finished job stores what it printed
(`outcome.txt`): run again, the command prints that and starts nothing. One MLflow run (experiment
"gatedrag-optimize") follows the job and records the trials, the chosen point, the replay's
fidelity and which components shipped. Every file is written atomically (`optimize.durable`).
At the end the confidence calibrator is fitted on the compiled program's report records (no
LM call; skipped with a note when there are too few). Its fit is in-sample: `python -m optimize
calibrate --check` measures it on other questions. The caller configures DSPy (LM, adapter,
cache, spending guard).
"""

from __future__ import annotations

import copy
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import dspy
from pydantic import BaseModel
from tqdm import tqdm

from metrics import (
    CompositeMetric,
    CompositeWeights,
    build_support_judge,
    score_example,
)
from optimize.calibration.fit import FitError, before_and_after, fit_calibrator
from optimize.durable import read_state, replacing, write_atomic
from optimize.eval.against_baseline import BASELINE, worth
from optimize.eval.compare import compare_runs, comparison_blocks, text_table
from optimize.eval.document import to_markdown
from optimize.eval.evaluate import RESULTS, run_eval
from optimize.eval.examples import JobSets
from optimize.eval.question_traces import TRACES
from optimize.eval.records import Record, RecordLog, outcomes
from optimize.eval.run_config import EvalConfig
from optimize.eval.runner import run_examples
from optimize.eval.summary import RunSummary
from optimize.eval.systems import baseline
from optimize.eval.tracking import EvalTracking, tracking_uri
from optimize.job.budget import SpendingGuard
from optimize.job.config import OptimizeConfig
from optimize.job.cross_validation import FOLDS, cross_validate
from optimize.job.judges_refit import acceptance_rows, judge_refit, judge_release, release_threshold
from optimize.job.keep_rule import Verdict, best, judge_candidate
from optimize.job.mlflow_model import log_program_model
from optimize.job.pareto_plot import plot_front
from optimize.job.prompt_optimizers import compile_prompts, labelled_candidates
from optimize.job.sparse_point import Sparsifier, changes, moved
from optimize.job.threshold_search import (
    DEEPEST_CUT,
    Point,
    all_points,
    replay_objective,
    search_thresholds,
)
from optimize.judges.rollout import roll_out
from optimize.links.link_search import LinkFit
from optimize.links.seeds import has_site, seed_page
from optimize.links.site_fit import fit_table, fit_to_site, labelled
from optimize.replay.recorder import LMRecorder, read_calls
from optimize.replay.replay_lm import Recording
from optimize.replay.replay_run import (
    Replayed,
    fidelity,
    remembering_searches,
    replay_afresh,
    replay_at,
    with_memo,
)
from optimize.replay.workers import TrialPool
from program.assembly import loading
from program.base.settings import Settings
from program.judges.acceptance import AcceptanceModel
from program.judges.sufficiency import SufficiencyModel
from program.loop import GatedRAG
from program.thresholds import Thresholds

PROGRAM = "program.json"
PROMPTS = "prompts_only.json"
THRESHOLDS = "thresholds.json"
CHOSEN = "chosen.json"  # the searched point, in thresholds/, whether it shipped or not
DECISIONS = "decisions.json"
OUTCOME = "outcome.txt"  # what a finished job prints: read back when it is run again
STATE = "job_state.json"
SELECT = "select"
UNCOMPILED = "uncompiled"
COMPARISON = "compiled_vs_uncompiled.md"
CANDIDATE = "prompts_candidate.json"  # the best prompt candidate, when it did not ship
COMPILED = "compiled"
LINKS = "links"  # the link weights' fit, when the dataset has a site
JUDGED = "judged.json"  # the program after the judges phase: its refitted models and its release
REJECTED = "rejected"  # the compiled candidate kept out, run on the report questions with `report_rejected`


class Decisions(BaseModel):
    """What the job chose and why: read back on resume, logged to MLflow."""
    prompts: Verdict | None = None
    prompts_system: str = UNCOMPILED  # the select run whose recording the threshold search replays
    thresholds: Verdict | None = None
    links: Verdict | None = None  # the link weights, fitted only when the dataset has a site
    sufficiency: Verdict | None = None  # the judges' refits and the release: `optimize.job.judges_refit`
    acceptance: Verdict | None = None
    release: Verdict | None = None
    replay: dict[str, float] = {}


@dataclass
class Outcome:
    summary: RunSummary
    table: str  # compiled against uncompiled on the report questions, with paired intervals
    decisions: Decisions

    def __str__(self) -> str:
        d = self.decisions
        lines = [v.line for v in (d.prompts, d.thresholds, d.links, d.sufficiency, d.acceptance, d.release)
                 if v is not None]
        return "\n".join([*lines, "", self.table, "", *map(worth, self.summary.against)])


class JobState(BaseModel):
    done: list[str] = []

    @classmethod
    def read(cls, folder: Path) -> JobState:
        # subtle: an unreadable state only costs re-running phases; each resumes from its own files
        return read_state(folder / STATE, cls) or cls()

    def finish(self, phase: str, folder: Path) -> None:
        self.done.append(phase)
        write_atomic(folder / STATE, self.model_dump_json(indent=2))


def finished_outcome(folder: Path) -> str | None:
    """A finished job's printed outcome, as stored; None while the job is unfinished (or finished
    before outcomes were stored: it then runs again from its records, with no LM call)."""
    path = folder / OUTCOME
    if not path.is_file() or "done" not in JobState.read(folder).done:
        return None
    return path.read_text(encoding="utf-8")


@dataclass
class Job:
    config: OptimizeConfig
    settings: Settings
    folder: Path
    guard: SpendingGuard
    tracking: EvalTracking
    progress: bool = True
    teacher: dspy.LM | None = None  # bootstraps demos and proposes instructions; the configured LM is the student
    cold_start: Callable[[], object] = lambda: None  # before each system's run: see `run_examples`
    # questions in flight in the evals; the select runs stay at 1: their recorder reads the LM's last call
    workers: int = 1
    clock: Callable[[Record], object] = lambda record: None  # sees each record run now: `optimize.job.clock`
    _searched: dict[int, GatedRAG] = field(default_factory=dict, init=False, repr=False)  # see `_remembering`

    def run(self, uncompiled: GatedRAG, sets: JobSets) -> Outcome:
        state = JobState.read(self.folder)
        if state.done:
            print(f"resuming job {self.folder.name}: done {', '.join(state.done)}; spent so far {self.guard.calls} LM calls",
                  file=sys.stderr)
        baselines = {"baseline": uncompiled} | ({BASELINE: baseline(BASELINE, uncompiled)} if self.config.single_pass
                                                else {})
        self._eval(baselines, sets.report, sets.report_name, "eval_baseline", step=0)
        decisions = read_state(self.folder / DECISIONS, Decisions) or Decisions()
        prompts = self._prompts(uncompiled, sets, state, decisions)
        compiled = prompts.deepcopy()
        compiled.thresholds = self._thresholds(prompts, sets.select, state, decisions)
        compiled.thresholds = self._links(compiled.thresholds, sets, state, decisions)
        compiled = self._judges(compiled, sets, state, decisions)
        compiled.compiled_with = self.config.model
        _save(compiled, self.folder / PROGRAM)
        _seed_records(self.folder / "eval_baseline", self.folder / "eval")  # the baseline is not run twice
        # subtle: with nothing shipped that answers differently, the compiled program is the uncompiled one:
        # running it again would only measure the LM's timing noise, at the price of a whole report run
        shipped = decisions.prompts.ships or decisions.thresholds.ships or _judged(decisions, compiled)
        rejected = None if shipped or not self.config.report_rejected else self._rejected(uncompiled)
        systems = baselines | ({COMPILED: compiled} if shipped else {}) | (
            {REJECTED: rejected} if rejected is not None else {})
        # subtle: the log holds the baseline's seeded records, so a resume line would name a resume that
        # did not happen; the job's own line says when the job resumed
        final = self._eval(systems, sets.report, sets.report_name, "eval", step=2, announce=False)
        table = self._compare(sets.report_name, COMPILED) if shipped else self._kept(sets, rejected is not None, decisions)
        self._calibrate(compiled, sets.report_name, COMPILED if shipped else "baseline")
        outcome = Outcome(final, table, decisions)
        write_atomic(self.folder / OUTCOME, str(outcome))
        if "done" not in state.done:  # a job finished before its outcome was stored: MLflow has the rest
            self._log_outputs(compiled)
            state.finish("done", self.folder)
        return outcome

    def _log_outputs(self, compiled: GatedRAG) -> None:
        """The program, the decisions and the report as the MLflow run's artifacts, and the program as its model."""
        report = [p for p in (self.folder / "eval").rglob("*") if p.is_file() and p.suffix in (".md", ".html", ".json", ".png")]
        self.tracking.log_files([self.folder / PROGRAM, self.folder / DECISIONS, *report], self.folder)
        model_uri = log_program_model(compiled, tracking_uri(self.settings), self.tracking.run_id)
        write_atomic(self.folder / "model_uri", model_uri)

    def _prompts(self, uncompiled: GatedRAG, sets: JobSets, state: JobState, decisions: Decisions) -> GatedRAG:
        path = self.folder / PROMPTS
        if "prompts" in state.done:
            # the job's own file, read like any program: a damaged one fails in one line naming it
            return loading.apply_state(uncompiled.deepcopy(), loading.read_state(path), str(path))
        base = self._select_run(uncompiled, UNCOMPILED, sets.select)
        candidates = self._prompt_candidates(uncompiled, sets)
        ran = {name: self._select_run(program, name, sets.select) for name, program in candidates.items()}
        if ran:
            name = best(ran)
            decisions.prompts = judge_candidate("prompts", name, ran[name], base)
        else:
            decisions.prompts = Verdict(component="prompts", candidate="none", ships=False,
                                        line="prompts: keeping the uncompiled prompts; no candidate could be built")
        chosen = candidates[decisions.prompts.candidate] if decisions.prompts.ships else uncompiled
        decisions.prompts_system = decisions.prompts.candidate if decisions.prompts.ships else UNCOMPILED
        print(decisions.prompts.line, file=sys.stderr)
        if decisions.prompts.candidate in candidates and not decisions.prompts.ships:
            _save(candidates[decisions.prompts.candidate], self.folder / CANDIDATE)  # for `report_rejected`
        _save(chosen, path)
        write_atomic(self.folder / DECISIONS, decisions.model_dump_json(indent=2))
        demos = {name: len(getattr(chosen, name).demos) for name in GatedRAG.PREDICTORS}
        self.tracking.log_metrics({f"demos.{k}": v for k, v in demos.items()} | {"prompts.shipped": float(
            decisions.prompts.ships)} | self._spent(), step=1)
        state.finish("prompts", self.folder)
        return chosen

    def _prompt_candidates(self, uncompiled: GatedRAG, sets: JobSets) -> dict[str, GatedRAG]:
        if self.config.optimizer == "labelled":
            return labelled_candidates(uncompiled, sets.train, self.config)
        self.guard.check()
        return {self.config.optimizer: compile_prompts(uncompiled, sets.train, self._metric(), self.config,
                                                       valset=sets.select, teacher=self.teacher)}

    def _rejected(self, uncompiled: GatedRAG) -> GatedRAG | None:
        """The compiled candidate nothing of which shipped: the best prompt candidate with the searched
        thresholds; None when the search kept the current thresholds and no prompt candidate was built."""
        path, chosen = self.folder / CANDIDATE, self.folder / "thresholds" / CHOSEN
        program = (loading.apply_state(uncompiled.deepcopy(), loading.read_state(path), str(path))
                   if path.is_file() else uncompiled.deepcopy())
        program.thresholds = Thresholds.model_validate_json(chosen.read_text()) if chosen.is_file() else program.thresholds
        return None if program.dump_state() == uncompiled.dump_state() else program

    def _kept(self, sets: JobSets, rejected_ran: bool, decisions: Decisions) -> str:
        links = decisions.links is not None and decisions.links.ships
        kept = ("no compiled component beat the uncompiled one on the select questions: the program written is the "
                f"uncompiled one{' with the searched link weights, which only a walk from a seed URL reads' if links else ''}")
        if not rejected_ran:
            return f"report split: {sets.report_name}, {len(sets.report)} questions\n{kept}, and its report is the baseline's"
        return (f"{kept}. The candidate kept out (its best prompts and searched thresholds), on the report questions, "
                f"which no phase saw:\n{self._compare(sets.report_name, REJECTED)}")

    def _thresholds(self, program: GatedRAG, select: list[dspy.Example], state: JobState,
                    decisions: Decisions) -> Thresholds:
        path = self.folder / THRESHOLDS
        if "thresholds" in state.done:
            return Thresholds.model_validate_json(path.read_text())
        recorded = self._select_records(decisions.prompts_system)
        recording = Recording.of(read_calls(self._recording(decisions.prompts_system)))
        memo = with_memo(self._remembering(program), DEEPEST_CUT)  # the trials and fidelity checks share it too
        started = time.perf_counter()
        with TrialPool(memo, select, recording, self._score()) as pool:
            evaluate = replay_objective(pool.replay, _seconds_per_call(recorded))
            picked, front = search_thresholds(program.thresholds, evaluate, self.config, self.folder / "thresholds",
                                              self.progress)
            points = all_points(self.folder / "thresholds")
            current = _trial_of(points, program.thresholds)
            sparsify = Sparsifier(evaluate, current)
            point = sparsify(_trial_of(points, picked), list(range(len(select))))
            cross_validated = self._cross_validated(points, current, sparsify)
        chosen = point.thresholds
        # replayed once more on predictors that remember nothing: the stand-ins now, the fidelity after a real run
        chosen_replay, stand_ins = replay_afresh(memo, chosen, select, recording, self._score())
        decisions.replay = {"trials": float(len(points)), "questions": float(len(select)),
                            "chosen_trial": float(point.trial), "chosen_quality": round(point.quality, 4),
                            "chosen_latency_s": round(point.latency_s, 2),
                            "knobs_searched": float(len(moved(program.thresholds, picked))),
                            "knobs_moved": float(len(moved(program.thresholds, chosen))),
                            "sparsify_replays": float(sparsify.replays),
                            "seconds": round(time.perf_counter() - started, 1), "workers": float(pool.workers),
                            "asked": float(pool.asked), "asked_s": round(pool.asked_s, 1),
                            "best_gain": round(point.quality - current.quality, 4),
                            "best_seconds_saved": round(current.latency_s - point.latency_s, 2),
                            "fidelity_current": self._fidelity(memo, program.thresholds, select, recording, recorded),
                            "chosen_stand_ins": round(stand_ins, 3)} | cross_validated
        decisions.thresholds = self._judge_thresholds(program, chosen, chosen_replay, select, recorded, decisions)
        print(decisions.thresholds.line, file=sys.stderr)
        kept = chosen if decisions.thresholds.ships else program.thresholds
        write_atomic(path, kept.model_dump_json(indent=2))
        write_atomic(self.folder / "thresholds" / CHOSEN, chosen.model_dump_json(indent=2))  # shipped or not
        write_atomic(self.folder / DECISIONS, decisions.model_dump_json(indent=2))
        figure = plot_front(points, front, point, self.folder / "pareto_front.png")
        self._log_trials(points)
        self.tracking.log_metrics({f"replay.{k}": v for k, v in decisions.replay.items()}
                                  | {"thresholds.shipped": float(decisions.thresholds.ships)}, step=1)
        self.tracking.log_files([path, self.folder / "thresholds" / CHOSEN, figure], self.folder)
        state.finish("thresholds", self.folder)
        return kept

    def _links(self, thresholds: Thresholds, sets: JobSets, state: JobState, decisions: Decisions) -> Thresholds:
        """The link weights fitted to the dataset's site (`optimize.links.site_fit`), when it has one:
        searched on the train and select questions' walks from their seed pages, with the report
        questions walked under both weights as a held-out check. No LM is run; the report runs do
        not start from a seed URL, so this phase's check is the only one its weights get."""
        config = self.config
        if not has_site(config.dataset, config.site) or config.link_trials == 0:
            return thresholds
        path = self.folder / LINKS / "link_fit.json"
        if "links" in state.done:
            fit = LinkFit.model_validate_json(path.read_text())
        else:
            fit = fit_to_site(self.settings, config.site, seed_page(config.dataset, config.site, config.seed_page),
                              labelled(sets.train + sets.select), thresholds, trials=config.link_trials,
                              latency_weight=config.latency_weight, seed_number=config.seed,
                              folder=self.folder / LINKS / "trials", progress=self.progress,
                              held_out=labelled(sets.report))
            held = f"; {fit.held_out.line}" if fit.held_out else ""
            decisions.links = Verdict(component="link weights", candidate="the searched link weights", ships=fit.ships,
                                      line=fit.line + held)
            print(decisions.links.line, file=sys.stderr)
            write_atomic(path, fit.model_dump_json(indent=2))
            write_atomic(self.folder / LINKS / "link_fit.md", fit_table(fit))
            write_atomic(self.folder / DECISIONS, decisions.model_dump_json(indent=2))
            self.tracking.log_metrics(_link_metrics(fit), step=1)
            self.tracking.log_files([path, self.folder / LINKS / "link_fit.md"], self.folder)
            state.finish("links", self.folder)
        return thresholds.model_copy(update=fit.chosen) if fit.ships else thresholds

    def _judges(self, program: GatedRAG, sets: JobSets, state: JobState, decisions: Decisions) -> GatedRAG:
        """The learned judges refitted to the user's labels, and the release chosen (`optimize.job.judges_refit`):
        `sufficiency` on the train and select questions' retrieval-only rollouts (no LM), then the program
        with the learned release run for real on the select questions, whose final drafts refit
        `acceptance` and replay the release against the program's own."""
        path = self.folder / JUDGED
        if "judges" in state.done:
            return loading.apply_state(program.deepcopy(), loading.read_state(path), str(path))
        judged = program.deepcopy()
        judged.sufficiency = self._refit_sufficiency(program, sets, decisions)
        judged.acceptance, judged.thresholds = self._release(judged, sets.select, decisions)
        verdicts = (decisions.sufficiency, decisions.acceptance, decisions.release)
        for verdict in verdicts:
            print(verdict.line, file=sys.stderr)
        _save(judged, path)
        write_atomic(self.folder / DECISIONS, decisions.model_dump_json(indent=2))
        self.tracking.log_metrics({f"{v.component}.shipped": float(v.ships) for v in verdicts}, step=1)
        state.finish("judges", self.folder)
        return judged

    def _refit_sufficiency(self, program: GatedRAG, sets: JobSets, decisions: Decisions) -> SufficiencyModel:
        states = [s for example in tqdm(sets.train + sets.select, desc="rollouts", unit="question",
                                        disable=not self.progress)
                  for s in roll_out(program, example, program.thresholds.max_iterations)]
        fit = judge_refit("sufficiency", program.sufficiency, [s.features for s in states],
                          [s.sufficient for s in states], [s.qid for s in states], f"{len(states)} states of this job")
        decisions.sufficiency = fit.verdict
        return fit.model

    def _release(self, program: GatedRAG, select: list[dspy.Example],
                 decisions: Decisions) -> tuple[AcceptanceModel, Thresholds]:
        """The acceptance model and the thresholds the program ships with: the learned release's when it
        beats the program's own on the select questions, else the program's."""
        learned = program.deepcopy()
        learned.thresholds = learned.thresholds.model_copy(update={"release": "learned"})
        ran = self._select_run(learned, "learned", select)
        drafted, rows, rights = acceptance_rows(ran)
        fit = judge_refit("acceptance", program.acceptance, rows, rights, [r.qid for r in drafted],
                          f"{len(rows)} drafts of this job")
        # subtle: the threshold is picked on the probabilities the release is then replayed with, so the
        # select questions flatter it; the report questions, which no phase saw, measure its wrong rate
        threshold = release_threshold(fit.held_out.tolist(), rights, self.config.max_wrong_rate)
        model = fit.model.model_copy(update={"threshold": threshold, "max_wrong_rate": self.config.max_wrong_rate})
        current = "thresholds-chosen" if decisions.thresholds.ships else decisions.prompts_system
        decisions.acceptance = fit.verdict
        decisions.release = judge_release(self._select_records(current), ran,
                                          {r.qid: float(p) for r, p in zip(drafted, fit.held_out)}, model,
                                          program.thresholds)
        kept = fit.verdict.ships or decisions.release.ships or threshold is not None
        return (model if kept else program.acceptance,
                learned.thresholds if decisions.release.ships else program.thresholds)

    def _judge_thresholds(self, program: GatedRAG, chosen: Thresholds, chosen_replay: list[Replayed], select,
                          recorded: list[Record], decisions: Decisions) -> Verdict:
        """The chosen point, run for real on the select questions: the fidelity of its replay
        (`chosen_replay`) there, and whether it beats the current thresholds."""
        r = decisions.replay
        if chosen == program.thresholds:
            why = ("the search chose them" if not r["knobs_searched"] else f"none of the {r['knobs_searched']:.0f} "
                   "knobs the search's pick moved paid on replay beyond the noise")
            return Verdict(component="thresholds", candidate="the current thresholds", ships=False,
                           line=f"thresholds: keeping the current thresholds; {why}")
        if r.get("cv_gain", 1.0) <= 0:
            # subtle: the pick's gain on the questions that picked it is partly luck; held out, it
            # is not there, and a real run to confirm it would cost as much as the whole search saved
            return Verdict(component="thresholds", candidate="the searched thresholds", ships=False, line=(
                f"thresholds: keeping the uncompiled thresholds; the best replayed point gained {r['best_gain']:+.3f} "
                f"composite{_saved(r)} on the {len(select)} select questions that picked it, but picked on {FOLDS - 1} of "
                f"{FOLDS} folds, the search gained {r['cv_gain']:+.3f} [{r['cv_low']:+.3f}, {r['cv_high']:+.3f}] "
                f"on the held-out folds; {_sparse(r, program.thresholds, chosen)}; {_replayed(r)}"))
        candidate = program.deepcopy()
        candidate.thresholds = chosen
        ran = self._select_run(candidate, "thresholds-chosen", select)
        r["fidelity_chosen"] = round(fidelity(chosen_replay, ran), 3)
        verdict = judge_candidate("thresholds", "the searched thresholds", ran, recorded)
        return verdict.model_copy(update={"line": f"{verdict.line}; {_sparse(r, program.thresholds, chosen)}; "
                                                  f"{_replayed(r)}"})

    def _cross_validated(self, points: list[Point], current: Point, sparsify: Sparsifier) -> dict[str, float]:
        """The held-out gain of the search and the sparsifying of its pick (see
        `optimize.job.cross_validation`), if the trials allow it."""
        gain = cross_validate(points, current.trial, self.config.latency_weight, self.config.latency_budget_s,
                              self.config.seed, refine=sparsify)
        if gain is None:
            return {}
        return {"cv_gain": round(gain.mean, 4), "cv_low": round(gain.low, 4), "cv_high": round(gain.high, 4)}

    def _fidelity(self, memo: GatedRAG, thresholds: Thresholds, select, recording: Recording,
                  real: list[Record]) -> float:
        return round(fidelity(replay_at(memo, thresholds, select, recording, self._score()), real), 3)

    def _select_run(self, program: GatedRAG, system: str, select: list[dspy.Example]) -> list[Record]:
        """`system` on the select questions, real and uncached, its LM calls recorded for the replay."""
        folder = self.folder / SELECT
        (folder / "recordings").mkdir(parents=True, exist_ok=True)
        self.guard.check()
        callbacks = [*dspy.settings.callbacks, LMRecorder(self._recording(system))]
        with dspy.context(lm=dspy.settings.lm.copy(cache=False), callbacks=callbacks):
            return run_examples(self._remembering(program), select, system, RecordLog(folder / RESULTS),
                                self._score(), 1, self.config.time_limit_s, self.progress,
                                finished=self._finished, cold_start=self.cold_start)

    def _finished(self, record: Record) -> None:
        self.tracking.log_trace(record)
        self.clock(record)

    def _remembering(self, program: GatedRAG) -> GatedRAG:
        """`program` searching through the job's one memo (`remembering_searches`): the select runs
        fill it, so that the threshold trials, which ask the same queries, do not search them again."""
        # one memo per search (a candidate could bring its own), held so that its id stays its own
        if id(program.search) not in self._searched:
            self._searched[id(program.search)] = remembering_searches(program, DEEPEST_CUT)
        searched = self._searched[id(program.search)]
        shared = copy.copy(program)
        shared.search, shared.web = searched.search, searched.web
        return shared

    def _select_records(self, system: str) -> list[Record]:
        return [r for r in RecordLog(self.folder / SELECT / RESULTS).read() if r.system == system]

    def _recording(self, system: str) -> Path:
        return self.folder / SELECT / "recordings" / f"{system}.jsonl"

    def _eval(self, programs: dict[str, GatedRAG], examples, split: str, name: str, step: int,
              announce: bool = True) -> RunSummary:
        # subtle: the evals run uncached, so their latencies are real: with the cache on, the
        # compiled eval would replay the select runs' calls, and a second job (or one after
        # an eval of the same questions) would replay the baseline's, in about a second each
        with dspy.context(lm=dspy.settings.lm.copy(cache=False)):
            return self._run_eval(programs, examples, split, name, step, announce)

    def _run_eval(self, programs: dict[str, GatedRAG], examples, split: str, name: str, step: int,
                  announce: bool) -> RunSummary:
        config = EvalConfig(dataset=self.config.dataset, dataset_sha256=self.config.dataset_sha256, split=split,
                            systems=list(programs), limit=None, profile=self.settings.resolved_profile,
                            model=self.config.model,
                            time_limit_s=self.config.time_limit_s, program=self.folder.name, cache=False,
                            reranker=self.settings.reranker)
        summary = run_eval(config, self.settings, self.folder / name, programs, examples, self._score(), self.workers,
                           params={"job": self.folder.name}, progress=self.progress, announce=announce,
                           cold_start=self.cold_start, finished=self.clock)
        for system in summary.systems:
            values = {f"{system.system}.{k}": e.mean for k, e in system.metrics.items()}
            self.tracking.log_metrics(values | {f"{system.system}.latency_p50_s": system.latency_p50_s}, step=step)
        self.tracking.log_metrics(self._spent(), step=step)
        return summary

    def _compare(self, split: str, system: str) -> str:
        """`system` (the compiled program, or the candidate kept out) against the uncompiled one on the
        report questions, per question, with paired intervals."""
        records = RecordLog(self.folder / "eval" / RESULTS).read()
        as_one = lambda name: [r.model_copy(update={"system": "gated"}) for r in records if r.system == name]  # noqa: E731
        comparison = compare_runs("uncompiled", as_one("baseline"), system, as_one(system))
        table = f"report split: {split}, {comparison.systems[0].n if comparison.systems else 0} questions\n"
        table += text_table(comparison)
        write_atomic(self.folder / "eval" / COMPARISON, to_markdown(comparison_blocks(comparison), "."))
        prefix = "delta" if system == COMPILED else f"{system}_delta"
        for compared in comparison.systems:
            self.tracking.log_metrics({f"{prefix}.{d.metric}": d.delta.mean for d in compared.deltas}, step=2)
        return table

    def _calibrate(self, program: GatedRAG, split: str, system: str = "compiled") -> None:
        records = [r for r in RecordLog(self.folder / "eval" / RESULTS).read() if r.system == system]
        results, rights = outcomes(records)
        try:
            program.calibrator = fit_calibrator(results, rights, fitted_on=f"{self.folder.name}: {len(results)} "
                                                f"{split} records, in-sample")
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
        return lambda example, pred: score_example(example, pred, judge, weights, self.config.model)

    def _metric(self) -> CompositeMetric:
        return CompositeMetric(self._weights(), build_support_judge("lexical"), self.config.model,
                               with_feedback=self.config.optimizer == "gepa")

    def _weights(self) -> CompositeWeights:
        return CompositeWeights(latency_budget_s=self.config.time_limit_s / 2)


def _judged(decisions: Decisions, compiled: GatedRAG) -> bool:
    """Whether the judges phase shipped something that changes answers: the learned release, or a
    refitted acceptance model that an already learned release reads; a refitted sufficiency model
    alone changes only the numbers the trace reports under the rule release."""
    learned = compiled.thresholds.release == "learned"
    return any(v is not None and v.ships and (v.component == "release" or learned)
               for v in (decisions.sufficiency, decisions.acceptance, decisions.release))


def _sparse(replay: dict[str, float], current: Thresholds, chosen: Thresholds) -> str:
    """Which knobs the point moves, of those the search's pick moved (`optimize.job.sparse_point`)."""
    return (f"the point moves {replay['knobs_moved']:.0f} of the {replay['knobs_searched']:.0f} knobs the search's "
            f"pick moved: {changes(current, chosen)}")


def _saved(replay: dict[str, float]) -> str:
    """The replayed seconds a question the point saves, when it saves any: a point that only makes
    the loop faster is kept out all the same (the keep rule asks for better answers), and the
    line says what that leaves on the table."""
    saved = replay.get("best_seconds_saved", 0.0)  # absent from a job recorded before it was kept
    return f" and saved {saved:.2f} s a question" if saved > 0 else ""


def _replayed(replay: dict[str, float]) -> str:
    """How much of the chosen point's replayed score rests on stand-ins for LM replies the recording
    lacks and, once the point has run for real, how often the replay took the real run's actions:
    a point that shows the reader other evidence is mostly guessed, and its real run tells how well."""
    said = f"the replay stood in for {replay['chosen_stand_ins']:.0%} of the point's LM replies"
    if "fidelity_chosen" in replay:
        said += f" and took the real run's actions on {replay['fidelity_chosen']:.0%} of the select questions"
    return said


def _link_metrics(fit: LinkFit) -> dict[str, float]:
    values = {"links.shipped": float(fit.ships), "links.trials": float(fit.trials), "links.questions": float(fit.questions),
              "links.reach_current": fit.reach_current, "links.reach_chosen": fit.reach_chosen,
              "links.cv_gain": fit.cv_gain, "links.cv_low": fit.cv_low, "links.cv_high": fit.cv_high}
    if fit.held_out is not None:
        values |= {f"links.held_out_{k}": v for k, v in fit.held_out.model_dump().items()}
    return {k: float(v) for k, v in values.items() if v is not None}


def _seed_records(source: Path, target: Path) -> None:
    """The baseline's records and its trace list, so the final report links the traces they already
    have instead of logging them again; the results log last, since its presence means seeded."""
    if (target / RESULTS).exists() or not (source / RESULTS).exists():
        return
    target.mkdir(parents=True, exist_ok=True)
    for name in (TRACES, RESULTS):
        if (source / name).exists():
            with replacing(target / name) as tmp:  # a half copy would be taken for a resumable log
                shutil.copyfile(source / name, tmp)


def _save(program: GatedRAG, path: Path) -> None:
    with replacing(path) as tmp:
        program.save(tmp)


def _trial_of(points: list[Point], thresholds: Thresholds) -> Point:
    return next(p for p in points if p.thresholds == thresholds)


def _seconds_per_call(records: list[Record]) -> float:
    """Measured in the recorded select run: its mean seconds per question over its mean LM calls."""
    calls = statistics.fmean(r.scores.lm_calls for r in records) if records else 0
    return statistics.fmean(r.seconds for r in records) / calls if calls else 10.0
