"""What both command lines (`python -m program`, `python -m optimize`) share: how a command runs
and ends (one line for bad input and failures, exit codes, Ctrl-C), and the options every command
takes the same way.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import get_args

from program.base.errors import one_line
from program.base.redaction import install_log_redaction, redact
from program.base.settings import LocalModel, Settings

INTERRUPTED = 130  # the exit code after Ctrl-C


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


def exit_with(code: int) -> None:
    """End the process with `code`, at once after Ctrl-C."""
    if code == INTERRUPTED:
        # subtle: an interrupted run leaves llama.cpp's in-process server mid-request, and its
        # destructor would wait for that request forever at interpreter exit; what the run
        # finished is already on disk, so the process ends here
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed command; bad input, missing data and Ctrl-C end in one line and an exit code.

    Both command lines (`python -m program`, `python -m optimize`) come through here, so this is where
    log records start being redacted."""
    install_log_redaction()
    try:
        return handler(args.run)(args)
    except UsageError as error:
        print(f"error: {redact(one_line(error))}", file=sys.stderr)
        return 2
    # data, index, model or config missing or unreadable; a store down or locked; a file that is not
    # what it should be (program.base.errors.BadFileError); an LM that never became healthy (TimeoutError)
    except (OSError, RuntimeError, ValueError) as error:
        print(f"error: {redact(one_line(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


def handler(run: Callable[[argparse.Namespace], int] | str) -> Callable[[argparse.Namespace], int]:
    """The function a command runs: given as it is, or named "module:function" by its parser and imported
    only now, so that a command's imports (DSPy, MLflow: seconds) are paid by it alone, never by `--help`."""
    if callable(run):
        return run
    module, name = run.split(":")
    return getattr(importlib.import_module(module), name)


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, help="indexes, web cache, sessions and runs (default: "
                        "$GATEDRAG_DATA_DIR, else .gatedrag)")


def add_lm(parser: argparse.ArgumentParser, *, local_model: bool = True) -> None:
    """`--profile`, the LM every command takes the same way, and `--local-model` where a command starts it."""
    parser.add_argument("--profile", metavar="LM", help="the LM (GATEDRAG_LM): local, the bundled model (the default, "
                        "or openai if OPENAI_API_KEY is set), or provider/model as dspy.LM takes it, e.g. "
                        "openai/gpt-4o-mini or ollama_chat/qwen2.5:7b, at GATEDRAG_LM_API_BASE (docs/lms.md)")
    if local_model:
        parser.add_argument("--local-model", choices=get_args(LocalModel), help="the model of the local profile")


def settings_from_args(args: argparse.Namespace, **names: str) -> Settings:
    overrides = {field: getattr(args, attr) for field, attr in names.items() if getattr(args, attr, None) is not None}
    return Settings(**overrides)
