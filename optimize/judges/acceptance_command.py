"""`python -m optimize fit-acceptance RUN... [--max-wrong-rate A]`: fit the acceptance model on eval runs and save
it with the program.

It reads the runs' records of one system (`--system`, default `learned`, whose rules refuse no draft),
fits P(right) on every labelled final draft, given or withheld (`optimize.judges.acceptance_fit`),
attaches the model to `--program` (default: the uncompiled program) and writes that program to `--out`
(default: `program.json` in the first run's folder); with `--model-only`, the model's JSON alone, the
form of the shipped default. With `--max-wrong-rate`, the release threshold is chosen by conformal risk control
on out-of-fold probabilities. It prints the out-of-fold AUROC, and what the release gives on these
answers out of fold. The test split is refused, and a HotpotQA run's smoke questions are left out:
they are the quick job's report split. This module runs no LM.
"""

from __future__ import annotations

import argparse

from metrics.calibration import auroc
from optimize.eval.command import run_folder
from optimize.eval.evaluate import RESULTS
from optimize.eval.hotpotqa import outside_smoke
from optimize.eval.records import RecordLog
from optimize.eval.run_config import EvalConfig
from optimize.durable import write_atomic
from optimize.judges.acceptance_fit import FitError, fit_acceptance, out_of_fold, rows
from optimize.program_file import load_program, save_program
from program.base.command_line import UsageError, settings_from_args


def fit_acceptance_command(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, data_dir="data_dir")
    if args.model_only and args.out is None:
        raise UsageError("--model-only writes the model alone to --out: name the file")
    folders = [run_folder(settings, name) for name in args.runs]
    if test := [f.name for f in folders if EvalConfig.model_validate_json((f / "config.json").read_bytes()).split == "test"]:
        raise UsageError(f"{test[0]} ran the test split, which is for final reports only: fit on dev, smoke or train")
    found = [row for f in folders for row in rows(_fitted_records(settings, f, args.system))]
    about = f"{len(found)} {args.system} answers of {', '.join(f.name for f in folders)}"
    try:
        model = fit_acceptance(found, about, args.max_wrong_rate)
    except FitError as error:
        raise UsageError(f"{about}: {error}") from None
    print(_report(found, model))
    if args.model_only:
        write_atomic(args.out, model.model_dump_json(indent=1) + "\n")
        print(f"acceptance model fitted on {model.fitted_on}: {args.out}")
        return 0
    program = load_program(args.program)
    program.acceptance = model
    out = args.out or folders[0] / "program.json"
    save_program(program, out)
    print(f"acceptance model fitted on {model.fitted_on}; program with it: {out}")
    return 0


def _fitted_records(settings, folder, system: str) -> list:
    """The run's records of `system`; a HotpotQA run's without its smoke questions, the quick job's report split."""
    records = [r for r in RecordLog(folder / RESULTS).read() if r.system == system]
    return outside_smoke(records, EvalConfig.model_validate_json((folder / "config.json").read_bytes()).dataset, settings)


def _report(found, model) -> str:
    scored, rights = out_of_fold(found), [right for _, right in found]
    bar = model.threshold if model.threshold is not None else 0.5
    given = [right for p, right in zip(scored, rights) if p >= bar]
    wrong = len(given) - sum(given)
    rate = f"{wrong / len(given):.2f}" if given else "n/a"
    area = auroc(scored, rights)
    return (f"out of fold, {len(found)} answers ({sum(rights)} right): AUROC "
            f"{'n/a' if area is None else f'{area:.3f}'}; release at P(right) >= {bar:.2f} gives {len(given)} "
            f"({sum(given)} right, {wrong} wrong: wrong rate {rate}"
            + (f", target {model.max_wrong_rate:g})" if model.max_wrong_rate else ")"))
