"""Each system against single pass in the same run: does the loop earn its cost on this corpus?

A user keeps the loop only where it gives better answers per second than retrieving once and
answering. So each other system is set against single pass over the questions both finished:
the paired difference in F1, net right, composite, evidence recall and answer in evidence with
95% intervals, the ratio of their median seconds, and right answers a minute each (right:
`metrics.calibration.is_right`, over the system's summed wall time). `worth` says in one line
what that means for this corpus.
Reads records; runs nothing.
"""

from __future__ import annotations

from pydantic import BaseModel

from optimize.eval.records import Record, paired_scores
from optimize.eval.stats import Estimate, paired_delta_ci, percentile

BASELINE = "single_pass"
# the answer, what it was worth to the user, the whole score, and what retrieval found and showed
SHOWN = ("f1", "net_right", "composite", "evidence_recall", "answer_in_evidence")
SHOWN_AS = {"f1": "F1", "net_right": "net right", "evidence_recall": "evidence recall",
            "answer_in_evidence": "answer in evidence"}


class Against(BaseModel):
    system: str
    questions: int  # finished by both
    deltas: dict[str, Estimate]  # system - single pass, per metric of SHOWN that applies to any question
    p50_ratio: float | None  # the system's median seconds over single pass's
    right_a_minute: float
    baseline_right_a_minute: float


def against_baseline(records: list[Record]) -> list[Against]:
    """Every system but single pass against it; none when the run has no single pass."""
    by_system: dict[str, dict[str, Record]] = {}
    for record in records:
        by_system.setdefault(record.system, {})[record.qid] = record
    baseline = by_system.pop(BASELINE, None)
    if not baseline:
        return []
    return [_against(name, mine, baseline) for name, mine in by_system.items() if mine.keys() & baseline.keys()]


def _against(system: str, mine: dict[str, Record], baseline: dict[str, Record]) -> Against:
    pairs = [(baseline[q], mine[q]) for q in mine if q in baseline]
    theirs, ours = [a for a, _ in pairs], [b for _, b in pairs]
    deltas = {m: delta for m in SHOWN if (delta := paired_delta_ci(*paired_scores(m, pairs))).n}
    p50_base = percentile([r.seconds for r in theirs], 50)
    return Against(system=system, questions=len(pairs), deltas=deltas,
                   p50_ratio=percentile([r.seconds for r in ours], 50) / p50_base if p50_base > 0 else None,
                   right_a_minute=right_a_minute(ours), baseline_right_a_minute=right_a_minute(theirs))


def right_a_minute(records: list[Record]) -> float:
    """Right answers per minute of the system's wall time: what a user running it gets for the wait."""
    seconds = sum(r.seconds for r in records)
    return 60.0 * sum(r.right for r in records) / seconds if seconds > 0 else 0.0


def worth(a: Against) -> str:
    """One line: the paired differences, the cost, and what they say for this corpus."""
    said = ", ".join(f"{SHOWN_AS.get(m, m)} {d.mean:+.3f} [{d.low:+.3f}, {d.high:+.3f}]" for m, d in a.deltas.items())
    ratio = f"{a.p50_ratio:.2f}× {BASELINE}'s median seconds" if a.p50_ratio is not None else "no measured time"
    rates = f"{a.right_a_minute:.2f} right answers a minute against {a.baseline_right_a_minute:.2f}"
    return f"{a.system} against {BASELINE}, paired over {a.questions} questions: {said}; {ratio}; {rates}: {_verdict(a)}."


def _verdict(a: Against) -> str:
    """Which answers better (F1's interval clear of 0), and which gives more right answers a minute."""
    ours, theirs = a.right_a_minute, a.baseline_right_a_minute
    more = a.system if ours > theirs else BASELINE if ours < theirs else None
    pace = f"{more} gives more right answers a minute" if more else "both give as many right answers a minute"
    f1 = a.deltas.get("f1")
    better = {1: a.system, -1: BASELINE, 0: None}[f1.direction] if f1 else None
    said = f"{better} answers better here; {pace}" if better else f"F1 differs within the noise; {pace}"
    # the choice the comparison is for: a baseline as good and faster is one setting away
    return f"{said} (serve it: GATEDRAG_SYSTEM={BASELINE})" if more == BASELINE and better != a.system else said
