"""The composite score, its latency term, its feedback, and the optimizer-facing metric."""

import dspy
import pytest

from metrics.composite import (
    CompositeMetric,
    CompositeWeights,
    latency_score,
    score_example,
)
from metrics.cost import dollars
from tests.metrics.conftest import example, prediction

GOOD = prediction("Chief of Protocol [1].", citations=[(1, "Shirley Temple", "Shirley Temple was Chief of Protocol.")],
                  evidence_titles=["Shirley Temple", "Kiss and Tell"], seconds=30)


def always(claim, passages):
    return True


def test_a_perfect_fast_answer_scores_one_with_no_complaint():
    card = score_example(example(), GOOD, always)
    assert card.composite == pytest.approx(1.0)
    assert card.feedback.startswith("Correct")
    assert (card.lm_calls, card.web_searches, card.prompt_tokens) == (3, 1, 1000)


def test_latency_score_halves_at_twice_the_budget():
    assert latency_score(30, 60) == 1.0 and latency_score(120, 60) == 0.5


def test_feedback_names_the_missed_evidence_the_wrong_answer_and_the_delay():
    slow = prediction("Ambassador [1].", citations=[(1, "Other", "unrelated")], evidence_titles=["Other"], seconds=300)
    card = score_example(example(), slow, lambda c, p: False, CompositeWeights(latency_budget_s=60))
    assert "Missed gold evidence: Shirley Temple, Kiss and Tell." in card.feedback
    assert "The answer 'Ambassador.' does not match" in card.feedback and "Too slow: 300 s" in card.feedback
    assert "Unsupported by its citations" in card.feedback
    # weights .35 f1 + .25 ev + .2 cite rec + .1 cite prec + .1 latency(60/300=.2) over 1.0
    assert card.composite == pytest.approx(0.1 * 0.2)


def test_metric_returns_float_bool_or_feedback_as_each_optimizer_expects():
    metric = CompositeMetric(judge=always)
    assert metric(example(), GOOD) == pytest.approx(1.0)
    assert metric(example(), GOOD, trace=[]) is True
    gepa = metric(example(), GOOD, None, "judge", None)
    assert isinstance(gepa, dspy.Prediction) and gepa.score == pytest.approx(1.0) and gepa.feedback


def test_a_prediction_without_result_scores_zero_instead_of_crashing():
    card = score_example(example(), dspy.Prediction(answer=""), always)
    assert card.composite == pytest.approx(0.0) and card.lm_calls == 0


def test_dollars_known_local_and_unknown():
    assert dollars("gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert dollars("llamacpp/qwen2.5-coder-0.5b", 10**6, 10**6) == 0.0
    assert dollars("someone/unpriced-model-x", 1, 1) is None


def test_an_abstention_is_recorded_and_earns_no_f1_and_no_latency_credit():
    pred = prediction("The evidence does not say.", evidence_titles=["Shirley Temple"], seconds=5, abstained=True)
    card = score_example(example(), pred, always)
    assert card.abstained is True and card.f1 == 0.0 and card.latency_score == 0.0
    assert "The program abstained, but the gold answer is 'Chief of Protocol'." in card.feedback
    assert score_example(example(), GOOD, always).abstained is False


def test_an_unanswerable_question_scores_the_abstention_without_evidence_or_citations():
    abstains = prediction("I could not find the answer.", abstained=True, seconds=30)
    card = score_example(example(answerable=False), abstains, always)
    assert (card.f1, card.evidence_recall, card.citation_recall, card.gold_citation_precision) == (1.0, None, None, None)
    assert card.composite == pytest.approx(1.0)  # f1 and latency, the only parts that apply
    answers = score_example(example(answerable=False), GOOD, always)
    assert answers.f1 == 0.0 and answers.composite == 0.0 and "instead of abstaining" in answers.feedback


def test_without_gold_sources_evidence_recall_is_left_out_of_the_composite():
    card = score_example(example(gold=[]), GOOD, always)
    assert card.evidence_recall is None and card.composite == pytest.approx(1.0)
