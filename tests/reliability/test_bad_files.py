"""A bad compiled program or dataset file ends each entry point in one line naming the file and the line or field,
exit 1, changing nothing. (`python bench/faults.py --only bad_files` runs 200 mutated files.)"""

from __future__ import annotations

import json

import pytest

from optimize.cli import main as optimize_main
from program.cli import main as program_main
from program.loop import GatedRAG
from tests.conftest import FakeSearch
from tests.reliability.children import one_line_error, run


@pytest.fixture
def valid_program(tmp_path) -> dict:
    GatedRAG(FakeSearch([])).save(tmp_path / "valid.json")
    return json.loads((tmp_path / "valid.json").read_text())


def program_file(tmp_path, state: dict, raw: str | None = None):
    path = tmp_path / "prog.json"
    path.write_text(raw if raw is not None else json.dumps(state, indent=2))
    return path


@pytest.mark.parametrize("change, says", [
    (lambda s: s | {"thresholds": s["thresholds"] | {"max_iterations": -1}},
     ": thresholds.max_iterations: input should be greater than or equal to 0"),
    (lambda s: s | {"thresholds": s["thresholds"] | {"top_k": "3"}}, ": thresholds.top_k: input should be a valid integer"),
    (lambda s: {k: v for k, v in s.items() if k != "judge"}, ": judge: missing"),
    (lambda s: s | {"refine": s["refine"] | {"demos": {"x": 1}}}, ": refine.demos: input should be a valid list"),
])
@pytest.mark.parametrize("command", ["ask", "serve", "mcp"])
def test_a_bad_program_in_each_command(capsys, tmp_path, valid_program, change, says, command):
    path = program_file(tmp_path, change(valid_program))
    argv = {"ask": ["ask", "Which valve?"], "serve": ["serve", "--port", "0"], "mcp": ["mcp"]}[command]
    assert program_main([*argv, "--program", str(path), "--data-dir", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert err == f"error: {path}{says}\n"
    assert not (tmp_path / "data").exists()


def test_a_program_that_is_not_json_names_its_line_in_eval(capsys, tmp_path, valid_program):
    text = json.dumps(valid_program, indent=2)
    path = program_file(tmp_path, valid_program, text[: text.index('"thresholds"')])
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"question": "Which valve?", "answer": "relief"}\n')
    argv = ["eval", "--dataset", str(questions), "--program", str(path), "--no-progress", "--data-dir", str(tmp_path / "d")]
    assert optimize_main(argv) == 1
    line = text[: text.index('"thresholds"')].count("\n") + 1
    assert capsys.readouterr().err.startswith(f"error: {path} line {line}: not JSON")


@pytest.mark.parametrize("content, says", [
    (b'{"question": "Q?", "answer": "x", "id": "a"}\n{"answer": "y", "id": "b"}\n', "line 2: missing key 'question'"),
    (b'{"question": "Q?", "answer": "x"}\n{"question": "Q\xff", "answer": "y"}\n', "line 2: not UTF-8 (byte 0xff)"),
    (b'{"question": "Q?", "answer": "x"}\n{"question": "R?", "answer": ' + b"[" * 100 + b"]" * 100 + b"}\n",
     "line 2: nested deeper than 64 levels"),
    (b'{"question": "Q?", "answer": "x"}\n{"question": "R?", "answerable": "maybe", "answer": "y"}\n',
     "line 2: answerable: input should be a valid boolean"),
])
@pytest.mark.parametrize("command", [["eval"], ["run", "--dry-run"]])
def test_a_bad_dataset_row_in_eval_and_the_optimize_job(capsys, tmp_path, content, says, command):
    path = tmp_path / "q.jsonl"
    path.write_bytes(content)
    assert optimize_main([*command, "--dataset", str(path), "--data-dir", str(tmp_path / "data")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path} {says}") and err.count("\n") == 1
    assert not (tmp_path / "data").exists() and path.read_bytes() == content


def test_as_child_processes_too(tmp_path, valid_program):
    path = program_file(tmp_path, valid_program | {"gatedrag": {"format": "3"}})
    done = run("-m", "program", "ask", "Which valve?", "--program", str(path), "--data-dir", str(tmp_path / "data"))
    assert one_line_error(done, str(path)).endswith(": gatedrag.format: input should be a valid integer")
    rows = tmp_path / "q.csv"
    rows.write_text("question,answer\nWhich valve?,relief,extra\n")
    done = run("-m", "optimize", "eval", "--dataset", str(rows), "--data-dir", str(tmp_path / "data"))
    assert one_line_error(done, str(rows)).endswith("line 2: 3 cells; the header has 2; nothing was run")
