"""`python -m optimize fit-sufficiency TABLE... --out FILE`: fit the sufficiency model on recorded states, write its JSON.

The tables are `python -m optimize record-states`' output; all their rows are fitted together
(`optimize.judges.fit`). The shipped default (`program/assets/judges/sufficiency.json`) is this
command's output over the four labelled corpora. This module runs no LM.
"""

from __future__ import annotations

import argparse

from optimize.durable import write_atomic
from optimize.judges.fit import read_table, fit_sufficiency
from program.base.command_line import UsageError


def fit_command(args: argparse.Namespace) -> int:
    missing = [str(p) for p in args.tables if not p.is_file()]
    if missing:
        raise UsageError(f"no states table at {', '.join(missing)}: write one with python -m optimize record-states")
    # subtle: HotpotQA's smoke questions are the quick job's report split, which no shipped model may have seen
    rows = [row for path in args.tables for row in read_table(path) if row["split"] != "smoke"]
    names = ", ".join(sorted({row["corpus"] for row in rows}))
    model = fit_sufficiency(rows, f"{len(rows)} states of {len({(r['corpus'], r['qid']) for r in rows})} questions ({names})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(args.out, model.model_dump_json(indent=1) + "\n")
    print(f"sufficiency model fitted on {model.fitted_on}: {args.out}")
    return 0
