"""Several eval runs side by side, one row per corpus and system: the table every gate change is read from.

A rule or threshold earns its place only if it helps on every labelled corpus at hand, so a gate
change is run on each (HotpotQA, MuSiQue, ClapNQ, the AWS documentation, a user's own) and read
here in one table: answer quality (and its paired difference from single pass in the same run),
evidence recall beside answer in evidence (on the evidence as shown), abstention apart on answerable
and on unanswerable questions, right / wrong / abstained and net right (with its paired difference
from single pass), AURC, the confidence's AUROC and ECE, LM calls, prompt tokens, each system's p50
against single pass's in the same run, and right answers a minute. A run summarized before a
column's metric was kept shows a dash there. Reads each run's summary.json; runs nothing.
"""

from __future__ import annotations

from pathlib import Path

from optimize.eval.against_baseline import BASELINE
from optimize.eval.document import Block, Heading, Table, Text, number
from optimize.eval.summary import RunSummary, Share, SystemSummary

HEADERS = ["corpus", "split", "system", "n", "F1", "F1 - single pass", "EM", "evidence recall", "answer in evidence",
           "abstained (answerable)", "abstained (unanswerable)", "right / wrong / abstained", "net right",
           "net right - single pass", "AURC", "AUROC", "ECE", "LM calls/q", "prompt tok/q", "p50 s", "p50 / single pass",
           "right / min"]


def read_summary(folder: Path) -> RunSummary:
    return RunSummary.model_validate_json((folder / "summary.json").read_text(encoding="utf-8"))


def corpora_table(summaries: list[RunSummary]) -> Table:
    rows = [_row(s, system) for s in summaries for system in s.systems]
    return Table(HEADERS, rows)


def corpora_blocks(summaries: list[RunSummary]) -> list[Block]:
    conditions = sorted({f"web {s.web or 'default'}" + (", gold hidden" if s.hide_gold else "") for s in summaries})
    return [Heading("The gate on every corpus", 1),
            Text(f"{len(summaries)} runs ({'; '.join(conditions)}). Each p50 ratio is against single pass in the "
                 "same run; abstention is shown apart on answerable and unanswerable questions."),
            corpora_table(summaries)]


def _row(run: RunSummary, system: SystemSummary) -> list[str]:
    m = system.metrics
    baseline = next((s for s in run.systems if s.system == BASELINE), None)
    ratio = system.latency_p50_s / baseline.latency_p50_s if baseline and baseline.latency_p50_s else None
    confidence = system.calibration
    return [_corpus(run), run.split, system.system, str(system.n), _mean(m, "f1"), _gain(run, system.system, "f1"),
            _mean(m, "exact_match"), _mean(m, "evidence_recall"), _mean(m, "answer_in_evidence"),
            _share(system.abstained_answerable), _share(system.abstained_unanswerable),
            str(system.outcomes) if system.outcomes else "–", _mean(m, "net_right"),
            _gain(run, system.system, "net_right"), number(system.risk_coverage.aurc if system.risk_coverage else None),
            number(confidence.auroc if confidence else None), number(confidence.ece if confidence else None),
            _mean(m, "lm_calls", 2), _mean(m, "prompt_tokens", 0),
            number(system.latency_p50_s, 2), number(ratio, 2) + ("×" if ratio is not None else ""),
            number(system.right_a_minute, 2)]


def _gain(run: RunSummary, system: str, metric: str) -> str:
    """The system's paired difference from single pass in the same run, with its interval."""
    against = next((a for a in run.against if a.system == system), None)
    delta = against.deltas.get(metric) if against else None
    return f"{delta.mean:+.3f} [{delta.low:+.3f}, {delta.high:+.3f}]" if delta else "–"


def _corpus(run: RunSummary) -> str:
    name = Path(run.dataset).parent.name if run.dataset.endswith((".jsonl", ".csv", ".parquet")) else run.dataset
    return name + (" (gold hidden)" if run.hide_gold else "")


def _mean(metrics: dict, name: str, digits: int = 3) -> str:
    return number(metrics[name].mean, digits) if name in metrics and metrics[name].n else "–"


def _share(share: Share) -> str:
    return f"{share.hits}/{share.n}" if share.n else "–"
