"""`python -m optimize calibrate`: fit the confidence calibrator on an eval run and save it with the program.

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

from program.base.command_line import UsageError, add_data_dir, settings_from_args

SYSTEM = "gated"


def calibrate_command(args: argparse.Namespace) -> int:
    from optimize.eval.command import run_folder
    from optimize.eval.records import outcomes
    from optimize.eval.run_config import UNCOMPILED

    settings = settings_from_args(args, data_dir="data_dir")
    if args.split == "test":
        raise UsageError("the test split is for final reports only: fit the calibrator on dev, smoke or train")
    folder = run_folder(settings, args.eval_run) if args.eval_run else _newest_run(settings, args.split, args.system)
    config = _config(folder)
    if config.split != args.split:
        raise UsageError(f"{folder.name} ran the {config.split} split, not {args.split}")
    check = _records(run_folder(settings, args.check), args.system) if args.check else []
    results, rights, calibrator = _fit(folder, check, args)
    program = _program(args.program or (None if config.program == UNCOMPILED else Path(config.program)))
    program.calibrator = calibrator
    out = args.out or folder / "program.json"
    _save(program, out)
    checked = {f"check: {args.check}": outcomes(check)} if check else {}
    print(_table({f"fit: {folder.name} (in-sample)": (results, rights), **checked}, calibrator))
    print(f"{args.method} calibrator fitted on {calibrator.fitted_on}; program with it: {out}")
    return 0


def _fit(folder: Path, check: list, args: argparse.Namespace):
    """The run's results and outcomes, the check run's questions left out, and the calibrator fitted on them."""
    from optimize.calibration.fit import FitError, fit_calibrator
    from optimize.eval.records import outcomes

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
    from optimize.eval.evaluate import RESULTS
    from optimize.eval.run_config import runs_dir

    runs = [c.parent for c in runs_dir(settings).glob("*/config.json") if (c.parent / RESULTS).is_file()]
    matching = [f for f in runs if _config(f).split == split and system in _config(f).systems]
    if not matching:
        raise UsageError(f"no eval run of the {split} split with the {system} system under {runs_dir(settings)}; "
                         f"run `python -m optimize eval --split {split} --systems {system}` first, or pass --run")
    newest = max(matching, key=lambda f: (f / RESULTS).stat().st_mtime)
    print(f"fitting on the newest {split} run: {newest}", file=sys.stderr)
    return newest


def _config(folder: Path):
    from pydantic import ValidationError

    from optimize.eval.run_config import EvalConfig

    try:
        return EvalConfig.model_validate_json((folder / "config.json").read_bytes())
    except (OSError, ValidationError):
        raise UsageError(f"{folder} has no readable config.json: not an eval run folder") from None


def _records(folder: Path, system: str):
    from optimize.eval.evaluate import RESULTS
    from optimize.eval.records import RecordLog

    records = [r for r in RecordLog(folder / RESULTS).read() if r.system == system]
    if not records:
        raise UsageError(f"{folder.name} has no records of the {system} system")
    return records


def _program(path: Path | None):
    """The program to carry the calibrator: the one at `path`, or the uncompiled one. No search is
    built: only its saved state is written back."""
    from program.assembly.loading import ProgramLoadError, read_state
    from program.loop import GatedRAG

    program = GatedRAG(search=lambda query, k: [])
    if path is None:
        return program
    try:
        return program.load_state(read_state(path))
    except ProgramLoadError as error:
        raise UsageError(str(error)) from None


def _save(program, out: Path) -> None:
    from optimize.durable import replacing

    out.parent.mkdir(parents=True, exist_ok=True)
    with replacing(out) as tmp:
        program.save(tmp)


def _table(sets: dict, calibrator) -> str:
    """ECE and AUROC before and after, per set of (results, rights)."""
    from optimize.calibration.fit import before_and_after
    from optimize.eval.document import Table, number, to_text

    rows = []
    for name, (results, rights) in sets.items():
        before, after = before_and_after(results, rights, calibrator)
        rows.append([name, str(before.n), str(before.right), number(before.ece), number(after.ece),
                     number(before.auroc), number(after.auroc)])
    return to_text(Table(["records", "n", "right", "ECE before", "ECE after", "AUROC before", "AUROC after"], rows))


def add_parsers(sub) -> None:
    cal = sub.add_parser("calibrate", help="fit the confidence on an eval run's records; saves it with the program",
                         description=(
        "Fit a calibrator of the confidence (the probability that an answer is right) on an eval run's records, and "
        "write the program the run evaluated, carrying it, to --out. --check RUN prints ECE and AUROC before and "
        "after on another run's records and leaves that run's questions out of the fit."))
    cal.add_argument("--split", required=True, help="the split the run evaluated (dev, smoke, train, or a file's split); "
                     "test is refused")
    # subtle: not dest "run", which holds the function each subcommand runs
    cal.add_argument("--run", dest="eval_run", help="eval run id (under <data dir>/runs) or folder (default: the newest run of --split)")
    cal.add_argument("--system", default=SYSTEM, help=f"whose records to fit on (default {SYSTEM})")
    cal.add_argument("--method", choices=["platt", "isotonic"], default="platt", help=(
        "platt: logistic regression over every feature (default); isotonic: a monotone map of the heuristic confidence"))
    cal.add_argument("--program", type=Path, help="the program to attach it to (default: the one the run evaluated)")
    cal.add_argument("--out", type=Path, help="where to write the program with its calibrator (default: "
                     "<run folder>/program.json)")
    cal.add_argument("--check", metavar="RUN", help="another eval run to measure before/after on; its questions "
                     "are left out of the fit")
    add_data_dir(cal)
    cal.set_defaults(run=calibrate_command)
