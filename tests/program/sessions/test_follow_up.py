"""program/sessions/follow_up.py: which questions are follow-ups, vetting the LM's rewrite, and the rule-based fallback.
Every case is a hand-built question and conversation: no LM, no store."""

import pytest

from program.gate import follow_up as decide_follow_up
from program.sessions.conversation import Conversation, Turn
from program.sessions.follow_up import check_rewrite, follow_up_cues, substitute
from program.thresholds import Thresholds

GLACIER = Conversation((Turn.of("What is S3 Glacier?", "What is S3 Glacier?", "an archive storage class"),), idle_s=20)


def follow_up(question, conversation, t):
    """The cues the session module measures, then the gate's decision, as the loop asks them."""
    return decide_follow_up(follow_up_cues(question, conversation), t)


@pytest.mark.parametrize("question, rule", [
    ("What about its pricing?", "ellipsis"),
    ("And the retrieval fees?", "ellipsis"),
    ("How about Deep Archive?", "ellipsis"),
    ("What is its minimum storage duration?", "pronoun"),
    ("Who created it?", "pronoun"),
    ("Is that one cheaper than S3 Standard?", "pronoun"),
    ("What government position was held by her?", "pronoun"),
    ("In what New York city is she based?", "pronoun"),  # a name, but not one "she" can point to
    ("Did Ed Wood direct it?", "pronoun"),
    ("Minimum storage duration?", "short_soon"),
    ("How much per gigabyte?", "short_soon"),
])
def test_ellipsis_pronouns_and_short_quick_questions_are_follow_ups(question, rule):
    decision = follow_up(question, GLACIER, Thresholds())
    assert decision.rewrite and decision.rule == rule and decision.reason


@pytest.mark.parametrize("question", [
    "What is the minimum storage duration of S3 Glacier Deep Archive?",
    "When was Apple founded, and who is its chief executive?",  # "its" points to a name in an earlier clause
    "Was Ed Wood American, or was he British?",
    "Did Shirley Temple act before she became a diplomat?",
    "Patrick Kennedy is known for his collections of folktales from which province?",
    'Who wrote the book "Their Lives: The Women Targeted by the Clinton Machine"?',
    "How does Amazon DynamoDB handle partitions?",
])
def test_a_question_that_names_what_it_asks_about_stands_alone(question):
    decision = follow_up(question, GLACIER, Thresholds())
    assert not decision.rewrite and decision.rule == "standalone"


def test_nothing_is_a_follow_up_without_an_earlier_turn():
    decision = follow_up("What about its pricing?", Conversation(), Thresholds())
    assert not decision.rewrite and decision.rule == "no_session"


def test_a_short_question_long_after_the_last_turn_stands_alone():
    late = Conversation(GLACIER.turns, idle_s=300)
    assert not follow_up("Minimum storage duration?", late, Thresholds()).rewrite
    assert follow_up("Minimum storage duration?", late, Thresholds(follow_up_seconds=400)).rewrite
    assert not follow_up("Minimum storage duration?", GLACIER, Thresholds(follow_up_words=2)).rewrite


@pytest.mark.parametrize("rewritten, problem", [
    ("What is the pricing of S3 Glacier?", ""),
    ("", "it is empty"),
    ("What about its pricing?", "it repeats the follow-up"),
    ("What is the pricing of it?", "it names none of the session's topics"),
    ("S3 Glacier's pricing is per gigabyte.", "it is not a question"),
    ("Who created S3 Glacier?", "it drops the follow-up's words"),
])
def test_the_lms_rewrite_must_bring_in_a_topic_of_the_session(rewritten, problem):
    assert check_rewrite("What about its pricing?", rewritten, GLACIER) == problem


@pytest.mark.parametrize("question, standalone", [
    ("What about its pricing?", "What about S3 Glacier's pricing?"),
    ("Who created it?", "Who created S3 Glacier?"),
    ("What government position was held by her?", "What government position was held by S3 Glacier?"),
    ("What is her middle name?", "What is S3 Glacier's middle name?"),
    ("Is that one cheaper?", "Is S3 Glacier cheaper?"),
    ("And the retrieval fees?", "And the retrieval fees, regarding S3 Glacier?"),
])
def test_the_fallback_puts_the_entity_where_the_pronoun_was(question, standalone):
    assert substitute(question, "S3 Glacier") == standalone


def test_the_fallback_without_an_entity_leaves_the_question_as_it_is():
    assert substitute("Who created it?", "") == "Who created it?"
