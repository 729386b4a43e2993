"""`python -m optimize`: bad input exits 2 with one line and writes nothing; eval and compare end to end."""

import json

import pytest

import program.lm.lm_profiles
from optimize.cli import main
from optimize.eval import command as eval_command
from optimize.eval.records import RecordLog
from tests.conftest import scripted_lm
from tests.optimize.conftest import GOLD, FakeHandle, FakeProgram, examples


def one_line_error(capsys, argv, code=2):
    assert main(argv) == code
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "error" in err
    return err


@pytest.mark.parametrize("argv, says", [
    (["eval", "--split", "validation"], "unknown split 'validation' of hotpotqa"),
    (["eval"], "--split is required for hotpotqa"),
    (["eval", "--dataset", "no-such-file.jsonl"], "no dataset 'no-such-file.jsonl'"),
    (["eval", "--dataset", "aws_docs", "--split", "smoke"], "unknown split 'smoke' of aws_docs"),
    (["eval", "--split", "smoke", "--program", "missing.json"], "no compiled program"),
    (["eval", "--split", "smoke", "--systems", "gated,react"], "unknown system"),
    (["eval", "--split", "smoke", "--limit", "0"], "at least 1"),
    (["compare", "no-such-run", "other"], "no eval run"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(capsys, tmp_path, argv, says):
    try:
        err = one_line_error(capsys, [*argv, "--data-dir", str(tmp_path)])
    except SystemExit as exit_:  # argparse rejects before main's handler
        assert exit_.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
    assert says in err
    assert list(tmp_path.iterdir()) == []


def test_the_test_split_prints_a_notice_then_needs_the_index(capsys, tmp_path):
    assert main(["eval", "--split", "test", "--data-dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "test split is for final reports only" in err and "python -m program index" in err


def test_eval_then_compare_from_the_command_line(capsys, monkeypatch, settings, tmp_path):
    made = []

    def fake_systems(settings, names, program_path):
        made.append({n: FakeProgram(answers={GOLD["q1"][0]: "nobody"} if n == "single_pass" else None) for n in names})
        return made[-1]

    monkeypatch.setattr(eval_command, "build_systems", fake_systems)
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda settings, cache: FakeHandle(scripted_lm()))
    argv = ["eval", "--split", "smoke", "--limit", "3", "--no-progress", "--data-dir", str(settings.data_dir)]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    run_id = err.split("run ")[1].split(":")[0]
    assert "single_pass" in out and "report:" in out and (settings.data_dir / "runs" / run_id / "report.html").exists()
    assert main(argv) == 0 and all(p.calls == [] for p in made[-1].values())  # resumed: nothing re-ran
    capsys.readouterr()

    assert main([*argv[:-3], "--limit", "2", "--systems", "single_pass", "--data-dir", str(settings.data_dir)]) == 0
    other = capsys.readouterr().err.split("run ")[1].split(":")[0]
    assert main(["compare", run_id, other, "--data-dir", str(settings.data_dir)]) == 0
    out = capsys.readouterr().out
    assert "single_pass (2 shared questions" in out and (settings.data_dir / "runs" / other / "compare.md").exists()


def fake_eval(monkeypatch, gold_program, read) -> list:
    """Eval over the gold program with a scripted LM; returns what `read` saw of each run's settings."""
    seen = []

    def fake_systems(settings, names, program_path):
        seen.append(read(settings))
        return {"gated": gold_program}

    monkeypatch.setattr(eval_command, "build_systems", fake_systems)
    monkeypatch.setattr(eval_command, "load_examples", lambda settings, ref, split, limit: examples())
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda settings, cache: FakeHandle(scripted_lm()))
    return seen


def test_eval_with_web_none_and_hidden_gold_runs_without_web_and_gold(capsys, monkeypatch, settings, gold_program):
    seen = fake_eval(monkeypatch, gold_program, lambda s: s.resolved_web_backend)
    argv = ["eval", "--split", "smoke", "--systems", "gated", "--web", "none", "--hide-gold", "--no-progress",
            "--data-dir", str(settings.data_dir)]
    assert main(argv) == 0
    run_id = capsys.readouterr().err.split("run ")[1].split(":")[0]
    folder = settings.data_dir / "runs" / run_id
    assert seen == ["none"] and "-web_none-hide_gold-" in run_id
    config = json.loads((folder / "config.json").read_text())
    assert (config["web"], config["hide_gold"]) == ("none", True)
    for record, example in zip(RecordLog(folder / "results.jsonl").read(), examples()):
        assert not {p.title for p in record.result.evidence} & set(example.gold_sources)
    assert "web none; each question's gold paragraphs hidden" in (folder / "report.md").read_text()


def test_eval_on_a_users_jsonl_file(capsys, monkeypatch, settings, tmp_path):
    """Several answers, gold sources as URL paths, no gold sources, and an unanswerable question the program answers."""
    rows = [{"id": "k", "question": GOLD["q1"][0], "answers": ["R. Wallace", "Richard Wallace"],
             "gold_sources": ["example.org/Kiss and Tell"], "split": "dev"},
            {"id": "o", "question": GOLD["q2"][0], "answer": "Alpha", "split": "dev"},
            {"id": "s", "question": GOLD["q3"][0], "answers": [], "split": "dev"},
            {"id": "t", "question": "never asked", "answer": "x", "split": "test"}]
    path = tmp_path / "my.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(eval_command, "build_systems", lambda settings, names, program_path: {"gated": FakeProgram()})
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda settings, cache: FakeHandle(scripted_lm()))
    argv = ["eval", "--dataset", str(path), "--split", "dev", "--systems", "gated", "--no-progress",
            "--data-dir", str(settings.data_dir)]
    assert main(argv) == 0
    run_id = capsys.readouterr().err.split("run ")[1].split(":")[0]
    folder = settings.data_dir / "runs" / run_id
    assert run_id.startswith("eval-my-dev-uncompiled-")
    config = json.loads((folder / "config.json").read_text())
    assert (config["dataset"], len(config["dataset_sha256"])) == (str(path.resolve()), 64)
    gated = json.loads((folder / "summary.json").read_text())["systems"][0]
    assert gated["n"] == 3 and gated["metrics"]["exact_match"]["mean"] == pytest.approx(2 / 3)  # s answered: 0
    assert gated["metrics"]["evidence_recall"]["n"] == 1  # o has no gold sources, s is unanswerable
    assert gated["abstained_answerable"] == {"hits": 0, "n": 2, "rate": 0.0}
    assert gated["abstained_unanswerable"] == {"hits": 0, "n": 1, "rate": 0.0}
    assert "abstention rate, unanswerable" in (folder / "report.md").read_text()

    path.write_text(path.read_text().replace("Alpha", "Beta"), encoding="utf-8")
    assert main(argv) == 0  # an edited file is a new run, never a resume of the old one
    assert capsys.readouterr().err.split("run ")[1].split(":")[0] != run_id


def test_a_bad_file_is_one_line_exit_1_a_bad_argument_exit_2_and_both_write_nothing(capsys, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"question": "Q?", "answer": "A", "split": "dev"}\n{"question": "Q2?"}\n', encoding="utf-8")
    data = tmp_path / "data"
    err = one_line_error(capsys, ["eval", "--dataset", str(path), "--data-dir", str(data)], code=1)
    assert f"error: {path} line 2: no answer" in err and err.endswith("nothing was run")
    err = one_line_error(capsys, ["eval", "--dataset", str(path.with_name("ok.jsonl")), "--data-dir", str(data)])
    path.write_text('{"question": "Q?", "answer": "A", "split": "dev"}\n', encoding="utf-8")
    err = one_line_error(capsys, ["eval", "--dataset", str(path), "--split", "valid", "--data-dir", str(data)])
    assert "unknown split 'valid'" in err and "its splits: dev" in err
    assert not data.exists()


def test_a_bundled_datasets_eval_searches_its_own_collection_unless_told(capsys, monkeypatch, settings, gold_program):
    seen = fake_eval(monkeypatch, gold_program, lambda s: s.collection)
    argv = ["eval", "--dataset", "aws_docs", "--split", "dev", "--systems", "gated", "--no-progress",
            "--data-dir", str(settings.data_dir)]
    assert main(argv) == 0 and main([*argv, "--collection", "mine"]) == 0
    assert seen == ["aws_docs", "mine"]
    run_id = capsys.readouterr().err.split("run ")[-1].split(":")[0]
    assert json.loads((settings.data_dir / "runs" / run_id / "config.json").read_text())["collection"] == "mine"


def test_every_command_names_a_recipe_that_exists_and_help_imports_none_of_them():
    import subprocess
    import sys

    from optimize.cli import parser
    from program.base.command_line import handler

    commands = parser()._subparsers._group_actions[0].choices
    assert all(callable(handler(p.get_default("run"))) for p in commands.values())
    heavy = "import sys; from optimize.cli import parser; parser(); print(sorted({'dspy', 'mlflow'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", heavy], capture_output=True, text=True, check=True).stdout.strip() == "[]"


