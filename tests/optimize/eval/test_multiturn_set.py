"""optimize/eval/multiturn_set.py: the 30 conversations, built from the real shared HotpotQA dev data."""

import json

import pytest

from optimize.eval.example_schema import DatasetError
from optimize.eval.multiturn_set import bridge_questions, load_conversations
from program.base.settings import Settings
from program.gate import follow_up as decide_follow_up
from program.retrieval.corpora import SPLITS, read_json
from program.sessions.conversation import Conversation, Turn
from program.sessions.follow_up import follow_up_cues
from program.thresholds import Thresholds


def follow_up(question, conversation, t):
    """The cues the session module measures, then the gate's decision, as the loop asks them."""
    return decide_follow_up(follow_up_cues(question, conversation), t)


@pytest.fixture(scope="module")
def settings():
    return Settings(_env_file=None)


@pytest.fixture(scope="module")
def conversations(settings):
    return load_conversations(settings)


def test_thirty_dev_conversations_whose_turn_two_asks_about_the_bridge_page(settings, conversations):
    splits = read_json(settings, SPLITS)
    assert len(conversations) == 30 and len({c.qid for c in conversations}) == 30
    assert {c.qid for c in conversations} <= set(splits["dev_ids"]) - set(splits["test_ids"])
    first = conversations[0]
    assert (first.turn1, first.question) == ("Who is Shirley Temple?", "What government position did she hold?")
    assert first.gold_sources == ["Shirley Temple"] and first.answers == ["Chief of Protocol"]
    assert "Kiss and Tell" in first.original
    held = [c for c in conversations if c.holdout_title]
    assert len(held) == 15 and all(c.holdout_title == c.gold_sources[0] for c in held)


def test_every_turn_two_reads_as_a_follow_up_of_its_turn_one(conversations):
    for c in conversations:
        conversation = Conversation((Turn.of(c.turn1, c.turn1, ""),), idle_s=10)
        assert follow_up(c.question, conversation, Thresholds()).rewrite, c.question


@pytest.mark.parametrize("row, reason", [
    ({"id": "TEST", "turn1": "Who?", "follow_up": "When was he born?"}, "is a test question"),
    ({"id": "5a8c7595554299585d9e36b6", "turn1": "Who is Shirley Temple?",
      "follow_up": "What government position did Shirley Temple hold?"}, "names 'Shirley Temple'"),
    ({"id": "5a8c7595554299585d9e36b6", "turn1": "Who is Shirley Temple?"}, "needs the strings"),
    ({"id": "nope", "turn1": "Who?", "follow_up": "Who is he?"}, "is not a dev bridge question"),
])
def test_a_bad_row_is_refused_with_its_reason(settings, tmp_path, row, reason):
    if row["id"] == "TEST":
        row["id"] = read_json(settings, SPLITS)["test_ids"][0]
    path = tmp_path / "turns.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=reason):
        load_conversations(settings, path)


def test_bridge_questions_are_dev_two_page_questions_answered_on_the_page_they_do_not_name(settings):
    bridges = bridge_questions(settings)
    assert 40 <= len(bridges) <= 250
    shirley = bridges["5a8c7595554299585d9e36b6"]
    assert shirley.bridge_title == "Shirley Temple" and shirley.held_out
    assert "5a8b57f25542995d1e6f1371" not in bridges  # Scott Derrickson and Ed Wood: a yes/no comparison
