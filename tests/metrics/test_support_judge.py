"""The lexical judge's rule, and the LM judge with a scripted LM and its fallback."""

import dspy

from metrics.support_judge import (
    LexicalSupportJudge,
    LMSupportJudge,
    build_support_judge,
)
from tests.conftest import scripted_lm

PASSAGE = ["Shirley Temple served as Chief of Protocol of the United States from 1976."]


def test_lexical_judge_needs_the_words_and_every_number():
    judge = LexicalSupportJudge(threshold=0.6)
    assert judge("Shirley Temple was Chief of Protocol.", PASSAGE)
    assert not judge("Shirley Temple was Chief of Protocol in 1980.", PASSAGE)
    assert not judge("Bob Dylan wrote songs about rivers.", PASSAGE)


def test_lm_judge_asks_once_per_claim_and_passages():
    lm = scripted_lm({"supported": True}, {"supported": False})
    judge = LMSupportJudge(lm)
    assert judge("claim one", PASSAGE) is True
    assert judge("claim one", PASSAGE) is True  # cached: the second scripted answer is unused
    assert judge("claim two", PASSAGE) is False
    assert len(lm.history) == 2


def test_lm_judge_falls_back_to_lexical_on_a_malformed_output():
    judge = LMSupportJudge(scripted_lm({"nonsense": 1}))
    with dspy.context(adapter=dspy.JSONAdapter()):
        assert judge("Shirley Temple was Chief of Protocol.", PASSAGE) is True


def test_build_rejects_an_unknown_judge():
    import pytest

    with pytest.raises(ValueError, match="unknown support judge"):
        build_support_judge("oracle")
