"""The recipes behind `python -m optimize eval` and `compare`: check the input, build, run, print.

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

from program.base.command_line import (
    INTERRUPTED,
    UsageError,
    add_data_dir,
    settings_from_args,
)

DEFAULT_THREADS = {"local": 1, "openai": 8}
DEFAULT_TIMEOUT_S = 240.0
TEST_NOTICE = "notice: the test split is for final reports only; tune on smoke, dev and train"
DATASET_HELP = ("hotpotqa (default), aws_docs, or your own labelled questions: a .jsonl, .csv or .parquet file or a "
                "folder saved with save_to_disk (schema: datasets/README.md)")


def eval_command(args: argparse.Namespace) -> int:
    from optimize.eval.evaluate import RESULTS, run_eval
    from optimize.eval.systems import build_systems
    from program.lm.lm_profiles import configure_lm

    settings = _eval_settings(args)
    ref, split = _dataset_split(args)
    config, program_path = _eval_config(args, settings, ref, split)
    if config.split == "test":
        print(TEST_NOTICE, file=sys.stderr)
    examples = _examples(settings, ref, config)
    programs = build_systems(settings, config.systems, program_path)
    folder = args.out or config.folder(settings)
    threads = args.threads or DEFAULT_THREADS[settings.resolved_profile]
    if settings.web_backend_note:
        print(settings.web_backend_note, file=sys.stderr)
    print(f"run {config.run_id}: {len(examples)} questions x {len(programs)} systems, {threads} thread(s) -> {folder}",
          file=sys.stderr)
    try:
        with configure_lm(settings, cache=config.cache) as handle:
            params = {f"threshold.{k}": v for k, v in programs[next(iter(programs))].thresholds.model_dump().items()}
            summary = run_eval(config, settings, folder, programs, examples, _scorer(config.judge, handle.lm), threads,
                               params, args.progress)
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished questions are saved in {folder / RESULTS}; run the same command to resume",
              file=sys.stderr)
        return INTERRUPTED
    print(_overview(summary))
    print(f"report: {folder / 'report.html'}")
    return 0


def compare_command(args: argparse.Namespace) -> int:
    from optimize.eval.compare import compare_runs, comparison_blocks, text_table
    from optimize.eval.document import to_markdown
    from optimize.eval.evaluate import RESULTS
    from optimize.eval.records import RecordLog

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
    from optimize.eval.corpora import corpora_blocks, corpora_table, read_summary
    from optimize.eval.document import to_markdown, to_text

    settings = _eval_settings(args)
    folders = [run_folder(settings, name) for name in args.runs]
    if missing := [f for f in folders if not (f / "summary.json").is_file()]:
        raise UsageError(f"no summary.json in {missing[0]}: the run has not finished")
    summaries = [read_summary(f) for f in folders]
    print(to_text(corpora_table(summaries)))
    args.out.write_text(to_markdown(corpora_blocks(summaries), "."), encoding="utf-8")
    print(f"written: {args.out}")
    return 0


def _dataset_split(args: argparse.Namespace):
    """The dataset and the split to run: a named dataset needs --split; a file runs every row without one."""
    from optimize.eval.example_schema import DatasetError, DatasetFileError
    from optimize.eval.examples import ALL, NAMED, resolve_dataset

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
    from optimize.eval.example_schema import DatasetError, DatasetFileError
    from optimize.eval.examples import load_examples

    try:
        return load_examples(settings, ref, config.split, config.limit)
    except DatasetFileError:
        raise  # the file's content, not the command: exit 1, like missing data
    except DatasetError as error:
        raise UsageError(str(error)) from None


def _eval_config(args: argparse.Namespace, settings, ref, split: str):
    from optimize.eval.run_config import UNCOMPILED, EvalConfig, file_sha256
    from optimize.eval.systems import SYSTEMS

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
        model=settings.local_model if profile == "local" else settings.openai_model,
        time_limit_s=args.timeout, cache=args.cache, web=settings.resolved_web_backend, hide_gold=args.hide_gold,
        collection=settings.collection, web_note=settings.web_backend_note, reranker=settings.reranker)
    return config, program_path


def _scorer(judge_name: str, lm):
    from metrics import CompositeWeights, build_support_judge, score_example

    judge, weights = build_support_judge(judge_name, lm=lm if judge_name == "lm" else None), CompositeWeights()
    return lambda example, pred: score_example(example, pred, judge, weights)


def run_folder(settings, name: str) -> Path:
    """An eval run's folder, by path or by run id under the runs folder; one without results is bad input."""
    from optimize.eval.evaluate import RESULTS
    from optimize.eval.run_config import runs_dir

    folder = Path(name) if Path(name).is_dir() else runs_dir(settings) / name
    if not (folder / RESULTS).is_file():
        raise UsageError(f"no eval run {name!r}: expected {folder / RESULTS}")
    return folder


