"""Compare two eval runs: per-system metric deltas (B - A) with paired 95% CIs, and the flipped examples.

Pairs are the questions both runs hold for a system; a delta is averaged per question, so
the interval reflects how consistently B differs from A, not the spread of the questions.
A flip is a question whose exact match or composite pass (>= `PASS`) changed. Prints an
aligned plain-text table and renders compare.md; it does not run anything.
"""

from __future__ import annotations

from pydantic import BaseModel

from optimize.eval.document import Block, Heading, Table, Text, to_text
from optimize.eval.records import Record, paired_scores
from optimize.eval.stats import Estimate, paired_delta_ci
from optimize.eval.summary import METRICS, digits, label

PASS = 0.5  # composite at or above which a question counts as passed
DELTA_HEADERS = ["metric", "A", "B", "B-A", "95% CI", ""]


class MetricDelta(BaseModel):
    metric: str
    a: float
    b: float
    delta: Estimate


class Flip(BaseModel):
    qid: str
    question: str
    gold: str
    answer_a: str
    answer_b: str
    change: str


class SystemComparison(BaseModel):
    system: str
    n: int
    deltas: list[MetricDelta]
    flips: list[Flip]


class Comparison(BaseModel):
    run_a: str
    run_b: str
    systems: list[SystemComparison]


def compare_runs(run_a: str, a: list[Record], run_b: str, b: list[Record]) -> Comparison:
    systems = [s for s in dict.fromkeys(r.system for r in a) if any(r.system == s for r in b)]
    return Comparison(run_a=run_a, run_b=run_b, systems=[_system(s, a, b) for s in systems])


def _system(system: str, a: list[Record], b: list[Record]) -> SystemComparison:
    by_a = {r.qid: r for r in a if r.system == system}
    pairs = [(by_a[r.qid], r) for r in b if r.system == system and r.qid in by_a]
    deltas = [_delta(m, [x for x, _ in pairs], [y for _, y in pairs]) for m in METRICS]
    flips = [f for x, y in pairs if (f := _flip(x, y))]
    return SystemComparison(system=system, n=len(pairs), deltas=deltas, flips=flips)


def _delta(metric: str, a: list[Record], b: list[Record]) -> MetricDelta:
    xs, ys = paired_scores(metric, zip(a, b))
    delta = paired_delta_ci(xs, ys)
    return MetricDelta(metric=metric, a=sum(xs) / max(len(xs), 1), b=sum(ys) / max(len(ys), 1), delta=delta)


def _flip(a: Record, b: Record) -> Flip | None:
    changes = []
    if bool(a.scores.exact_match) != bool(b.scores.exact_match):
        changes.append(f"EM {int(bool(a.scores.exact_match))}->{int(bool(b.scores.exact_match))}")
    if (a.scores.composite >= PASS) != (b.scores.composite >= PASS):
        changes.append(f"composite {a.scores.composite:.2f}->{b.scores.composite:.2f}")
    if not changes:
        return None
    return Flip(qid=a.qid, question=a.question, gold=a.gold, answer_a=a.answer, answer_b=b.answer, change="; ".join(changes))


def delta_rows(system: SystemComparison) -> list[list[str]]:
    return [_delta_row(d, digits(d.metric)) for d in system.deltas]


def _delta_row(d: MetricDelta, k: int) -> list[str]:
    return [label(d.metric), f"{d.a:.{k}f}", f"{d.b:.{k}f}", f"{d.delta.mean:+.{k}f}",
            f"[{d.delta.low:+.{k}f}, {d.delta.high:+.{k}f}]", _verdict(d.delta)]


def text_table(comparison: Comparison) -> str:
    """Aligned plain text, one block per system, for the terminal."""
    out = [f"B = {comparison.run_b}  vs  A = {comparison.run_a}"]
    for system in comparison.systems:
        out += ["", f"{system.system} ({system.n} shared questions, {len(system.flips)} flipped)",
                to_text(Table(DELTA_HEADERS, delta_rows(system)))]
    return "\n".join(out)


def comparison_blocks(comparison: Comparison) -> list[Block]:
    blocks: list[Block] = [Heading(f"Compare {comparison.run_b} (B) with {comparison.run_a} (A)", 1),
                           Text("Deltas are B - A over the questions both runs hold, with paired bootstrap 95% CIs; "
                                "'up'/'down' when the interval excludes 0.")]
    for system in comparison.systems:
        blocks += [Heading(f"{system.system}: {system.n} shared questions"),
                   Table(DELTA_HEADERS, delta_rows(system)),
                   Heading(f"{system.system}: {len(system.flips)} flipped", 3),
                   Table(["qid", "change", "question", "gold", "answer A", "answer B"],
                         [[f.qid, f.change, f.question, f.gold, f.answer_a, f.answer_b] for f in system.flips])]
    return blocks


def _verdict(delta: Estimate) -> str:
    return {1: "up", -1: "down", 0: ""}[delta.direction]