@pytest.mark.parametrize(("argv", "env", "says"), [
    (["eval", "--split", "smoke"], {"GATEDRAG_LM": "nosuch/model"}, "error: GATEDRAG_LM 'nosuch/model': unknown provider"),
    (["eval", "--split", "smoke", "--profile", "openai/gpt-4o-mini"], {},
     "error: OPENAI_API_KEY is not set, and GATEDRAG_LM openai/gpt-4o-mini needs it"),
    (["run", "--optimizer", "bootstrap", "--teacher-model", "nosuch/model"], {},
     "error: --teacher-model 'nosuch/model': unknown provider"),
    (["run", "--optimizer", "bootstrap", "--teacher-model", "openai/big"], {"GATEDRAG_TEACHER_API_BASE": "ftp://x"},
     "error: GATEDRAG_TEACHER_API_BASE ftp://x: not an http(s) URL"),
])
def test_bad_lm_settings_are_one_line_naming_the_variable_before_anything_runs(capsys, monkeypatch, tmp_path, argv,
                                                                               env, says):
    for name in ("GATEDRAG_LM", "GATEDRAG_PROFILE", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert one_line_error(capsys, [*argv, "--data-dir", str(tmp_path)], code=1).startswith(says)
    assert list(tmp_path.iterdir()) == []
