"""What an eval run found, per system: metric means with 95% CIs, latency, loop behaviour, slices.

`summarize(records, ...)` turns records into `RunSummary`, the pydantic model written as
summary.json, rendered by `optimize.eval.report` and logged to MLflow. Every record counts in the
means, timeouts and errors included (scored as what they returned, or as no answer); a metric
that does not apply to a question (None) is left out of its mean, whose `n` says how many
counted. The abstention rate is the mean of the `abstained` metric, and is also shown apart on
answerable and on unanswerable questions (where abstaining is correct). Web use is scored against the holdout
labels: precision is the share of web-searching questions that had a held-out gold paragraph,
recall the share of such questions that searched the web. The confidence's calibration (ECE,
AUROC, reliability bins; `metrics.calibration`) is over the records with a result. The right,
wrong and abstained counts and the risk-coverage curve are `optimize.eval.abstention`'s. Each
system is also set against single pass in the same run (`optimize.eval.against_baseline`). This
module does not plot or write files.
"""

from __future__ import annotations

from collections import Counter
from typing import get_args

from pydantic import BaseModel, computed_field

from metrics import RiskCoverage, Scorecard
from metrics.calibration import Calibration, confidence_calibration
from optimize.eval.abstention import Outcomes, count_outcomes, records_risk_coverage
from optimize.eval.against_baseline import Against, against_baseline, right_a_minute
from optimize.eval.records import Record, Recovery, outcomes, score_of
from optimize.eval.stats import Estimate, mean_ci, percentile

NUMERIC = (int, float, bool)


def _numeric(annotation) -> bool:
    """int, float or bool, or one of them or None (a metric that may not apply)."""
    kinds = set(get_args(annotation)) - {type(None)}
    return annotation in NUMERIC or bool(kinds) and kinds <= set(NUMERIC)


# subtle: draft_right is the acceptance refit's label (withheld drafts included), not a score of what was given
METRICS = tuple(name for name, field in Scorecard.model_fields.items()
                if _numeric(field.annotation) and name != "draft_right")
# the quality metrics shown per slice; the cost ones (tokens, calls, dollars) only overall
MAIN = tuple(m for m in ("composite", "exact_match", "f1", "evidence_recall", "answer_in_evidence", "citation_recall",
                        "citation_precision") if m in METRICS)
WORST = 5
# a count or a time is shown to the decimals it is read at: "978 [829, 1121]" prompt tokens, not "978.000 [828.896, ...]"
_DIGITS = {"prompt_tokens": 0, "completion_tokens": 0, "wall_s": 1, "lm_calls": 2, "web_searches": 2, "doc_queries": 2,
           "dollars": 4}


def digits(metric: str) -> int:
    """The decimals a metric's values are shown to: rates and scores 3."""
    return _DIGITS.get(metric, 3)


# a row is named for its reader; the record's field name stays the MLflow metric's
_LABELS = {"abstained": "abstention rate", "lm_calls": "LM calls / question", "prompt_tokens": "prompt tokens / question",
           "completion_tokens": "completion tokens / question", "wall_s": "seconds / question",
           "web_searches": "web searches / question", "doc_queries": "collection queries / question",
           "dollars": "dollars / question", "priced": "share with a known price", "answer_coverage": "answer coverage",
           "gold_citation_precision": "gold-citation precision", "latency_score": "latency score",
           "net_right": "net right / question", "answer_in_evidence": "answer in evidence"}


def label(metric: str) -> str:
    """A metric's name in a table: "seconds / question" for `wall_s`; the scores keep theirs (f1, composite)."""
    return _LABELS.get(metric, metric)


class Share(BaseModel):
    """`hits` of `n` questions; the rate is None when there were none to count."""

    hits: int
    n: int

    @computed_field
    @property
    def rate(self) -> float | None:
        return self.hits / self.n if self.n else None

    def __str__(self) -> str:
        return f"{self.rate:.2f} ({self.hits}/{self.n})" if self.n else "–"


