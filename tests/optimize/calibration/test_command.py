"""`python -m optimize calibrate`: fits on a run, saves the calibrator with the program, checks on another run."""

import json

import pytest

from optimize.cli import main
from program.assembly.factory import load
from program.loop import GatedRAG
from program.thresholds import Thresholds
from tests.conftest import FakeSearch
from tests.optimize.calibration.conftest import overconfident, write_run


def test_it_fits_on_a_run_and_writes_the_program_with_its_calibrator(tmp_path, capsys):
    run = write_run(tmp_path / "runs" / "eval-dev-x", overconfident())
    assert main(["calibrate", "--split", "dev", "--run", str(run), "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "fit: eval-dev-x (in-sample)  40  16" in out and "platt calibrator fitted on eval-dev-x: 40 gated records" in out
    loaded = load(run / "program.json", search=FakeSearch([]))
    assert loaded.calibrator.method == "platt" and loaded.calibrator.fitted_on.startswith("eval-dev-x: 40 gated records; C ")
    assert loaded.thresholds == Thresholds()


def test_it_keeps_the_evaluated_programs_prompts_and_thresholds(tmp_path, capsys):
    compiled = GatedRAG(FakeSearch([]), thresholds=Thresholds(top_k=7))
    compiled.judge.signature = compiled.judge.signature.with_instructions("a tuned judge")
    compiled.save(tmp_path / "compiled.json")
    run = write_run(tmp_path / "run", overconfident(), program=str(tmp_path / "compiled.json"))
    out = tmp_path / "calibrated.json"
    assert main(["calibrate", "--split", "dev", "--run", str(run), "--method", "isotonic", "--out", str(out)]) == 0
    loaded = load(out, search=FakeSearch([]))
    assert loaded.thresholds.top_k == 7 and loaded.judge.signature.instructions == "a tuned judge"
    assert loaded.calibrator.method == "isotonic"
    assert json.loads((tmp_path / "compiled.json").read_text())["calibrator"] is None  # the input is left as it was


def test_check_measures_another_run_and_its_questions_are_left_out_of_the_fit(tmp_path, capsys):
    dev = write_run(tmp_path / "runs" / "eval-dev-x", overconfident(50))
    smoke = write_run(tmp_path / "runs" / "eval-smoke-x", overconfident(50)[:10], split="smoke")
    assert main(["calibrate", "--split", "dev", "--check", "eval-smoke-x", "--data-dir", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert f"fitting on the newest dev run: {dev}" in captured.err
    assert "fit: eval-dev-x (in-sample)  40" in captured.out and "check: eval-smoke-x" in captured.out
    assert load(dev / "program.json", search=FakeSearch([])).calibrator.fitted_on.startswith(
        "eval-dev-x: 40 gated records, minus eval-smoke-x's questions; C ")
    assert not (smoke / "program.json").exists()


@pytest.mark.parametrize("argv, says", [
    (["--split", "test"], "the test split is for final reports only"),
    (["--split", "dev", "--run", "no-such-run"], "no eval run 'no-such-run'"),
    (["--split", "smoke", "--run", "eval-dev-x"], "eval-dev-x ran the dev split, not smoke"),
    (["--split", "train"], "no eval run of the train split with the gated system"),
    (["--split", "dev", "--run", "eval-dev-x", "--system", "fixed_hops"], "has no records of the fixed_hops system"),
    (["--split", "dev", "--run", "eval-dev-small"], "too few records to fit a calibrator: 10"),
    (["--split", "dev", "--run", "eval-dev-x", "--program", "missing.json"], "no compiled program at missing.json"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, argv, says):
    write_run(tmp_path / "runs" / "eval-dev-x", overconfident())
    write_run(tmp_path / "runs" / "eval-dev-small", overconfident(10))
    assert main(["calibrate", *argv, "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and "\n" not in err
    assert not list((tmp_path / "runs").glob("*/program.json"))
