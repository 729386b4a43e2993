"""The recipes behind `python -m optimize` (the job, `run`) and `python -m optimize export` (their flags:
`optimize.job.parsers`).

`run` reads the config (preset, then `--config FILE`, then flags), reads the dataset's train,
select and report questions (`optimize.eval.examples.job_examples`), picks the run folder (a new
one, `--resume RUN_ID`, or by default the last unfinished run with the same config), builds or
reuses the indexes, starts the LM with DSPy's cache on (threshold trials reuse its calls), and
runs `optimize.job.job.Job`, printing its plan first and a time estimate once its first questions are
timed (`optimize.job.clock`). `--dry-run` prints the estimated LM spending and stops.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from optimize.durable import write_atomic
from optimize.eval.command import workers
from optimize.eval.example_schema import DatasetError, DatasetFileError
from optimize.eval.examples import job_examples, resolve_dataset
from optimize.eval.tracking import tracked_run
from optimize.job.budget import BudgetExceeded, SpendingGuard, estimate
from optimize.job.clock import JobClock
from optimize.job.config import load_config
from optimize.job.export_prompts import export_prompts
from optimize.job.job import PROGRAM, Job, finished_outcome
from optimize.links.questions import seed_path
from optimize.links.seeds import has_site, seed_page
from optimize.links.site import is_page
from optimize.links.site_fit import labelled
from program.assembly.factory import build_program
from program.base.command_line import INTERRUPTED, UsageError, settings_from_args
from program.base.json_file import read_json
from program.lm.lm_profiles import build_teacher, configure_lm, serving_lm, teacher_lm
from program.retrieval.bundled import CORPORA
from program.retrieval.indexing import build_indexes
from program.retrieval.store import CollectionMissingError

EXPERIMENT = "gatedrag-optimize"


def run_command(args: argparse.Namespace) -> int:
    loaded = load_config(args.preset, args.config, _overrides(args))
    # a bundled domain's questions are asked of its own collection unless told otherwise
    args.collection = args.collection or (loaded.dataset if loaded.dataset in CORPORA else None)
    settings = settings_from_args(args, profile="profile", local_model="local_model", data_dir="data_dir",
                                  collection="collection")
    config, sets = _dataset(settings, loaded)
    _check_site(config, sets, settings.ingest_max_bytes)
    if config.teacher_model and config.optimizer == "labelled":
        raise UsageError("--teacher-model needs --optimizer bootstrap, mipro or gepa: labelled demos are taught by "
                         "the labels")
    if args.dry_run:
        return _dry_run(config, sets)
    serving_lm(settings)  # bad LM settings end here, before an index build or any phase
    if config.teacher_model:
        teacher_lm(settings, config.teacher_model)
    folder = _folder(settings, config, args.resume)
    if (stored := finished_outcome(folder)) is not None:
        print(f"{folder.name} already finished: its results as stored (no LM call, nothing logged); remove that "
              "folder to run it afresh", file=sys.stderr)
        return _finished(folder, stored)
    print(f"optimize run {folder.name}: {len(sets.train)} train, {len(sets.select)} select ({sets.select_name}), "
          f"{len(sets.report)} report ({sets.report_name}) questions -> {folder}", file=sys.stderr)
    clock = JobClock(estimate(config, len(sets.select), len(sets.report), config.model).phases)
    skipped = () if config.single_pass else ("single pass is not run beside the baseline (it decides nothing the "
                                             "job ships): --single-pass adds it",)
    print(clock.plan(skipped), file=sys.stderr)
    return _run(config, settings, folder, sets, args.progress, clock, workers(settings, args.workers))


def _dataset(settings, config):
    """The config with its dataset resolved (a file's absolute path and sha256, the validation split's
    name) and the settings' serving LM and reranker filled in, and the train, select and report
    questions, cut to their limits."""
    try:
        ref = resolve_dataset(config.dataset)
        sets = job_examples(settings, ref, config.val_split, config.report_split, config.seed)
    except DatasetFileError:
        raise  # the file's content, not the command: exit 1, like missing data
    except DatasetError as error:
        raise UsageError(str(error)) from None
    config = config.model_copy(update={"dataset": ref.name, "dataset_sha256": ref.sha256, "reranker": settings.reranker,
                                       "model": settings.serving_model})
    return config, sets.limited(config.train_limit, config.select_limit, config.report_limit)


def _check_site(config, sets, max_bytes: int) -> None:
    """A site and seed given wrongly end the job before it starts, not after its LM phases."""
    if not has_site(config.dataset, config.site) and config.seed_page is None:
        return
    seed = seed_page(config.dataset, config.site, config.seed_page)
    if not labelled(sets.train + sets.select):
        raise UsageError("the link weights are fitted to questions that name their gold_sources, and no train or "
                         "select question does")
    if config.site is None:
        return
    if not config.site.is_dir():
        raise UsageError(f"no site folder at {config.site}")
    for example in labelled(sets.train + sets.select + sets.report):
        if not is_page(config.site / (path := seed_path(seed, example)), max_bytes):
            raise UsageError(f"the seed {path!r} of question {example.qid} is not a page in "
                             f"{config.site} (markdown or HTML, at most {max_bytes} bytes)")


def _run(config, settings, folder: Path, sets, progress: bool, clock: JobClock, threads: int) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / "config.json", config.model_dump_json(indent=2))
    uncompiled = _program(settings)
    guard = SpendingGuard(config.caps, config.model, ledger=folder / "spent.json")
    params = config.model_dump(exclude={"caps"}) | {f"cap.{k}": v for k, v in config.caps.model_dump().items()} | {
        "profile": settings.resolved_profile}
    try:
        with configure_lm(settings, cache=True, callbacks=[guard]) as handle, _teacher(settings, config) as teacher, \
                tracked_run(settings, folder, params, EXPERIMENT) as tracking:
            tracking.log_files([folder / "config.json"], folder)
            job = Job(config, settings, folder, guard, tracking, progress, teacher.lm if teacher else None,
                      cold_start=handle.empty_prompt_cache, clock=clock.finished, workers=threads)
            outcome = job.run(uncompiled, sets)
    except BudgetExceeded as stop:
        print(f"stopped: {stop}. What finished is in {folder}; raise the cap and resume with --resume {folder.name}",
              file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print(f"\ninterrupted: resume with `python -m optimize --resume {folder.name}`", file=sys.stderr)
        return INTERRUPTED
    return _finished(folder, str(outcome))


def _finished(folder: Path, outcome: str) -> int:
    # the decision lines were shown as each phase decided; here they head the outcome, on stdout
    print(f"outcome of job {folder.name}:\n{outcome}")
    print(f"compiled program: {folder / PROGRAM}\nreport: {folder / 'eval' / 'report.html'}")
    return 0


def _teacher(settings, config):
    """The teacher LM's handle, or a null context when the config names none."""
    if config.teacher_model is None:
        return contextlib.nullcontext()
    return build_teacher(settings, config.teacher_model)