class SystemSummary(BaseModel):
    system: str
    n: int
    status: dict[str, int]
    metrics: dict[str, Estimate]
    latency_p50_s: float
    latency_p95_s: float
    actions: dict[str, int]
    iterations: dict[str, int]  # judge rounds -> examples
    ended: dict[str, int]
    rules: dict[str, int]  # gate rule -> steps it chose, over all questions
    web_precision: Share  # of the questions that searched the web, those with a held-out gold paragraph
    web_recall: Share  # of the questions with a held-out gold paragraph, those that searched the web
    abstained_answerable: Share  # of the answerable questions, those the program abstained on
    abstained_unanswerable: Share  # of the unanswerable questions, those it abstained on (correctly)
    by_holdout: dict[str, dict[str, Estimate]]
    by_type: dict[str, dict[str, Estimate]]
    worst: list[str]  # qids, lowest composite first
    calibration: Calibration | None = None  # how the reported confidence predicts right answers; None: no results
    right_a_minute: float | None = None  # right answers per minute of wall time; None in runs summarized before it
    outcomes: Outcomes | None = None  # right, wrong and abstained; None in runs scored before net right was kept
    risk_coverage: RiskCoverage | None = None  # of the answers given, ranked by confidence; None as for outcomes


class RunSummary(BaseModel):
    run_id: str
    split: str
    dataset: str
    program: str
    profile: str
    model: str
    judge: str
    web: str | None = None  # the web backend, when the run recorded it
    web_note: str = ""  # why, when a key in the environment chose it
    collection: str = ""  # the collection searched, when the run recorded it
    hide_gold: bool = False  # each question's gold paragraphs were hidden from retrieval
    recovered: Recovery | None = None  # what a resumed run found in its results log; None when it started fresh
    systems: list[SystemSummary]
    against: list[Against] = []  # each system against single pass, when the run has it


def summarize(records: list[Record], run_id: str, **about: str | bool | Recovery | None) -> RunSummary:
    systems = list(dict.fromkeys(r.system for r in records))
    return RunSummary(run_id=run_id, systems=[summarize_system([r for r in records if r.system == s]) for s in systems],
                      against=against_baseline(records), **about)


def summarize_system(records: list[Record]) -> SystemSummary:
    seconds = [r.seconds for r in records]
    traces = [r.result.trace for r in records if r.result]
    return SystemSummary(
        system=records[0].system, n=len(records), status=_counts(r.status for r in records),
        metrics=_means(records, METRICS), latency_p50_s=percentile(seconds, 50), latency_p95_s=percentile(seconds, 95),
        actions=_counts(s.action for t in traces for s in t.steps),
        iterations=_counts(str(t.resources.iterations) for t in traces), ended=_counts(t.ended for t in traces),
        rules=_counts(s.rule for t in traces for s in t.steps if s.rule),
        web_precision=_share(records, of=_searched_web, hit=_has_holdout),
        web_recall=_share(records, of=_has_holdout, hit=_searched_web),
        abstained_answerable=_share(records, of=lambda r: r.answerable, hit=lambda r: r.scores.abstained),
        abstained_unanswerable=_share(records, of=lambda r: not r.answerable, hit=lambda r: r.scores.abstained),
        by_holdout=_slices(records, lambda r: "web holdout" if _has_holdout(r) else "local only"),
        by_type=_slices(records, lambda r: r.question_type),
        worst=[r.qid for r in sorted(records, key=lambda r: r.scores.composite)[:WORST]],
        calibration=_calibration(records), right_a_minute=round(right_a_minute(records), 3),
        outcomes=count_outcomes(records), risk_coverage=records_risk_coverage(records))


def _calibration(records: list[Record]) -> Calibration | None:
    """Over the records with a result: a question given up reported no confidence."""
    results, rights = outcomes(records)
    return confidence_calibration(results, rights) if results else None


def _means(records: list[Record], names: tuple[str, ...]) -> dict[str, Estimate]:
    return {name: mean_ci([v for r in records if (v := score_of(r, name)) is not None]) for name in names}


def _slices(records: list[Record], key) -> dict[str, dict[str, Estimate]]:
    groups: dict[str, list[Record]] = {}
    for record in records:
        groups.setdefault(key(record), []).append(record)
    return {name: _means(group, MAIN) for name, group in sorted(groups.items())}


def _share(records: list[Record], of, hit) -> Share:
    counted = [r for r in records if of(r)]
    return Share(hits=sum(hit(r) for r in counted), n=len(counted))


def _searched_web(record: Record) -> bool:
    return record.result is not None and record.result.trace.resources.web_searches > 0


def _has_holdout(record: Record) -> bool:
    return bool(record.holdout_title)


def _counts(values) -> dict[str, int]:
    return dict(Counter(values).most_common())
