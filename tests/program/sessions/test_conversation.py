"""program/sessions/conversation.py: a turn's topics, what a conversation shows the rewrite, the keep/expiry rule."""

import time

import pytest

from program.sessions.conversation import Conversation, Turn, check_session_id, recent


def turn(question, short_answer="", at=0.0, standalone=None):
    return Turn.of(question, standalone or question, short_answer).model_copy(update={"at": at})


def test_a_turns_topics_are_the_names_of_its_standalone_question_then_its_answer():
    t = Turn.of("What about its pricing?", "What is the pricing of S3 Glacier?", "Amazon S3 pricing page")
    assert t.topics[0] == "S3 Glacier" and "Amazon S3" in t.topics[1:]


def test_what_a_definition_question_asks_about_is_one_topic_whole():
    assert Turn.of("What is St. Jude Medical?", "What is St. Jude Medical?", "").topics == ["St. Jude Medical"]
    assert Turn.of("Who are Winner, the band?", "Who are Winner, the band?", "").topics == ["Winner, the band"]
    assert Turn.of("What is the capital of France?", "What is the capital of France?", "Paris").topics == \
        ["France", "Paris"]  # not a name: its names


def test_topics_come_latest_turn_first_without_repeats_and_capped():
    conversation = Conversation((turn("Who is Shirley Temple?", "Chief of Protocol"),
                                 turn("Did Shirley Temple star in the film Kiss and Tell?", "yes"),
                                 turn("Where are Paris and Lyon?")))
    assert conversation.topics() == ["Paris", "Lyon", "Shirley Temple", "Kiss and Tell"]


def test_the_main_entity_is_the_last_questions_first_name_else_its_answers():
    asked = Conversation((turn("What is Carrefour?", "French retailer"),))
    assert asked.main_entity() == "Carrefour"
    answered = Conversation((turn("who portrayed corliss archer?", "Shirley Temple"),))
    assert answered.main_entity() == "Shirley Temple"
    assert Conversation().main_entity() == ""


def test_the_transcript_shows_the_last_two_turns_standalone_with_their_answers():
    conversation = Conversation((turn("Who is A?", "a"), turn("Who is B?", "b"),
                                 turn("What about him?", "", standalone="What about C?")))
    assert conversation.transcript() == "Q: Who is B?\nA: b\nQ: What about C?\nA: (no answer)"


def test_a_session_keeps_its_last_turns_until_it_sits_idle_too_long():
    turns = [turn(f"Question {i}?", at=float(i)) for i in range(7)]
    assert [t.question for t in recent(turns, now=10.0, keep=5, idle_s=600)] == [f"Question {i}?" for i in range(2, 7)]
    assert recent(turns, now=606.0, keep=5, idle_s=600) == turns[2:]
    assert recent(turns, now=606.5, keep=5, idle_s=600) == []


@pytest.mark.parametrize("bad", ["", "../etc/passwd", ".hidden", "a b", "x" * 65, "s/1", "é"])
def test_session_ids_that_could_name_another_file_are_refused(bad):
    with pytest.raises(ValueError, match="session id"):
        check_session_id(bad)
    assert check_session_id("user-42.chat_1") == "user-42.chat_1"


def test_a_definition_question_of_many_spaces_is_read_in_linear_time():
    # "What is A", 1,990 spaces and "x" took 13.5 s, and the service's /healthz waited behind it
    question = "What is A" + " " * 20_000 + "x"
    started = time.perf_counter()
    Turn.of(question, question, "")
    assert time.perf_counter() - started < 1