def _eval_settings(args: argparse.Namespace):
    from program.retrieval.bundled import CORPORA

    # a bundled domain's questions are asked of its own collection unless told otherwise
    dataset = getattr(args, "dataset", None)
    args.collection = getattr(args, "collection", None) or (dataset if dataset in CORPORA else None)
    return settings_from_args(args, profile="profile", local_model="local_model", data_dir="data_dir", web_backend="web",
                              collection="collection")


def _overview(summary) -> str:
    from optimize.eval.document import Table, to_text
    from optimize.eval.summary import MAIN

    rows = [[s.system, str(s.n), *(f"{s.metrics[m].mean:.3f}" for m in MAIN), f"{s.metrics['abstained'].mean:.2f}",
             f"{s.metrics['lm_calls'].mean:.1f}", str(s.web_recall), f"{s.latency_p50_s:.1f}",
             ", ".join(f"{k} {v}" for k, v in s.status.items())] for s in summary.systems]
    return to_text(Table(["system", "n", *MAIN, "abstained", "LM calls", "web recall", "p50 s", "status"], rows))


def add_parsers(sub, positive_int) -> None:
    ev = sub.add_parser("eval", help="score the gated loop and its baselines on a split; resumable", description=(
        "Run each system on the split, append one JSONL line per question as it finishes, then write report.md, "
        "report.html and summary.json into the run folder and log the run to MLflow. Re-running the same "
        "command resumes: finished questions are never run again."))
    ev.add_argument("--dataset", default="hotpotqa", metavar="FILE|NAME", help=DATASET_HELP)
    ev.add_argument("--split", help=(
        "hotpotqa: smoke, dev, test or train; aws_docs: dev or test; a file: a value of its split column "
        "(default: every row). test is for final reports only"))
    ev.add_argument("--program", default="uncompiled", help="a compiled program JSON for the gated system, or 'uncompiled'")
    ev.add_argument("--systems", default="gated,single_pass,fixed_hops", help="comma-separated: gated, single_pass, fixed_hops")
    ev.add_argument("--limit", type=positive_int, help="the first N questions of the split")
    ev.add_argument("--threads", type=positive_int, help=(
        "questions in flight (default: 1 for the local profile, whose llama.cpp server has one slot, so more "
        "threads only queue there and inflate each question's latency; 8 for openai)"))
    ev.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help=(
        f"seconds per question (default {DEFAULT_TIMEOUT_S:g}): the LM call in flight is cancelled and the loop "
        "returns its draft; a question still running 10%% later is given up and recorded as a timeout"))
    ev.add_argument("--judge", default="lexical", choices=["lexical", "lm"], help="citation-support judge of the metrics")
    ev.add_argument("--cache", action="store_true", help="use DSPy's LM cache (cheaper re-runs, but latencies are not real)")
    ev.add_argument("--collection", help="the collection the systems search (default: the dataset's own for "
                    "hotpotqa and aws_docs, else the configured one)")
    ev.add_argument("--web", choices=["tavily", "offline", "none"], help=(
        "the web backend (default: tavily if TAVILY_API_KEY is set, else offline); none: the loop never searches the web"))
    ev.add_argument("--hide-gold", action="store_true", help=(
        "hide the documents each question's gold sources name (titles, or paths and URLs they came from) from the "
        "index search and the offline web corpus (a search filter; "
        "the index is unchanged): checks that the program abstains when the evidence lacks the answer"))
    ev.add_argument("--profile", choices=["local", "openai"])
    ev.add_argument("--local-model", choices=["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    ev.add_argument("--out", type=Path, help="the run folder (default: <data dir>/runs/<run id>)")
    add_data_dir(ev)
    ev.add_argument("--no-progress", dest="progress", action="store_false")
    ev.set_defaults(run=eval_command)
    cmp = sub.add_parser("compare", help="metric deltas B-A with paired 95%% CIs, and flipped questions")
    cmp.add_argument("run_a", help="run id (under <data dir>/runs) or run folder")
    cmp.add_argument("run_b")
    cmp.add_argument("--out", type=Path, help="where to write the Markdown (default: <run B>/compare.md)")
    add_data_dir(cmp)
    cmp.set_defaults(run=compare_command)
    side = sub.add_parser("corpora", help="several eval runs side by side: one row per corpus and system", description=(
        "Read each run's summary.json and print one table, a row per corpus and system: F1, evidence recall, "
        "abstention on answerable and unanswerable questions, LM calls, prompt tokens and p50 against single pass "
        "in the same run; written as Markdown too."))
    side.add_argument("runs", nargs="+", help="run ids (under <data dir>/runs) or run folders")
    side.add_argument("--out", type=Path, required=True, help="where to write the Markdown table")
    add_data_dir(side)
    side.set_defaults(run=corpora_command)
