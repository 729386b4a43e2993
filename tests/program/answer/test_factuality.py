"""program/answer/factuality.py: planted contradictions (numbers, dates, negation), unsupported sentences and
names, hedging against the evidence's strength, and the embedding side of support."""

import pytest

from program.answer.factuality import (
    check_factuality,
    contradiction,
    lexical_support,
    miscalibration,
)

KISS = "Kiss and Tell. Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer, directed by Richard Wallace."
TEMPLE = ("Shirley Temple. Shirley Temple was an American actress. She was born on April 23, 1928. "
          "She served as Chief of Protocol of the United States.")
PASSAGES = {1: KISS, 2: TEMPLE}
QUESTION = "Which office did the star of Kiss and Tell hold?"


def fact(answer, passages=PASSAGES, shown=(1, 2), embed=None):
    return check_factuality(answer, QUESTION, passages, list(shown), embed)


def test_an_answer_its_passages_state_is_supported_with_nothing_to_report():
    f = fact("Kiss and Tell is a 1945 film starring Shirley Temple [1]. She served as Chief of Protocol of the United "
             "States [2].")
    assert f.claims == 2 and f.score == f.support == 1.0
    assert f.contradictions == [] and f.unsupported == [] and f.miscalibrated == ""


def test_a_year_its_passage_states_otherwise_is_a_contradiction():
    f = fact("Kiss and Tell is a 1946 film starring Shirley Temple [1].")
    assert f.contradictions == ["it says 1946 where [1] says 1945"] and f.score == 0.0


def test_a_day_and_a_month_of_a_date_are_checked_too():
    assert fact("She was born on April 25, 1928 [2].").contradictions == ["it says 25 where [2] says 23"]
    assert fact("She was born on May 23, 1928 [2].").contradictions == ["it says may where [2] says april"]


def test_a_number_of_another_kind_is_unsupported_but_no_contradiction():
    f = fact("Kiss and Tell had 3 sequels [1].")  # [1] states a year, not a count
    assert f.contradictions == [] and f.support == 0.0  # a number its passage lacks: no lexical support


def test_a_negation_its_closest_passage_sentence_lacks_is_a_contradiction():
    f = fact("Shirley Temple was not an American actress [2].")
    assert len(f.contradictions) == 1 and f.contradictions[0].startswith("it denies what [2] states")
    assert f.score == 0.0


def test_an_affirmation_of_what_the_passage_denies_is_a_contradiction():
    denied = {1: "Ed Wood. Ed Wood never won an Academy Award for his films."}
    assert contradiction("Ed Wood won an Academy Award for his films", [denied[1]], [1]).startswith("it affirms")


def test_a_negation_over_other_words_is_not_read_as_a_contradiction():
    assert fact("Shirley Temple did not direct Kiss and Tell; Richard Wallace did [1].").contradictions == []


def test_negations_are_compared_clause_by_clause():
    tank = {1: "Tank House. Although the stone craftsmanship is similar to the work of stonemason H. T. Pugh, the "
               "builder of the house has not been determined."}
    similar = "The stone craftsmanship is similar to the work of stonemason H. T. Pugh [1]."
    assert check_factuality(similar, "Who built it?", tank, [1]).contradictions == []
    built = "Although the craftsmanship is similar, the builder of the house has been determined [1]."
    assert check_factuality(built, "Who built it?", tank, [1]).contradictions[0].startswith("it affirms")


def test_an_unsupported_sentence_scores_low():
    f = fact("Shirley Temple starred in Kiss and Tell [1]. The film won four awards at Cannes [1].")
    assert f.claims == 2 and f.support < 0.6 and f.contradictions == []


def test_a_name_no_cited_passage_mentions_is_reported_and_halves_its_claim():
    f = fact("Corliss Archer was played by Judy Garland [1].")
    assert f.unsupported == ["'Judy Garland' is in no passage it cites"] and f.support <= 0.5


def test_a_claim_without_a_citation_is_read_against_every_shown_passage():
    assert fact("Shirley Temple served as Chief of Protocol of the United States.").support == 1.0
    assert fact("Shirley Temple served as Chief of Protocol of the United States.", shown=(1,)).support < 1.0


