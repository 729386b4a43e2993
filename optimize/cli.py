"""The `python -m optimize` command line: `run` (the default) compiles a program, `eval` scores
systems on a split, `compare` diffs two runs, `export` writes a run's prompts as text.

Each subcommand is a function taking the parsed args; a bare `python -m optimize` runs `run`
with the quick preset. Bad input (unknown split or system, missing
program file or run) ends with one line and exit 2 before anything is written; missing data,
index or model with one line and exit 1; Ctrl-C with how to resume.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from program.cli import run_command

DEFAULT_THREADS = {"local": 1, "openai": 8}
DEFAULT_TIMEOUT_S = 240.0


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not the usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["run", *argv]  # a bare `python -m optimize` runs the optimize job
    return run_command(parser().parse_args(argv))


def parser() -> Parser:
    from optimize.commands import compare_command, eval_command
    from optimize.examples import SPLITS_AVAILABLE
    from optimize.job_command import add_parsers

    root = Parser(prog="python -m optimize", description="optimize, evaluate and compare gatedrag programs")
    sub = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ev = sub.add_parser("eval", help="score the gated loop and its baselines on a split; resumable", description=(
        "Run each system on the split, append one JSONL line per question as it finishes, then write report.md, "
        "report.html and summary.json into the run folder and log the run to MLflow. Re-running the same "
        "command resumes: finished questions are never run again."))
    ev.add_argument("--split", required=True, choices=SPLITS_AVAILABLE, help="smoke/dev to tune on; test for final reports only")
    ev.add_argument("--dataset", default="hotpotqa", choices=["hotpotqa"])
    ev.add_argument("--program", default="uncompiled", help="a compiled program JSON for the gated system, or 'uncompiled'")
    ev.add_argument("--systems", default="gated,single_pass,fixed_hops", help="comma-separated: gated, single_pass, fixed_hops")
    ev.add_argument("--limit", type=_positive_int, help="the first N questions of the split")
    ev.add_argument("--threads", type=_positive_int, help=(
        "questions in flight (default: 1 for the local profile, whose llama.cpp server has one slot, so more "
        "threads only queue there and inflate each question's latency; 8 for openai)"))
    ev.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help=(
        f"seconds per question (default {DEFAULT_TIMEOUT_S:g}): the loop then returns its draft; at twice that "
        "the question is given up and recorded as a timeout"))
    ev.add_argument("--judge", default="lexical", choices=["lexical", "lm"], help="citation-support judge of the metrics")
    ev.add_argument("--cache", action="store_true", help="use DSPy's LM cache (cheaper re-runs, but latencies are not real)")
    ev.add_argument("--web", choices=["tavily", "offline", "none"], help=(
        "the web backend (default: tavily if TAVILY_API_KEY is set, else offline); none: the loop never searches the web"))
    ev.add_argument("--hide-gold", action="store_true", help=(
        "hide each question's gold paragraphs from the index search and the offline web corpus (a search filter; "
        "the index is unchanged): checks that the program abstains when the evidence lacks the answer"))
    ev.add_argument("--profile", choices=["local", "openai"])
    ev.add_argument("--local-model", choices=["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    ev.add_argument("--out", type=Path, help="the run folder (default: <data dir>/runs/<run id>)")
    ev.add_argument("--data-dir", type=Path)
    ev.add_argument("--no-progress", dest="progress", action="store_false")
    ev.set_defaults(run=eval_command)
    cmp = sub.add_parser("compare", help="metric deltas B-A with paired 95%% CIs, and flipped questions")
    cmp.add_argument("run_a", help="run id (under <data dir>/runs) or run folder")
    cmp.add_argument("run_b")
    cmp.add_argument("--out", type=Path, help="where to write the Markdown (default: <run B>/compare.md)")
    cmp.add_argument("--data-dir", type=Path)
    cmp.set_defaults(run=compare_command)
    add_parsers(sub, _positive_int)
    return root


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
