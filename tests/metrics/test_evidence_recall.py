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


def test_paths_match_by_suffix_and_without_gold_sources_the_metrics_do_not_apply():
    pred = prediction("x [1]", citations=[(1, "Other", "a")], evidence_titles=["Other"])
    pred.result.citations[0].url = "https://docs.example.org/guide/doc_source/page.md"
    pred.evidence[0].url = "file://documents/guide/doc_source/page.md"
    gold = example(gold=["guide/doc_source/page.md", "guide/doc_source/other.md"])
    assert evidence_recall(gold, pred) == 0.5 and gold_citation_precision(gold, pred) == 1.0
    assert evidence_recall(example(gold=[]), pred) is None and gold_citation_precision(example(gold=[]), pred) is None


def test_evidence_recall_does_not_apply_to_an_unanswerable_question():
    pred = prediction("x", evidence_titles=["Shirley Temple"])
    assert evidence_recall(example(answerable=False), pred) is None