def _program(settings):
    try:
        return build_program(settings)
    except CollectionMissingError:
        print("no index yet: building it (once)", file=sys.stderr)
        build_indexes(settings, progress=True)
        return build_program(settings)


def _folder(settings, config, resume: str | None) -> Path:
    runs = settings.data_dir / "runs"
    if resume:
        folder = Path(resume) if Path(resume).is_dir() else runs / resume
        if not (folder / "config.json").is_file():
            raise UsageError(f"no optimize run {resume!r} under {runs}")
        _check_same_model(folder, config.model)
        return folder
    return runs / config.run_id  # by default, the run of this same config: resumed when unfinished


def _check_same_model(folder: Path, model: str) -> None:
    """A run resumed with another LM would mix two models' records in one comparison. Runs made
    before the config named its LM say nothing, and are resumed as they are."""
    stored = read_json(folder / "config.json", UsageError)
    if not isinstance(stored, dict):
        raise UsageError(f"{folder / 'config.json'}: not an optimize run's config (a JSON object)")
    if (made_with := stored.get("model")) not in (None, model):
        raise UsageError(f"run {folder.name} was made with {made_with}, not {model}: resume it with that model "
                         "(--local-model, or --profile / GATEDRAG_LM)")


def _dry_run(config, sets) -> int:
    e = estimate(config, len(sets.select), len(sets.report), config.model)
    print(f"dry run of preset {config.preset} ({config.optimizer}), nothing spent:")
    for phase, questions in e.phases.items():
        print(f"  {phase:<22} {questions:>5} questions")
    cost = "unknown price" if e.dollars is None else f"${e.dollars:.2f}"
    print(f"  at most ~{e.lm_calls} LM calls, {e.prompt_tokens:,} prompt + {e.completion_tokens:,} completion tokens, {cost}")
    return 0


def _overrides(args: argparse.Namespace) -> dict:
    caps = {k: getattr(args, f"max_{k}") for k in ("lm_calls", "tokens", "dollars") if getattr(args, f"max_{k}") is not None}
    flags = {k: getattr(args, k) for k in ("dataset", "val_split", "report_split", "optimizer", "teacher_model",
                                           "train_limit", "select_limit", "report_limit", "threshold_trials",
                                           "latency_weight", "latency_budget_s", "report_rejected", "single_pass", "seed_page",
                                           "link_trials", "max_wrong_rate")}
    if args.site is not None:
        flags["site"] = args.site.resolve()  # the run's hash and a resume from elsewhere see one folder
    return flags | ({"caps": caps} if caps else {})


def export_command(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, data_dir="data_dir")
    folder = Path(args.run_id) if Path(args.run_id).is_dir() else settings.data_dir / "runs" / args.run_id
    if not (folder / PROGRAM).is_file():
        raise UsageError(f"no compiled program in {folder}: has the run finished its threshold phase?")
    for path in export_prompts(folder / PROGRAM, args.out or folder / "prompts"):
        print(path)
    return 0
