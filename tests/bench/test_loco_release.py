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
