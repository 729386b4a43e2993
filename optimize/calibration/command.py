"""`python -m optimize calibrate`: fit the confidence calibrator on an eval run and save it with the program
(its flags: `optimize.calibration.parsers`).

It reads the run's records of one system (`--run`, default the newest run of `--split` that
has them), fits a calibrator (`optimize.calibration.fit`), attaches it to the program the run
evaluated (or `--program`), and writes that program to `--out` (default: `program.json` in the
run folder, which `--program` of eval, ask and serve take). `--check RUN` measures the
confidence before and after on another run's records, and leaves that run's questions out of
the fit (smoke's questions are among dev's). The test split is refused: it is for final reports.
Input is checked before anything is written. This module runs no LM.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import ValidationError

from optimize.calibration.fit import FitError, before_and_after, fit_calibrator
from optimize.eval.command import run_folder
from optimize.eval.document import Table, number, to_text
from optimize.eval.evaluate import RESULTS
from optimize.eval.records import RecordLog, outcomes
from optimize.eval.run_config import UNCOMPILED, EvalConfig, runs_dir
from optimize.program_file import load_program, save_program
from program.base.command_line import UsageError, settings_from_args


def calibrate_command(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, data_dir="data_dir")
    if args.split == "test":
        raise UsageError("the test split is for final reports only: fit the calibrator on dev, smoke or train")
    folder = run_folder(settings, args.eval_run) if args.eval_run else _newest_run(settings, args.split, args.system)
    config = _config(folder)
    if config.split != args.split:
        raise UsageError(f"{folder.name} ran the {config.split} split, not {args.split}")
    check = _records(run_folder(settings, args.check), args.system) if args.check else []
    results, rights, calibrator = _fit(folder, check, args)
    program = load_program(args.program or (None if config.program == UNCOMPILED else Path(config.program)))
    program.calibrator = calibrator
    out = args.out or folder / "program.json"
    save_program(program, out)
    checked = {f"check: {args.check}": outcomes(check)} if check else {}
    print(_table({f"fit: {folder.name} (in-sample)": (results, rights), **checked}, calibrator))
    print(f"{args.method} calibrator fitted on {calibrator.fitted_on}; program with it: {out}")
    return 0


def _fit(folder: Path, check: list, args: argparse.Namespace):
    """The run's results and outcomes, the check run's questions left out, and the calibrator fitted on them."""

    held_out = {r.qid for r in check}
    results, rights = outcomes([r for r in _records(folder, args.system) if r.qid not in held_out])
    about = f"{folder.name}: {len(results)} {args.system} records"
    if check:
        about += f", minus {args.check}'s questions"
    try:
        return results, rights, fit_calibrator(results, rights, args.method, fitted_on=about)
    except FitError as error:
        raise UsageError(f"{folder.name}: {error}") from None


def _newest_run(settings, split: str, system: str) -> Path:
    runs = [c.parent for c in runs_dir(settings).glob("*/config.json") if (c.parent / RESULTS).is_file()]
    matching = [f for f in runs if _config(f).split == split and system in _config(f).systems]
    if not matching:
        raise UsageError(f"no eval run of the {split} split with the {system} system under {runs_dir(settings)}; "
                         f"run `python -m optimize eval --split {split} --systems {system}` first, or pass --run")
    newest = max(matching, key=lambda f: (f / RESULTS).stat().st_mtime)
    print(f"fitting on the newest {split} run: {newest}", file=sys.stderr)
    return newest


def _config(folder: Path):


    try:
        return EvalConfig.model_validate_json((folder / "config.json").read_bytes())
    except (OSError, ValidationError):
        raise UsageError(f"{folder} has no readable config.json: not an eval run folder") from None


def _records(folder: Path, system: str):
    records = [r for r in RecordLog(folder / RESULTS).read() if r.system == system]
    if not records:
        raise UsageError(f"{folder.name} has no records of the {system} system")
    return records


def _table(sets: dict, calibrator) -> str:
    """ECE and AUROC before and after, per set of (results, rights)."""
    rows = []
    for name, (results, rights) in sets.items():
        before, after = before_and_after(results, rights, calibrator)
        rows.append([name, str(before.n), str(before.right), number(before.ece), number(after.ece),
                     number(before.auroc), number(after.auroc)])
    return to_text(Table(["records", "n", "right", "ECE before", "ECE after", "AUROC before", "AUROC after"], rows))