def test_an_admission_has_no_claim_and_nothing_to_contradict():
    f = fact("I could not find the answer in the evidence.")
    assert f.claims == 0 and f.score == 1.0


def test_overconfident_wording_over_weak_support_costs_a_share_of_the_score():
    f = fact("It is definitely true that the film won four awards at Cannes [1].")
    assert f.miscalibrated.startswith("'definitely' over weak support") and 0 < f.score == pytest.approx(0.8 * f.support, abs=1e-3)
    assert miscalibration("Temple definitely served as Chief of Protocol [2].", support=1.0) == ""


def test_heavy_hedging_over_strong_support_is_miscalibrated():
    assert miscalibration("She might possibly have served as Chief of Protocol [2].", support=1.0).startswith("heavy hedging")
    assert miscalibration("She was born in May 1928 and might have acted [2].", support=1.0) == ""  # May is a month


def test_a_value_another_shown_passage_states_is_a_wrong_citation_not_a_contradiction():
    passages = {1: "VCU Rams. The 2011-12 team played in 2011.", 2: "VCU. The university was founded in 1838."}
    f = check_factuality("VCU was founded in 1838 [1].", "When was VCU founded?", passages, [1, 2])
    assert f.contradictions == [] and f.support == 0.0  # [1] lacks the year: no support, but no conflict
    assert check_factuality("VCU was founded in 1838 [1].", "?", {1: passages[1]}, [1]).contradictions


def test_numbers_in_the_question_are_not_held_against_the_answer():
    passages = {1: "Apollo. Apollo 11 landed in July."}
    f = check_factuality("Apollo 11 landed in July [1].", "When did Apollo 11 land?", passages, [1])
    assert f.contradictions == [] and f.support == 1.0


def test_code_blocks_are_not_claims():
    f = fact("Shirley Temple [2].\n```python\nprint(1946)\n```")
    assert f.claims == 1 and f.contradictions == []


def test_an_embedder_averages_its_cosine_with_the_lexical_share():
    same = lambda texts: [[1.0, 0.0]] * len(texts)  # noqa: E731 - every text on one direction: cosine 1
    orthogonal = lambda texts: [[1.0, 0.0]] + [[0.0, 1.0]] * (len(texts) - 1)  # noqa: E731
    claim = "The film won four awards [1]."
    lexical = fact(claim).support
    assert fact(claim, embed=same).support == pytest.approx((lexical + 1.0) / 2, abs=1e-3)
    assert fact(claim, embed=orthogonal).support == pytest.approx(lexical / 2, abs=1e-3)


def test_lexical_support_needs_every_number_and_reads_thousands_separators():
    assert lexical_support("It seats 1,000 people", ["The hall seats 1000 people."]) > 0
    assert lexical_support("It seats 2000 people", ["The hall seats 1000 people."]) == 0.0


def test_a_digit_inside_a_name_is_no_number():
    passages = {1: "Spot Instances. Spot Instances save up to 90 percent over On-Demand prices."}
    f = check_factuality("EC2 Spot Instances save up to 90 percent [1].", "How much do Spot Instances save?",
                         passages, [1])
    assert f.contradictions == [] and f.support > 0  # the 2 of "EC2" is part of a name
    assert lexical_support("It runs on x86 with 2 cores", ["It needs 2 cores."]) > 0


def test_a_passage_whose_vector_the_index_stored_is_not_embedded_again():
    asked = []

    def embed(texts):
        asked.extend(texts)
        return [[1.0, 0.0]] * len(texts)

    claim = "She served as Chief of Protocol of the United States [2]."
    stored = check_factuality(claim, "Which office?", PASSAGES, [2], embed, stored={2: [1.0, 0.0]})
    assert asked == ["She served as Chief of Protocol of the United States."]
    asked.clear()
    embedded = check_factuality(claim, "What office?", PASSAGES, [2], embed)
    assert asked == ["She served as Chief of Protocol of the United States.", TEMPLE] and stored.score == embedded.score
