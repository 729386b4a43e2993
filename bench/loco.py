"""Leave one corpus out: does the sufficiency model hold on a corpus it never saw?

    python bench/loco.py TABLE... [--features a,b,c] [--out FOLDER]

Each TABLE is a states table of one corpus (`python -m optimize record-states`). For each corpus in
turn, the model is fitted on every state of the other corpora (all their non-test splits) and
measured on the held-out corpus's dev states (HotpotQA's dev outside smoke): AUROC (does a
sufficient state score higher than an insufficient one?), ECE (does 0.7 mean 7 in 10?), the
base rate and the counts. Beside the logistic regression it measures gradient-boosted trees
constrained to rise with each coverage signal (`optimize.judges.fit.monotone_boosting`). A second
table says what expanding changes on each held-out corpus, which bounds what an expand-or-read
policy can buy there: the questions whose evidence holds the answer at the first retrieval, those
an expansion made sufficient, those it made insufficient again (trimming to the budget can push a
gold passage out), and those the held-out model already calls sufficient (P >= 0.5) at the first
retrieval, with how many of those are. Writes
`loco.md` and `loco.json` to a run folder (default `<data dir>/runs/loco-<time>`) and prints the table.
No LM is called.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's packages, not an installed copy

from metrics.calibration import auroc, expected_calibration_error  # noqa: E402
from optimize.judges.fit import fit_sufficiency, matrix, monotone_boosting, read_table  # noqa: E402
from program.base.settings import Settings  # noqa: E402
from program.judges.sufficiency import FEATURES  # noqa: E402

REPORTED = "dev"  # the split each held-out corpus is measured on


def fold(train: list[dict], test: list[dict], names: tuple[str, ...]) -> dict:
    model = fit_sufficiency(train, "the other corpora", names)
    x, y = matrix(test, names)
    logistic = [model.probability(dict(zip(names, row))) for row in x]
    boosted = monotone_boosting(train, names).predict_proba(x)[:, 1].tolist()
    return {"n": len(y), "questions": len({r["qid"] for r in test}), "base_rate": float(np.mean(y)),
            "train_n": len(train), "auroc": auroc(logistic, list(map(bool, y))),
            "ece": expected_calibration_error(logistic, list(map(bool, y))),
            "boosted_auroc": auroc(boosted, list(map(bool, y))),
            "boosted_ece": expected_calibration_error(boosted, list(map(bool, y)))} | expanding(test, model, names)


def expanding(test: list[dict], model, names: tuple[str, ...]) -> dict[str, int]:
    """Per question, its states in round order: sufficient at the first, made so by an expansion, made
    insufficient again by the last, and called sufficient at the first by `model`."""
    by: dict[str, list[dict]] = {}
    for row in sorted(test, key=lambda r: r["round"]):
        by.setdefault(row["qid"], []).append(row)
    firsts = [states[0] for states in by.values()]
    sure = [row for row in firsts if model.probability({n: row["features"][n] for n in names}) >= 0.5]
    return {"first_sufficient": sum(row["sufficient"] for row in firsts),
            "gained": sum(not s[0]["sufficient"] and any(r["sufficient"] for r in s[1:]) for s in by.values()),
            "lost": sum(s[0]["sufficient"] and not s[-1]["sufficient"] for s in by.values()),
            "sure_first": len(sure), "sure_first_sufficient": sum(row["sufficient"] for row in sure)}


def leave_one_out(rows: list[dict], names: tuple[str, ...]) -> dict[str, dict]:
    corpora = sorted({r["corpus"] for r in rows})
    return {held: fold([r for r in rows if r["corpus"] != held],
                       [r for r in rows if r["corpus"] == held and r["split"] == REPORTED], names)
            for held in corpora}


def markdown(folds: dict[str, dict], names: tuple[str, ...]) -> str:
    def num(v):
        return "n/a" if v is None else f"{v:.3f}"
    lines = [f"features: {', '.join(names)}", "",
             "| held out | n states (questions) | base rate | AUROC | ECE | boosted AUROC | boosted ECE | trained on |",
             "|---|---|---|---|---|---|---|---|"]
    lines += [f"| {c} | {f['n']} ({f['questions']}) | {f['base_rate']:.3f} | {num(f['auroc'])} | {num(f['ece'])} | "
              f"{num(f['boosted_auroc'])} | {num(f['boosted_ece'])} | {f['train_n']} |" for c, f in folds.items()]
    lines += ["", "| held out | questions | sufficient at the first retrieval | made sufficient by an expansion | "
              "made insufficient again | P >= 0.5 at the first (of them sufficient) |", "|---|---|---|---|---|---|"]
    lines += [f"| {c} | {f['questions']} | {f['first_sufficient']} | {f['gained']} | {f['lost']} | "
              f"{f['sure_first']} ({f['sure_first_sufficient']}) |" for c, f in folds.items()]
    return "\n".join(lines)


def main() -> None:
    args = _parser().parse_args()
    names = tuple(args.features.split(",")) if args.features else FEATURES
    rows = [row for path in args.tables for row in read_table(path)]
    folds = leave_one_out(rows, names)
    out = args.out or Settings().data_dir / "runs" / time.strftime("loco-%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    text = markdown(folds, names)
    (out / "loco.md").write_text(text + "\n", encoding="utf-8")
    (out / "loco.json").write_text(json.dumps({"features": names, "folds": folds}, indent=1) + "\n", encoding="utf-8")
    print(f"{text}\n\nwritten to {out}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="+", type=Path, help="one states table per corpus")
    parser.add_argument("--features", help=f"comma-separated (default: {','.join(FEATURES)})")
    parser.add_argument("--out", type=Path, help="the run folder (default <data dir>/runs/loco-<time>)")
    return parser


if __name__ == "__main__":
    main()
