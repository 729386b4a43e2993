"""Leave one corpus out, end to end: does an acceptance model fitted on three corpora release the fourth's answers well?

    python bench/loco_release.py CORPUS=RUN... [--cost 1 | --max-wrong-rate A] [--out FOLDER]

Each RUN is an eval run folder (`python -m optimize eval ... --systems gated,learned,single_pass`) of
one corpus. For each corpus in turn, the acceptance model (`optimize.judges.acceptance_fit`) is fitted
on the `learned` answers of the other corpora and applied to this one's: the learned release gives an
answer when P(right) > cost / (1 + cost), or with `--max-wrong-rate` when P(right) reaches the threshold
conformal risk control picks on the other corpora's answers, and withholds it otherwise
(`program.gate.decide_release`). The release needs no LM and comes last in the loop, so applying it to
the recorded answers is what the learned gate would have returned (`optimize.judges.release_replay`).
Per held-out corpus it writes the model's AUROC and ECE on the drafts, and right, wrong and abstained
for single pass, the rule gate and the learned gate, with net right (+1, -1, 0), its paired 95% interval
against single pass, p50 seconds and LM calls a question, the wrong rate among the learned gate's
answers, and the bars it is held to; then, per corpus, the thresholds at which the answers would meet
the bars on right, wrong and the rule gate's net right, if any. A HotpotQA run (its config's dataset
`hotpotqa`) counts only its questions outside the smoke set, the quick job's report split. Writes
`loco_release.md` and `.json` to a run folder (default `<data dir>/runs/loco-release-<time>`). No LM is
called.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's packages, not an installed copy

from metrics.calibration import auroc, expected_calibration_error  # noqa: E402
from optimize.eval.hotpotqa import outside_smoke as _outside_smoke  # noqa: E402
from optimize.eval.records import Record, RecordLog  # noqa: E402
from optimize.eval.stats import paired_delta_ci, percentile  # noqa: E402
from optimize.judges.acceptance_fit import draft_label, fit_acceptance, rows  # noqa: E402
from optimize.judges.release_replay import given_at, gives, p_right, released  # noqa: E402
from program.judges.acceptance import AcceptanceModel  # noqa: E402
from program.base.settings import Settings  # noqa: E402
from program.thresholds import Thresholds  # noqa: E402

SYSTEMS = ("single_pass", "gated", "learned")


def fold(train: list[Record], test: dict[str, list[Record]], t: Thresholds, max_wrong_rate: float | None) -> dict:
    model = fit_acceptance(rows(train), "the other corpora", max_wrong_rate)
    held = rows(test["learned"])
    given = [gives(r, model, t) for r in test["learned"]]
    scored, rights = [model.probability(checks) for checks, _ in held], [right for _, right in held]
    nets = {"single_pass": _nets(test["single_pass"]), "gated": _nets(test["gated"]),
            "learned": [released(r, g) for r, g in zip(test["learned"], given)]}
    out = {"answers": len(held), "right_answers": sum(rights), "auroc": auroc(scored, rights),
           "ece": expected_calibration_error(scored, rights), "systems": {}}
    for name in SYSTEMS:
        records = test[name]
        out["systems"][name] = _counts(nets[name]) | {
                                "p50_s": percentile([r.seconds for r in records], 50),
                                "lm_calls": sum(r.result.trace.resources.lm.calls for r in records if r.result)
                                / len(records)}
    ci = paired_delta_ci(nets["single_pass"], nets["learned"])
    out["learned_vs_single_pass"] = {"net_right_delta": ci.mean, "low": ci.low, "high": ci.high}
    answered = [net for net, g in zip(nets["learned"], given) if g]
    out["threshold"] = model.threshold
    out["wrong_rate_answered"] = answered.count(-1.0) / len(answered) if answered else None
    out["any_threshold"] = any_threshold(test, model, t, out["systems"])
    return out


def any_threshold(test: dict[str, list[Record]], model: AcceptanceModel, t: Thresholds, systems: dict) -> dict:
    """What a release could give at any threshold on this model's ranking: the right drafts (the most any
    release gives) and the span of thresholds at which it meets the bars on its answers (right, wrong,
    the rule gate's net right). It tells a ranking that cannot meet them from a threshold that did not
    transfer from the other corpora."""
    learned = test["learned"]
    scored = [p_right(r, model) for r in learned]

    def meets(threshold: float) -> bool:
        counts = _counts([released(r, given_at(r, p, t, threshold)) for r, p in zip(learned, scored)])
        return all(answer_bars(counts, systems["single_pass"], systems["gated"], len(learned)).values())

    meeting = [p for p in sorted({p for p in scored if p is not None}) if meets(p)]
    return {"right_drafts": sum(1 for r in learned if draft_label(r)),
            "meeting": [meeting[0], meeting[-1]] if meeting else None}


def _nets(records: list[Record]) -> list[float]:
    return [r.scores.net_right or 0.0 for r in records]


def _counts(nets: list[float]) -> dict:
    return {"right": nets.count(1.0), "wrong": nets.count(-1.0), "abstained": nets.count(0.0),
            "net_right": sum(nets) / len(nets)}


def outside_smoke(folder: Path) -> list[Record]:
    """The run's records; a HotpotQA run's without its smoke questions, the quick job's report split."""
    dataset = json.loads((folder / "config.json").read_text(encoding="utf-8")).get("dataset")
    return _outside_smoke(RecordLog(folder / "results.jsonl").read(), dataset, Settings())


def paired(records: list[Record]) -> dict[str, list[Record]]:
    """Each system's records over the questions every system answered, in one order."""
    by = {name: {r.qid: r for r in records if r.system == name} for name in SYSTEMS}
    shared = sorted(set.intersection(*(set(found) for found in by.values())))
    return {name: [by[name][q] for q in shared] for name in SYSTEMS}


def answer_bars(learned: dict, sp: dict, rules: dict, questions: int) -> dict[str, bool]:
    """The bars on what the learned gate answers, from each system's counts."""
    return {"right >= single pass's (one fewer per 40)": learned["right"] >= sp["right"] - max(1, questions // 40),
            "wrong <= 70% of single pass's": learned["wrong"] <= 0.7 * sp["wrong"],
            "net right >= the rule gate's": learned["net_right"] >= rules["net_right"]}


def bars(f: dict, questions: int) -> dict[str, bool]:
    s = f["systems"]
    sp, learned = s["single_pass"], s["learned"]
    return answer_bars(learned, sp, s["gated"], questions) | {
            "net right interval vs single pass above 0": f["learned_vs_single_pass"]["low"] > 0,
            "p50 <= 1.5x single pass's": learned["p50_s"] <= 1.5 * sp["p50_s"],
            "<= 2 LM calls a question": learned["lm_calls"] <= 2.0}


def markdown(folds: dict[str, dict], cost: float, max_wrong_rate: float | None) -> str:
    def num(v):
        return "n/a" if v is None else f"{v:.3f}"
    rule = (f"P(right) at least the threshold that bounds the wrong rate among answers at {max_wrong_rate:g}"
            if max_wrong_rate is not None else f"P(right) > {cost:g} / (1 + {cost:g})")
    lines = [f"release: answer when {rule}; the model fitted on the other corpora. A withheld answer to an "
             "unanswerable question is a right abstention.", "",
             "| held out | questions | answers (right) | AUROC | ECE | threshold | wrong / answered | system | right "
             "| wrong | abstained | net right | p50 s | LM calls |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for corpus, f in folds.items():
        for i, name in enumerate(SYSTEMS):
            s = f["systems"][name]
            head = (f"| {corpus} | {f['questions']} | {f['answers']} ({f['right_answers']}) | {num(f['auroc'])} | "
                    f"{num(f['ece'])} | {num(f['threshold'])} | {num(f['wrong_rate_answered'])} "
                    if i == 0 else "| | | | | | | ")
            lines.append(f"{head}| {name} | {s['right']} | {s['wrong']} | {s['abstained']} | {s['net_right']:+.3f} | "
                         f"{s['p50_s']:.1f} | {s['lm_calls']:.2f} |")
    lines += ["", "| held out | learned - single pass, net right [95%] | " + " | ".join(bars(next(iter(folds.values())), 40))
              + " |", "|---|---|" + "---|" * 6]
    for corpus, f in folds.items():
        d = f["learned_vs_single_pass"]
        met = " | ".join("met" if ok else "missed" for ok in bars(f, f["questions"]).values())
        lines.append(f"| {corpus} | {d['net_right_delta']:+.3f} [{d['low']:+.3f}, {d['high']:+.3f}] | {met} |")
    return "\n".join(lines + ["", *any_threshold_table(folds, cost)])


def any_threshold_table(folds: dict[str, dict], cost: float) -> list[str]:
    lines = ["At any threshold on the same model's P(right): the right drafts are the most right answers a release can give (right abstentions aside); the "
             "thresholds are the lowest and highest at which the learned gate's answers meet the first three bars.", "",
             "| held out | single pass right | right drafts | thresholds meeting the answer bars | threshold used |",
             "|---|---|---|---|---|"]
    for corpus, f in folds.items():
        a, used = f["any_threshold"], f["threshold"]
        span = "none" if a["meeting"] is None else f"{a['meeting'][0]:.3f} to {a['meeting'][1]:.3f}"
        lines.append(f"| {corpus} | {f['systems']['single_pass']['right']} | {a['right_drafts']} | {span} | "
                     f"{f'> {cost / (1 + cost):.3f}, by cost' if used is None else f'{used:.3f}'} |")
    return lines


def main() -> None:
    args = _parser().parse_args()
    runs = dict(item.split("=", 1) for item in args.runs)
    records = {corpus: paired(outside_smoke(Path(folder))) for corpus, folder in runs.items()}
    t = Thresholds(release="learned", wrong_answer_cost=args.cost)
    folds = {}
    for held in records:
        train = [r for corpus, found in records.items() if corpus != held for r in found["learned"]]
        folds[held] = fold(train, records[held], t, args.max_wrong_rate) | {"questions": len(records[held]["learned"])}
    out = args.out or Settings().data_dir / "runs" / time.strftime("loco-release-%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    text = markdown(folds, args.cost, args.max_wrong_rate)
    (out / "loco_release.md").write_text(text + "\n", encoding="utf-8")
    (out / "loco_release.json").write_text(json.dumps({"cost": args.cost, "max_wrong_rate": args.max_wrong_rate, "runs": runs, "folds": folds}, indent=1)
                                           + "\n", encoding="utf-8")
    print(f"{text}\n\nwritten to {out}")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", metavar="CORPUS=RUN", help="one eval run folder per corpus")
    parser.add_argument("--cost", type=float, default=1.0, help="a wrong answer's cost against a right one's 1")
    parser.add_argument("--max-wrong-rate", type=float, metavar="A",
                        help="answer at the conformal threshold that bounds the wrong rate among answers at A, picked "
                             "on the other corpora's answers, instead of by --cost")
    parser.add_argument("--out", type=Path, help="the run folder (default <data dir>/runs/loco-release-<time>)")
    return parser


if __name__ == "__main__":
    main()
