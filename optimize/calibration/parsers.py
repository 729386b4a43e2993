"""The flags of `python -m optimize calibrate`. They name its recipe in `optimize.calibration.command`
by "module:function", imported only when the command runs.
"""

from __future__ import annotations

from pathlib import Path

from program.base.command_line import add_data_dir

SYSTEM = "gated"


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
    cal.set_defaults(run="optimize.calibration.command:calibrate_command")
