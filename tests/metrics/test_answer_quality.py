"""EM, F1 and coverage on hand-computed cases, with HotpotQA's normalisation."""

import dspy
import pytest

from metrics.answer_quality import (
    abstained,
    answer_coverage,
    exact_match,
    normalize_answer,
    short_answer_text,
    token_f1,
)
from tests.metrics.conftest import example, prediction


def test_normalisation_drops_case_punctuation_and_articles():
    assert normalize_answer("The  Chief, of Protocol!") == "chief of protocol"


def test_exact_match_ignores_citation_markers():
    assert exact_match(example(), prediction("Chief of Protocol [1][2].")) == 1.0
    assert exact_match(example(), prediction("Chief of Protocol [1]"), trace=object()) is True


def test_f1_on_a_partial_answer():
    # pred "chief protocol officer" vs gold "chief of protocol": common 2 (chief, protocol),
    # precision 2/3, recall 2/3 -> F1 2/3
    assert token_f1(example(), prediction("Chief Protocol officer")) == pytest.approx(2 / 3)


@pytest.mark.parametrize("pred, gold, f1", [("yes", "no", 0.0), ("yes it is", "yes", 0.0), ("no", "no", 1.0)])
def test_yes_no_answers_score_zero_unless_identical(pred, gold, f1):
    assert token_f1(example(answer=gold), prediction(pred)) == f1


def test_coverage_credits_a_long_answer_containing_the_gold_one():
    pred = prediction("She served as Chief of Protocol of the United States [1].")
    assert answer_coverage(example(), pred) == 1.0 and exact_match(example(), pred) == 0.0
    assert answer_coverage(example(), prediction("Chief of staff")) == pytest.approx(2 / 3)  # chief, of


def test_em_and_f1_score_the_short_answer_and_coverage_the_explanation():
    pred = prediction("Shirley Temple served as Chief of Protocol of the United States [1].", short_answer="Chief of Protocol")
    assert exact_match(example(), pred) == 1.0 and token_f1(example(), pred) == 1.0
    assert answer_coverage(example(), pred) == 1.0
    wrong = prediction("She was Chief of Protocol [1].", short_answer="ambassador")
    assert exact_match(example(), wrong) == 0.0 and answer_coverage(example(), wrong) == 1.0


def test_an_abstention_scores_as_no_answer_even_when_the_explanation_holds_the_gold_one():
    pred = prediction("Chief of Protocol", abstained=True)
    assert exact_match(example(), pred) == 0.0 and token_f1(example(), pred) == 0.0
    assert short_answer_text(pred) == "" and abstained(pred) is True


def test_without_a_short_answer_the_answer_text_is_scored():
    assert short_answer_text(prediction("Chief of Protocol [1].")) == "Chief of Protocol."
    assert short_answer_text(dspy.Prediction(answer="Chief of Protocol [2]")) == "Chief of Protocol"
    assert abstained(dspy.Prediction(answer="")) is False


def test_several_gold_answers_score_the_best_one():
    gold = example(answers=["yes", "AMI supports tags"])
    assert exact_match(gold, prediction("x", short_answer="Yes")) == 1.0
    assert token_f1(gold, prediction("x", short_answer="AMI tags")) == pytest.approx(0.8)  # 2 of 2 vs 2 of 3
    assert token_f1(gold, prediction("x", short_answer="no")) == 0.0  # a wrong yes/no scores 0 against both
    assert answer_coverage(gold, prediction("AMIs support tags, yes [1].")) == 1.0


def test_an_unanswerable_question_scores_the_abstention():
    gold = example(answerable=False)
    assert gold.answers == [] and gold.answer == ""
    abstains, answers = prediction("The documents do not say.", abstained=True), prediction("Paris", short_answer="Paris")
    assert exact_match(gold, abstains) == token_f1(gold, abstains) == answer_coverage(gold, abstains) == 1.0
    assert exact_match(gold, answers) == token_f1(gold, answers) == answer_coverage(gold, answers) == 0.0
    assert token_f1(gold, abstains, trace=object()) is True
