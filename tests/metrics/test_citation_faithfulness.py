"""ALCE citation recall and precision with a scripted judge, including over-citation."""

import pytest

from metrics.citation_faithfulness import citation_recall, claims, score_citations
from program.contract.result import Citation
from tests.metrics.conftest import example, prediction


def judge_from(supports: dict[str, set[frozenset[str]]]):
    """A judge that says supported when the joined passages' set is listed for the claim."""
    return lambda claim, passages: frozenset(passages) in supports.get(claim, set())


def cites(*quotes):
    return [Citation(n=i + 1, chunk_id=str(i), source="index", title=q, quote=q) for i, q in enumerate(quotes)]


def test_claims_skip_admissions_and_keep_markers():
    answer = "Shirley Temple [1]. She was a diplomat [2]. I could not find the year."
    assert claims(answer) == ["Shirley Temple [1].", "She was a diplomat [2]."]


def test_recall_counts_supported_claims_and_uncited_ones_fail():
    judge = judge_from({"A is B.": {frozenset({"p1"})}})
    scores = score_citations("A is B [1]. C is D.", cites("p1"), judge)
    assert (scores.claims, scores.supported_claims, scores.recall) == (2, 1, 0.5)
    assert scores.unsupported == ["C is D."]
    assert (scores.citations, scores.precision) == (1, 1.0)


def test_an_over_citation_is_imprecise_but_a_needed_one_is_not():
    # p1 alone supports; p2 alone does not, and without p2 the claim stays supported -> p2 over-cites
    judge = judge_from({"A is B.": {frozenset({"p1", "p2"}), frozenset({"p1"})}})
    scores = score_citations("A is B [1][2].", cites("p1", "p2"), judge)
    assert (scores.citations, scores.precise_citations, scores.precision) == (2, 1, 0.5)


def test_two_citations_needed_together_are_both_precise():
    judge = judge_from({"A is B.": {frozenset({"p1", "p2"})}})
    assert score_citations("A is B [1][2].", cites("p1", "p2"), judge).precision == 1.0


def test_an_unsupported_sentence_earns_its_citations_nothing():
    scores = score_citations("A is B [1][2].", cites("p1", "p2"), judge_from({}))
    assert (scores.recall, scores.precision, scores.citations) == (0.0, 0.0, 2)


def test_metric_function_uses_the_result_and_a_default_lexical_judge():
    pred = prediction("Shirley Temple was Chief of Protocol [1].",
                      citations=[(1, "Shirley Temple", "Shirley Temple served as Chief of Protocol.")])
    assert citation_recall(example(), pred) == pytest.approx(1.0)
