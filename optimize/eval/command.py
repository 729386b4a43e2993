"""The recipes behind `python -m optimize eval`, `compare` and `corpora` (their flags: `optimize.eval.parsers`):
check the input, build, run, print.

Input is checked before anything is built or written: the dataset (a name or a file, every
row of a file checked) and its split too. `eval` starts the LM once, configures
DSPy once (JSONAdapter, usage tracking, as `program ask` does), and turns DSPy's response
cache off unless asked: an eval measures real latency, and a cached call would also hide
a baseline's cost behind the gated system's identical call.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from metrics import CompositeWeights, build_support_judge, score_example
from optimize.eval.against_baseline import worth
from optimize.eval.compare import compare_runs, comparison_blocks, text_table
from optimize.eval.corpora import corpora_blocks, corpora_table, read_summary
from optimize.eval.document import Table, number, to_markdown, to_text
from optimize.eval.evaluate import RESULTS, run_eval
from optimize.eval.example_schema import DatasetError, DatasetFileError
from optimize.eval.examples import ALL, NAMED, load_examples, resolve_dataset
from optimize.eval.records import RecordLog
from optimize.eval.run_config import UNCOMPILED, EvalConfig, file_sha256, runs_dir
from optimize.eval.summary import MAIN
from optimize.eval.systems import SYSTEMS, build_systems
from program.base.command_line import INTERRUPTED, UsageError, settings_from_args
from program.lm.lm_profiles import configure_lm, serving_lm
from program.retrieval.bundled import CORPORA

SERVED_WORKERS = 8  # questions in flight by default against a served or hosted LM
TEST_NOTICE = "notice: the test split is for final reports only; tune on smoke, dev and train"


def eval_command(args: argparse.Namespace) -> int:
    settings = _eval_settings(args)
    serving_lm(settings)  # a bad LM setting ends here, before any index or program is built
    ref, split = _dataset_split(args)
    config, program_path = _eval_config(args, settings, ref, split)
    if config.split == "test":
        print(TEST_NOTICE, file=sys.stderr)
    examples = _examples(settings, ref, config)
    programs = build_systems(settings, config.systems, program_path)
    folder = args.out or config.folder(settings)
    threads = workers(settings, args.workers)
    if settings.web_backend_note:
        print(settings.web_backend_note, file=sys.stderr)
    print(f"run {config.run_id}: {len(examples)} questions x {len(programs)} systems, {threads} thread(s) -> {folder}",
          file=sys.stderr)
    try:
        with configure_lm(settings, cache=config.cache) as handle:
            params = {f"threshold.{k}": v for k, v in programs[next(iter(programs))].thresholds.model_dump().items()}
            summary = run_eval(config, settings, folder, programs, examples, _scorer(config.judge, handle.lm), threads,
                               params, args.progress, cold_start=handle.empty_prompt_cache)
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished questions are saved in {folder / RESULTS}; run the same command to resume",
              file=sys.stderr)
        return INTERRUPTED
    print(_overview(summary))
    for against in summary.against:
        print(worth(against))
    print(f"report: {folder / 'report.html'}")
    return 0


def compare_command(args: argparse.Namespace) -> int:
    settings = _eval_settings(args)
    a, b = run_folder(settings, args.run_a), run_folder(settings, args.run_b)
    comparison = compare_runs(a.name, RecordLog(a / RESULTS).read(), b.name, RecordLog(b / RESULTS).read())
    if not comparison.systems:
        raise UsageError(f"{a.name} and {b.name} share no system")
    print(text_table(comparison))
    out = args.out or b / "compare.md"
    out.write_text(to_markdown(comparison_blocks(comparison), "."), encoding="utf-8")
    print(f"written: {out}")
    return 0


def corpora_command(args: argparse.Namespace) -> int:
    settings = _eval_settings(args)
    folders = [run_folder(settings, name) for name in args.runs]
    if missing := [f for f in folders if not (f / "summary.json").is_file()]:
        raise UsageError(f"no summary.json in {missing[0]}: the run has not finished")
    summaries = [read_summary(f) for f in folders]
    print(to_text(corpora_table(summaries)))
    args.out.write_text(to_markdown(corpora_blocks(summaries), "."), encoding="utf-8")
    print(f"written: {args.out}")
    return 0


def workers(settings, asked: int | None) -> int:
    """Questions in flight: 1 with the local profile's in-process llama.cpp, whose one slot would only queue
    the others (said on stderr when more were asked), else `asked` or `SERVED_WORKERS`."""
    if settings.resolved_profile == "local":
        if asked and asked > 1:
            print(f"note: --workers {asked} needs a served LM; the local profile's in-process llama.cpp has one slot, "
                  "so questions run one at a time", file=sys.stderr)
        return 1
    return asked or SERVED_WORKERS


def _dataset_split(args: argparse.Namespace):
    """The dataset and the split to run: a named dataset needs --split; a file runs every row without one."""

    try:
        ref = resolve_dataset(args.dataset)
    except DatasetFileError:
        raise  # the file's content, not the command: exit 1, like missing data
    except DatasetError as error:
        raise UsageError(str(error)) from None
    if args.split is None and not ref.is_file:
        raise UsageError(f"--split is required for {ref.name}: one of {', '.join(NAMED[ref.name])}")
    return ref, args.split or ALL


def _examples(settings, ref, config):
    try:
        return load_examples(settings, ref, config.split, config.limit)
    except DatasetFileError:
        raise  # the file's content, not the command: exit 1, like missing data
    except DatasetError as error:
        raise UsageError(str(error)) from None


def _eval_config(args: argparse.Namespace, settings, ref, split: str):
    systems = list(dict.fromkeys(s.strip() for s in args.systems.split(",") if s.strip()))
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or not systems:
        raise UsageError(f"unknown system(s) {', '.join(unknown) or '(none given)'}; valid: {', '.join(SYSTEMS)}")
    program_path = None if args.program == UNCOMPILED else Path(args.program)
    if program_path is not None and not program_path.is_file():
        raise UsageError(f"no compiled program at {program_path}; pass a program JSON or 'uncompiled'")
    profile = settings.resolved_profile
    config = EvalConfig(
        dataset=ref.name, dataset_sha256=ref.sha256, split=split, systems=systems, limit=args.limit, judge=args.judge, profile=profile,
        program=str(program_path.resolve()) if program_path else UNCOMPILED,
        program_sha256=file_sha256(program_path) if program_path else "",
        model=settings.serving_model,
        time_limit_s=args.timeout, cache=args.cache, web=settings.resolved_web_backend, hide_gold=args.hide_gold,
        collection=settings.collection, web_note=settings.web_backend_note, reranker=settings.reranker)
    return config, program_path


def _scorer(judge_name: str, lm):
    judge, weights = build_support_judge(judge_name, lm=lm if judge_name == "lm" else None), CompositeWeights()
    return lambda example, pred: score_example(example, pred, judge, weights)


def run_folder(settings, name: str) -> Path:
    """An eval run's folder, by path or by run id under the runs folder; one without results is bad input."""
    folder = Path(name) if Path(name).is_dir() else runs_dir(settings) / name
    if not (folder / RESULTS).is_file():
        raise UsageError(f"no eval run {name!r}: expected {folder / RESULTS}")
    return folder


