"""Hints: the expansion budget caps the thresholds; bad hints are rejected."""

import pytest
from pydantic import ValidationError

from program.hints import Hints
from program.thresholds import Thresholds


def test_expansion_budget_caps_rounds_and_never_raises_them():
    base = Thresholds(max_iterations=3, max_doc_queries=2, max_web_searches=1)
    capped = Hints(expansion_budget=2).apply(base)
    assert (capped.max_iterations, capped.max_doc_queries, capped.max_web_searches) == (2, 2, 1)
    assert Hints().apply(base) == base


@pytest.mark.parametrize("bad", [{"expansion_budget": -1}, {"intent": "poem"}, {"colour": "red"}])
def test_bad_hints_are_rejected(bad):
    with pytest.raises(ValidationError):
        Hints(**bad)
