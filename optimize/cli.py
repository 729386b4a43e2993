"""The `python -m optimize` command line: `run` (the default) compiles a program, `eval` scores
systems on a split, `compare` diffs two runs, `calibrate` fits the confidence on a run, `export`
writes a run's prompts as text, `links` fits the link score's weights to a site, `record-states` and
`fit-sufficiency` fit the sufficiency model, `explain` prints what a program's models weigh.

Each subcommand is a function taking the parsed args, named "module:function" by its parser and
imported only when it runs; a bare `python -m optimize` runs `run` with the quick preset. Bad input
(unknown split or system, missing program file or run) ends with one line and exit 2 before
anything is written; missing data,
index or model, a store that cannot be used, or a dataset or program file whose content is bad
(naming the file and the line or field) with one line and exit 1; Ctrl-C, or SIGTERM
(`optimize.sigterm`), with how to resume.
"""

from __future__ import annotations

import argparse
import sys

from optimize.calibration.parsers import add_parsers as add_calibration_parsers
from optimize.eval.parsers import add_parsers as add_eval_parsers
from optimize.job.parsers import add_parsers as add_job_parsers
from optimize.judges.parsers import add_parsers as add_judges_parsers
from optimize.links.parsers import add_parsers as add_links_parsers
from program.base.command_line import run_command


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not the usage block
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0].startswith("-") and argv[0] not in ("-h", "--help"):
        argv = ["run", *argv]  # a bare `python -m optimize` runs the optimize job
    return run_command(parser().parse_args(argv))


def parser() -> Parser:
    root = Parser(prog="python -m optimize", description="optimize, evaluate and compare gatedrag programs")
    sub = root.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_eval_parsers(sub, positive_int)
    add_calibration_parsers(sub)
    add_job_parsers(sub, positive_int)
    add_links_parsers(sub, positive_int)
    add_judges_parsers(sub)
    return root


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