def _eval_settings(args: argparse.Namespace):
    # a bundled domain's questions are asked of its own collection unless told otherwise
    dataset = getattr(args, "dataset", None)
    args.collection = getattr(args, "collection", None) or (dataset if dataset in CORPORA else None)
    return settings_from_args(args, profile="profile", local_model="local_model", data_dir="data_dir", web_backend="web",
                              collection="collection")


def _overview(summary) -> str:
    headers = ["system", "n", *MAIN, "abstained", "right/wrong/abst.", "net right", "AURC", "AUROC", "ECE", "LM calls",
               "web recall", "p50 s", "status"]
    return to_text(Table(headers, [_overview_row(s) for s in summary.systems]))


def _overview_row(s) -> list[str]:
    confidence, curve = s.calibration, s.risk_coverage
    return [s.system, str(s.n), *(_mean(s.metrics[m]) for m in MAIN), f"{s.metrics['abstained'].mean:.2f}",
            str(s.outcomes or "–"), _mean(s.metrics["net_right"]), number(curve.aurc if curve else None),
            number(confidence.auroc if confidence else None, 2), number(confidence.ece if confidence else None, 2),
            f"{s.metrics['lm_calls'].mean:.1f}", str(s.web_recall), f"{s.latency_p50_s:.1f}",
            ", ".join(f"{k} {v}" for k, v in s.status.items())]


def _mean(estimate) -> str:
    """A mean to three decimals; a dash for a metric that applied to no question (or was not yet kept)."""
    return number(estimate.mean if estimate.n else None)
