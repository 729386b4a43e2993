"""Loading the HotpotQA splits from the real shared data (local files): gold sources are the supporting titles."""

import pytest

from optimize.eval.example_schema import DatasetError
from optimize.eval.examples import DatasetRef, load_examples
from program.base.settings import Settings
from program.retrieval.corpora import DataNotFoundError

HOTPOTQA = DatasetRef(name="hotpotqa")


@pytest.fixture(scope="module")
def settings():
    return Settings()


def load_split(settings, split, limit=None):
    return load_examples(settings, HOTPOTQA, split, limit)


def test_smoke_split_is_thirty_typed_examples_with_two_gold_sources(settings):
    smoke = load_split(settings, "smoke")
    assert len(smoke) == 30 and len({e.qid for e in smoke}) == 30
    assert all(len(e.gold_sources) == 2 and e.answer and e.question for e in smoke)
    # smoke is drawn from the 53 questions with the official record, so every type is known
    assert {e.hotpot_type for e in smoke} <= {"bridge", "comparison"}
    assert set(smoke[0].inputs().keys()) == {"question"}
    assert all(e.answerable and e.answers == [e.answer] for e in smoke)


def test_holdout_titles_are_gold_sources_for_about_half(settings):
    dev = load_split(settings, "dev")
    held = [e for e in dev if e.holdout_title]
    assert len(dev) == 250 and 0 < len(held) < 250
    assert all(e.holdout_title in e.gold_sources for e in held)
    assert {e.hotpot_type for e in dev} >= {"", "bridge"}


def test_test_and_dev_do_not_overlap(settings):
    assert not {e.qid for e in load_split(settings, "test")} & {e.qid for e in load_split(settings, "dev")}


def test_train_has_types_gold_sources_and_no_holdout(settings):
    train = load_split(settings, "train", limit=5)
    assert len(train) == 5
    assert all(e.hotpot_type in {"bridge", "comparison"} and e.gold_sources and e.holdout_title == "" for e in train)


def test_unknown_split_and_missing_data_fail_clearly(tmp_path):
    with pytest.raises(DatasetError, match="unknown split 'validation' of hotpotqa; its splits: smoke, dev, test, train"):
        load_split(Settings(), "validation")
    with pytest.raises(DataNotFoundError, match="GATEDRAG_SHARED_DATA"):
        load_split(Settings(shared_data=tmp_path), "smoke")
