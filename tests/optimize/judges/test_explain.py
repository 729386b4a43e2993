"""`python -m optimize explain` prints what each stored model weighs, largest effect first."""

from __future__ import annotations

from optimize.cli import main
from program.answer.calibrator import ConfidenceCalibrator
from program.judges.sufficiency import SufficiencyModel
from program.loop import GatedRAG
from tests.conftest import FakeSearch

MODEL = SufficiencyModel(features=["best", "round", "pending_bridge"], center=[0.5, 1.0, 0.2], scale=[0.1, 1.0, 0.4],
                         weights=[0.3, -2.0, 1.0], intercept=-0.2, fitted_on="hand")


def saved(tmp_path, calibrator: ConfidenceCalibrator | None = None):
    rag = GatedRAG(FakeSearch([]))
    rag.sufficiency, rag.calibrator = MODEL, calibrator
    rag.save(tmp_path / "program.json")
    return tmp_path / "program.json"


def test_explain_prints_each_feature_sorted_by_standardized_effect(tmp_path, capsys):
    assert main(["explain", str(saved(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "sufficiency" in out and "fitted on hand" in out
    assert out.index("round") < out.index("pending_bridge") < out.index("best")
    assert "-2.000" in out and "+3.000" in out  # best: 0.3 per std is 3.0 per raw unit


def test_explain_reads_a_run_folder_and_shows_a_platt_calibrator(tmp_path, capsys):
    calibrator = ConfidenceCalibrator(method="platt", features=["heuristic", "best"], center=[0.5, 0.5],
                                      scale=[0.2, 0.1], weights=[-1.0, 0.5], intercept=0.1, fitted_on="records")
    saved(tmp_path, calibrator)
    assert main(["explain", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "confidence calibrator" in out and "heuristic" in out


def test_an_unknown_run_is_one_line(tmp_path, capsys):
    assert main(["explain", "no-such-run", "--data-dir", str(tmp_path)]) == 2
    assert "no run or program" in capsys.readouterr().err
