"""Hints: the expansion budget caps the thresholds, the criteria read as the LM sees them; bad hints are rejected."""

import pytest
from pydantic import ValidationError

from program.hints import Hints
from program.thresholds import Thresholds


def test_expansion_budget_caps_rounds_and_never_raises_them():
    base = Thresholds(max_iterations=3, max_doc_queries=2, max_web_searches=1)
    capped = Hints(expansion_budget=2).apply(base)
    assert (capped.max_iterations, capped.max_doc_queries, capped.max_web_searches) == (2, 2, 1)
    assert Hints().apply(base) == base


def test_criteria_reach_every_lm_call_after_the_constraints():
    hints = Hints(constraints="in 1945", required=["Chief of Protocol"], prohibited=["re:ambassadors?"], check="aws_region")
    assert hints.criteria.given == 3
    assert hints.requirements() == ('in 1945; mention "Chief of Protocol"; do not mention text matching /ambassadors?/; '
                                    "name an AWS region code such as us-east-1")
    assert Hints().requirements() == ""


@pytest.mark.parametrize("bad", [{"expansion_budget": -1}, {"intent": "poem"}, {"colour": "red"},
                                 {"required": ["re:(unclosed"]}, {"prohibited": [""]}, {"required": ["x"] * 11},
                                 {"check": "spelling"}])
def test_bad_hints_are_rejected(bad):
    with pytest.raises(ValidationError):
        Hints(**bad)
