"""`python -m optimize explain RUN|FILE`: what each model a program carries weighs.

For each model (the sufficiency and acceptance models, each the shipped default when the program
carries none, and a Platt confidence calibrator when it has one): each feature's coefficient per raw unit and
per standard deviation of the fitting set (its standardized effect), largest effect first. A
positive effect raises the probability. This module reads a program; it runs nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from optimize.eval.run_config import runs_dir
from program.answer.calibrator import ConfidenceCalibrator
from program.assembly.loading import read_state
from program.base.command_line import UsageError, settings_from_args
from program.judges.acceptance import AcceptanceModel
from program.judges.sufficiency import SufficiencyModel

Effects = list[tuple[str, float, float]]


def explain_command(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, data_dir="data_dir")
    source = Path(args.program)
    if not source.exists():
        source = runs_dir(settings) / args.program
        if not source.exists():
            raise UsageError(f"no run or program {args.program!r}: expected a program JSON, a run folder, or a run "
                             f"id under {runs_dir(settings)}")
    print(explain(read_state(source)))
    return 0


def explain(state: dict) -> str:
    return "\n\n".join(_table(name, intercept, effects) for name, intercept, effects in stored_models(state))


def stored_models(state: dict) -> list[tuple[str, float, Effects]]:
    """(name, intercept, effects) of each model the saved state carries, the sufficiency model first."""
    sufficiency, sufficiency_about = _stored(SufficiencyModel, state.get("sufficiency"))
    acceptance, acceptance_about = _stored(AcceptanceModel, state.get("acceptance"))
    release = (f"; releases at P(right) >= {acceptance.threshold:.2f} (wrong rate bound {acceptance.max_wrong_rate:g})"
               if acceptance.threshold is not None else "; releases by the wrong answer's cost")
    models = [(f"sufficiency: P(the evidence holds the answer), fitted on {sufficiency_about}", sufficiency.intercept,
               sufficiency.effects()),
              (f"acceptance: P(this draft is right), fitted on {acceptance_about}{release}", acceptance.intercept,
               acceptance.effects())]
    if (calibrator := state.get("calibrator")) and calibrator.get("method") == "platt":
        c = ConfidenceCalibrator.model_validate(calibrator)
        effects = [(f, w / s, w) for f, w, s in zip(c.features, c.weights, c.scale)]
        models.append((f"confidence calibrator: P(the answer is right), fitted on {c.fitted_on}", c.intercept,
                       sorted(effects, key=lambda row: abs(row[2]), reverse=True)))
    return models


def _stored(kind, saved: dict | None):
    """The program's own model and what it was fitted on, or the shipped default, said so."""
    model = kind.model_validate(saved) if saved else kind.shipped()
    return model, model.fitted_on + ("" if saved else "; the shipped default: the program carries none")


def _table(name: str, intercept: float, effects: Effects) -> str:
    width = max(len("feature"), *(len(f) for f, _, _ in effects))
    lines = [name, f"  {'feature':<{width}}  {'coefficient':>11}  {'per std':>8}"]
    lines += [f"  {f:<{width}}  {raw:>+11.3f}  {std:>+8.3f}" for f, raw, std in effects]
    return "\n".join([*lines, f"  {'(intercept)':<{width}}  {'':>11}  {intercept:>+8.3f}"])
