"""program/judges/acceptance.py: the draft's checks as numbers, and P(right) over them."""

import pytest
from pydantic import ValidationError

from program.gate import Progress
from program.judges.acceptance import FEATURES, AcceptanceModel, draft_checks


def test_the_checks_read_the_progress_and_leave_out_a_missing_logprob():
    p = Progress(question="Who starred in Kiss and Tell?", answer_support=0.8, answer_similarity=None,
                 answer_reached=False)
    checks = draft_checks(p, "Shirley Temple", sufficiency=0.7, judge_confidence=None, logprob=None)
    assert checks == {"sufficiency": 0.7, "support": 0.8, "similarity": 0.0, "reached": 0.0, "unknown": 0.0,
                      "echo": 0.0, "type_fit": 1.0, "judged": 0.0, "judge_confidence": 0.0}
    assert draft_checks(p, "x", 0.7, 0.9, logprob=-0.4)["logprob"] == -0.4
    assert set(checks) | {"logprob"} == set(FEATURES)


def test_echo_and_type_fit_are_the_signals_checks_as_numbers():
    p = Progress(question="Which film did Shirley Temple star in?")
    assert draft_checks(p, "Shirley Temple", 0.5, None, None)["echo"] == 1.0
    verdict = draft_checks(p, "yes", 0.5, None, None)
    assert verdict["echo"] == 0.0 and verdict["type_fit"] == 0.0  # a yes to a wh-question fits nothing


def test_a_missing_feature_reads_as_its_mean_and_moves_nothing():
    model = AcceptanceModel(features=["support", "logprob"], center=[0.5, -1.0], scale=[0.25, 0.5],
                            weights=[2.0, 1.0], intercept=0.0)
    assert model.probability({"support": 0.5}) == pytest.approx(0.5)
    assert model.probability({"support": 0.75, "logprob": -1.0}) > 0.85


def test_a_model_naming_an_unknown_feature_or_a_threshold_outside_0_1_is_refused():
    with pytest.raises(ValidationError, match="not among"):
        AcceptanceModel(features=["best"], center=[0.0], scale=[1.0], weights=[1.0], intercept=0.0)
    with pytest.raises(ValidationError):
        AcceptanceModel(features=["support"], center=[0.0], scale=[1.0], weights=[1.0], intercept=0.0, threshold=1.5)
