"""Evidence recall: gold titles among the passages the answer was given."""

from metrics.evidence_recall import evidence_recall
from metrics.gold_citations import gold_citation_precision
from tests.metrics.conftest import example, prediction


def test_half_the_gold_paragraphs_used():
    pred = prediction("x", evidence_titles=["shirley  temple", "Other"])
    assert evidence_recall(example(), pred) == 0.5
    assert evidence_recall(example(), pred, trace=object()) is False


def test_gold_citation_precision_counts_citations_of_gold_titles():
    pred = prediction("x [1] [2]", citations=[(1, "Kiss and Tell", "a"), (2, "Other", "b")])
    assert gold_citation_precision(example(), pred) == 0.5
    assert gold_citation_precision(example(), prediction("no citations")) == 0.0
