"""bench/loco_release.py's fold: with a target wrong rate, the threshold the fit picked decides."""

from __future__ import annotations

from bench import loco_release
from optimize.judges.acceptance_fit import fit_acceptance, rows
from program.thresholds import Thresholds
from tests.optimize.judges.test_acceptance_fit import by_support

MODEL = fit_acceptance(rows(by_support()), "hand-made answers")
LEARNED = Thresholds(release="learned")


def test_a_fold_with_a_target_wrong_rate_answers_only_at_its_threshold_and_reports_the_rate():
    train = by_support()
    held = [r.model_copy(update={"qid": f"held-{r.qid}"}) for r in by_support()]  # exchangeable with the training rows
    test = {name: [r.model_copy(update={"system": name}) for r in held] for name in loco_release.SYSTEMS}
    f = loco_release.fold(train, test, LEARNED, max_wrong_rate=0.2)
    assert f["threshold"] is not None
    assert f["wrong_rate_answered"] <= 0.2
    assert f["systems"]["learned"]["wrong"] < f["systems"]["single_pass"]["wrong"]


def _against(single_pass_right: bool) -> dict:
    """The hand-made drafts as the learned gate's; single pass and the rule gate all right or all wrong."""
    learned = [r.model_copy(update={"system": "learned"}) for r in by_support()]
    net = 1.0 if single_pass_right else -1.0
    other = [r.model_copy(update={"scores": r.scores.model_copy(update={"net_right": net})}) for r in learned]
    return {"learned": learned, "single_pass": other, "gated": other}


def _systems(test: dict) -> dict:
    return {name: loco_release._counts(loco_release._nets(test[name])) for name in ("single_pass", "gated")}


def test_any_threshold_finds_none_when_the_drafts_hold_fewer_right_answers_than_single_pass_gives():
    test = _against(single_pass_right=True)
    found = loco_release.any_threshold(test, MODEL, LEARNED, _systems(test))
    assert found == {"right_drafts": sum(1 for _, right in rows(by_support()) if right), "meeting": None}


def test_any_threshold_spans_the_thresholds_where_the_answers_meet_the_bars():
    test = _against(single_pass_right=False)
    low, high = loco_release.any_threshold(test, MODEL, LEARNED, _systems(test))["meeting"]
    assert 0.0 < low <= high < 1.0
