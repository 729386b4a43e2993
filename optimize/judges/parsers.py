"""The flags of `python -m optimize record-states`, `fit-sufficiency`, `fit-acceptance` and `explain`. They name their recipes
in `optimize.judges` by "module:function", imported only when the command runs.
"""

from __future__ import annotations

from pathlib import Path

from program.base.command_line import add_data_dir


def add_parsers(sub) -> None:
    record = sub.add_parser("record-states", help="roll out retrieval (no LM) on labelled questions; write the "
                            "sufficiency features table", description=(
        "Run the loop's retrieval steps, with no LM, on every question of the dataset's splits but test, and write "
        "each state's retrieval signals and its answer-in-evidence label to <data dir>/states/<name>.jsonl."))
    record.add_argument("--dataset", required=True, help="hotpotqa, aws_docs, or a labelled question file")
    record.add_argument("--collection", help="the collection to search (default: the configured one)")
    record.add_argument("--name", help="the table's name (default: the collection's)")
    add_data_dir(record)
    record.set_defaults(run="optimize.judges.record:record_command")

    fit = sub.add_parser("fit-sufficiency", help="fit the sufficiency model on states tables; write it as JSON",
                         description="Fit P(sufficient | signals), a logistic regression, on the tables together.")
    fit.add_argument("tables", nargs="+", type=Path, help="tables written by record-states")
    fit.add_argument("--out", type=Path, required=True, help="where to write the model's JSON")
    fit.set_defaults(run="optimize.judges.fit_command:fit_command")

    accept = sub.add_parser("fit-acceptance", help="fit P(right) on eval runs' answers; save it with the program",
                            description="Fit the acceptance model, P(this draft is right), on the answers the runs "
                            "gave, and write the program carrying it: the learned release answers only when P(right) "
                            "beats the wrong answer's cost, or the threshold --max-wrong-rate chose.")
    accept.add_argument("runs", nargs="+", metavar="RUN", help="eval run ids (under <data dir>/runs) or folders")
    accept.add_argument("--system", default="learned", help="whose records to fit on (default learned: its rules "
                        "refuse no draft, and its release keeps the drafts it withholds, so every draft is labelled)")
    accept.add_argument("--max-wrong-rate", type=_rate, help="bound the wrong rate among answers given, e.g. 0.1: the "
                        "threshold is chosen by conformal risk control on out-of-fold probabilities")
    accept.add_argument("--program", type=Path, help="the program to carry the model (default: the uncompiled one)")
    accept.add_argument("--out", type=Path, help="where to write it (default: program.json in the first run's folder)")
    accept.add_argument("--model-only", action="store_true", help="write the model's JSON alone to --out, the form of "
                        "the shipped default (program/assets/judges/acceptance.json)")
    add_data_dir(accept)
    accept.set_defaults(run="optimize.judges.acceptance_command:fit_acceptance_command")

    explain = sub.add_parser("explain", help="print what each model a program carries weighs",
                             description="Print each stored model's features, coefficients and standardized "
                             "effects, largest first, for a run (its program.json) or a program JSON file.")
    explain.add_argument("program", metavar="RUN|FILE", help="a run id (under <data dir>/runs), a run folder or a "
                         "program JSON")
    add_data_dir(explain)
    explain.set_defaults(run="optimize.judges.explain:explain_command")


def _rate(text: str) -> float:
    value = float(text)
    if not 0.0 < value < 1.0:
        raise ValueError(text)
    return value
