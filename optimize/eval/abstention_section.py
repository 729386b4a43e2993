"""The report's section on what each system's answers were worth: right, wrong and abstained, net
right, and the risk-coverage curve. Reads the summary; `optimize.eval.report` places the blocks."""

from __future__ import annotations

from optimize.eval import plots
from optimize.eval.document import Block, Figure, Heading, Table, Text, number
from optimize.eval.summary import SystemSummary

EXPLAINED = (
    "Right: short-answer F1 of at least 0.5; on an unanswerable question, an abstention, and any answer is wrong. "
    "Abstained: no answer given (a question given up counts here). Wrong / answered: the wrong rate among the "
    "answers given, what `fit-acceptance --max-wrong-rate` bounds. Net right: +1 right, -1 wrong, 0 abstained, "
    "averaged over the questions, with its 95% bootstrap interval. Risk-coverage: the answers given, ranked by "
    "their reported confidence; answering only those above a threshold covers a share of the questions (coverage) "
    "and is wrong on a share of those answers (risk). AURC: the mean risk over the coverages reached (0 is "
    "best; it equals the wrong rate when the confidence orders nothing); read it with the coverage.")


def abstention_blocks(systems: list[SystemSummary]) -> list[Block]:
    measured = [s for s in systems if s.outcomes is not None]
    if not measured:
        return []
    rows = [[s.system, str(s.outcomes.right), str(s.outcomes.wrong), str(s.outcomes.abstained),
             _wrong_rate(s), s.metrics["net_right"].shown(3), number(s.risk_coverage.coverage, 2),
             number(s.risk_coverage.aurc)] for s in measured]
    curves = {s.system: s.risk_coverage for s in measured}
    return [Heading("Right, wrong and abstained"), Text(EXPLAINED),
            Table(["system", "right", "wrong", "abstained", "wrong / answered", "net right / question", "coverage",
                   "AURC"], rows),
            Figure("risk_coverage.png", plots.risk_coverage_chart(curves), "risk against coverage, per system")]


def _wrong_rate(s: SystemSummary) -> str:
    """The risk at full coverage: the wrong share of every answer given (an abstention is none)."""
    return number(s.risk_coverage.points[-1][1], 2) if s.risk_coverage.points else "–"
