"""Calibrate the support judges against WiCE: `python -m metrics.calibrate [--judge lexical|lm|all]`.

WiCE labels real Wikipedia claims against the article they cite as supported, partially
supported or not supported. Each claim's passage is what a correct citation would quote:
its annotated supporting sentences, or, when it has none (not supported), the five article
sentences sharing most words with it, which are hard negatives. The judge's agreement and
balanced accuracy are reported on supported vs not supported; partially supported claims
(a strict judge should say "not supported") are reported apart. Reads WiCE dev; tunes nothing
unless `--sweep` prints the lexical judge's accuracy across thresholds.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic import BaseModel
from tqdm import tqdm

from metrics.support_judge import LexicalSupportJudge, build_support_judge
from program.base.settings import Settings
from program.evidence import terms
from program.lm.lm_profiles import configure_lm

WICE_DEV = "wice/data_entailment_retrieval_claim_dev.jsonl"
NEGATIVE_SENTENCES = 5


class Claim(BaseModel):
    claim: str
    passages: list[str]
    label: str


class Calibration(BaseModel):
    judge: str
    n: int
    agreement: float  # accuracy on supported vs not_supported
    balanced_accuracy: float
    partial_judged_supported: float
    partial_n: int


def load_claims(path: Path, limit: int | None = None) -> list[Claim]:
    if not path.is_file():
        raise FileNotFoundError(f"WiCE data not found at {path}")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [_claim(row) for row in rows[:limit]]


def _claim(row: dict) -> Claim:
    evidence = row["evidence"]
    first = sorted(set(row["supporting_sentences"][0]) & set(range(len(evidence)))) if row["supporting_sentences"] else []
    if not first:
        wanted = terms(row["claim"])
        first = sorted(sorted(range(len(evidence)), key=lambda i: -len(terms(evidence[i]) & wanted))[:NEGATIVE_SENTENCES])
    return Claim(claim=row["claim"], passages=[" ".join(evidence[i] for i in first)], label=row["label"])


def calibrate(judge, claims: list[Claim], name: str, progress: bool = True) -> Calibration:
    verdicts = [(c.label, bool(judge(c.claim, c.passages))) for c in tqdm(claims, desc=name, disable=not progress)]
    pos = [v for label, v in verdicts if label == "supported"]
    neg = [not v for label, v in verdicts if label == "not_supported"]
    partial = [v for label, v in verdicts if label == "partially_supported"]
    rate = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return Calibration(judge=name, n=len(pos) + len(neg), agreement=rate(pos + neg),
                       balanced_accuracy=(rate(pos) + rate(neg)) / 2, partial_judged_supported=rate(partial),
                       partial_n=len(partial))


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    claims = load_claims(Settings().shared_data / WICE_DEV, args.limit)
    if args.sweep:
        _sweep(claims)
    for name in (["lexical", "lm"] if args.judge == "all" else [args.judge]):
        print(_line(_run(name, claims, args.local_model)))
    return 0


def _run(name: str, claims: list[Claim], local_model: str | None) -> Calibration:
    if name == "lexical":
        return calibrate(build_support_judge("lexical"), claims, name)
    settings = Settings(**({"local_model": local_model} if local_model else {}))
    with configure_lm(settings, announce=False) as handle:
        return calibrate(build_support_judge("lm", handle.lm), claims, f"lm ({handle.description.split(' (')[0]})")


def _sweep(claims: list[Claim]) -> None:
    for threshold in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        print(_line(calibrate(LexicalSupportJudge(threshold), claims, f"lexical@{threshold}", progress=False)))


def _line(c: Calibration) -> str:
    return (f"{c.judge}: n={c.n} agreement={c.agreement:.3f} balanced_accuracy={c.balanced_accuracy:.3f} "
            f"partially_supported judged supported={c.partial_judged_supported:.3f} (n={c.partial_n})")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m metrics.calibrate", description=__doc__.splitlines()[0])
    parser.add_argument("--judge", choices=["lexical", "lm", "all"], default="all")
    parser.add_argument("--limit", type=int, help="the first N WiCE dev claims")
    parser.add_argument("--local-model", choices=["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"])
    parser.add_argument("--sweep", action="store_true", help="lexical judge accuracy across thresholds")
    return parser


if __name__ == "__main__":
    raise SystemExit(main())
