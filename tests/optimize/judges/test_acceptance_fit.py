"""optimize/judges/acceptance_fit.py and `python -m optimize fit-acceptance`: P(right) fitted on eval answers."""

from __future__ import annotations

import json

import pytest

from metrics import Scorecard
from optimize.cli import main
from optimize.judges.acceptance_fit import FitError, fit_acceptance, out_of_fold, rows
from program.judges.acceptance import AcceptanceModel
from tests.optimize.calibration.conftest import record, write_run


def answered(qid: str, support: float, right: bool, system: str = "learned"):
    """A given answer whose draft measured `support`; right or wrong (net right +1 or -1)."""
    made = record(qid, 0.8, right, system)
    made.result.trace.draft_checks = {"support": support, "sufficiency": 0.5}
    return made.model_copy(update={"scores": Scorecard(f1=1.0 if right else 0.0, net_right=1.0 if right else -1.0)})


def by_support(n: int = 60) -> list:
    """Right where support is high, mostly: support i/n, right when above 0.4, one in six flipped."""
    return [answered(f"q{i}", i / n, (i / n > 0.4) != (i % 6 == 0)) for i in range(n)]


def test_rows_are_the_answers_given_with_their_checks_labelled_right_or_wrong():
    abstained = answered("a", 0.9, False).model_copy(update={"scores": Scorecard(f1=0.0, net_right=0.0)})
    found = rows([answered("r", 0.9, True), answered("w", 0.1, False), abstained])
    assert [right for _, right in found] == [True, False]


def test_the_fit_weighs_support_up_and_separates_held_out_answers():
    found = rows(by_support())
    model = fit_acceptance(found, "hand")
    assert dict((f, w) for f, _, w in model.effects())["support"] > 0
    scored = out_of_fold(found)
    assert sum(p for p, (_, right) in zip(scored, found) if right) / sum(r for _, r in found) > \
        sum(p for p, (_, right) in zip(scored, found) if not right) / sum(not r for _, r in found)


def test_a_target_wrong_rate_picks_a_threshold_that_meets_it_out_of_fold():
    found = rows(by_support())
    model = fit_acceptance(found, "hand", max_wrong_rate=0.25)
    given = [right for p, (_, right) in zip(out_of_fold(found), found) if p >= model.threshold]
    assert model.max_wrong_rate == 0.25 and given and (len(given) - sum(given)) / len(given) <= 0.25


def test_too_few_of_either_class_is_a_fit_error():
    with pytest.raises(FitError, match="too few answers"):
        fit_acceptance(rows([answered(f"q{i}", 0.5, True) for i in range(10)]), "hand")


def test_the_command_writes_a_program_carrying_the_model(tmp_path, capsys):
    run = write_run(tmp_path / "run", by_support())
    assert main(["fit-acceptance", str(run), "--max-wrong-rate", "0.25"]) == 0
    saved = json.loads((run / "program.json").read_text())
    assert saved["acceptance"]["threshold"] is not None and saved["acceptance"]["features"][0] == "sufficiency"
    assert "AUROC" in capsys.readouterr().out


def test_a_test_split_run_is_refused_in_one_line(tmp_path, capsys):
    run = write_run(tmp_path / "run", by_support(), split="test")
    assert main(["fit-acceptance", str(run)]) == 2
    assert "final reports only" in capsys.readouterr().err and not (run / "program.json").exists()


def test_a_withheld_draft_is_a_row_labelled_by_whether_it_was_right():
    withheld = answered("h", 0.9, False).model_copy(update={"scores": Scorecard(f1=0.0, net_right=0.0,
                                                                                draft_right=True)})
    withheld.result.abstained = True
    assert [right for _, right in rows([withheld])] == [True]


def test_model_only_writes_the_model_as_the_shipped_default_is(tmp_path):
    run = write_run(tmp_path / "run", by_support())
    assert main(["fit-acceptance", str(run), "--model-only", "--out", str(tmp_path / "acceptance.json")]) == 0
    model = AcceptanceModel.model_validate_json((tmp_path / "acceptance.json").read_text())
    assert "support" in model.features and not (run / "program.json").exists()


def test_model_only_without_out_is_refused_before_any_fit(tmp_path, capsys):
    run = write_run(tmp_path / "run", by_support())
    assert main(["fit-acceptance", str(run), "--model-only"]) == 2
    assert "--out" in capsys.readouterr().err
