"""bench/loco.py's account of what expanding changes on a held-out corpus, on hand-made states."""

from __future__ import annotations

from bench import loco
from program.judges.sufficiency import FEATURES, SufficiencyModel

SURE = SufficiencyModel(features=["best"], center=[0.5], scale=[0.1], weights=[5.0], intercept=0.0, fitted_on="hand")


def state(qid: str, round_: int, sufficient: bool, best: float) -> dict:
    return {"qid": qid, "round": round_, "sufficient": sufficient, "features": dict.fromkeys(FEATURES, 0.0) | {"best": best}}


def test_expanding_counts_questions_made_sufficient_and_made_insufficient_again():
    test = [state("gained", 1, True, 0.4), state("gained", 0, False, 0.4),  # out of order: rounds decide
            state("lost", 0, True, 0.9), state("lost", 1, False, 0.9),
            state("never", 0, False, 0.2)]
    counts = loco.expanding(test, SURE, ("best",))
    assert counts == {"first_sufficient": 1, "gained": 1, "lost": 1, "sure_first": 1, "sure_first_sufficient": 1}
