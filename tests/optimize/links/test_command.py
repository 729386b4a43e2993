"""`python -m optimize links`: bad input ends in one line and writes nothing; a run writes its fit and,
when the searched weights ship, a copy of the given program carrying them."""

from __future__ import annotations

import json

import pytest

from optimize.cli import main
from program.assembly.factory import load
from program.loop import GatedRAG
from tests.conftest import FakeSearch
from tests.optimize.links.test_link_search import BLIND, TOPICS
from tests.optimize.links.test_traversal import page


@pytest.fixture
def inputs(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    links = {f"Misc {n}": f"a-{n}.html" for n in range(5)} | {f"{t.title()} guide": f"z-{t}.html" for t in TOPICS}
    (site / "index.html").write_text(page("Home", links))
    for name in links.values():
        (site / name).write_text(page(name))
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps({"question": f"What does the {t} guide say?", "answer": t, "split": "dev",
                                             "gold_sources": [f"z-{t}.html"]}) + "\n" for t in TOPICS))
    program = tmp_path / "program.json"
    GatedRAG(FakeSearch([]), thresholds=BLIND).save(program)
    return tmp_path, site, questions, program


def run(tmp_path, *flags: str) -> int:
    return main(["links", "--data-dir", str(tmp_path / "data"), "--no-progress", *flags])


def test_searched_weights_that_ship_go_into_a_copy_of_the_program(inputs, capsys):
    tmp_path, site, questions, program = inputs
    before = program.read_text()
    assert run(tmp_path, "--dataset", str(questions), "--site", str(site), "--seed", "index.html",
               "--program", str(program), "--trials", "12") == 0
    out = capsys.readouterr().out
    assert "link weights: shipping the searched weights" in out and "| 0 | " not in out
    [folder] = (tmp_path / "data" / "runs").iterdir()
    fit = json.loads((folder / "link_fit.json").read_text())
    assert fit["ships"] and fit["reach_current"] == 0.0 and fit["questions"] == 10
    shipped = load(folder / "program.json", search=FakeSearch([])).thresholds
    assert {k: getattr(shipped, k) for k in fit["chosen"]} == fit["chosen"]
    assert shipped.breadth_pages == BLIND.breadth_pages  # the program's other thresholds are its own
    assert program.read_text() == before


@pytest.mark.parametrize("flags, says", [
    (["--seed", "index.html", "--split", "test"], "the test split is for final reports only"),
    (["--seed", "nowhere.html"], "the seed 'nowhere.html' of question"),
    ([], "--site needs --seed"),
])
def test_bad_input_is_one_line_and_writes_nothing(inputs, capsys, flags, says):
    tmp_path, site, questions, _ = inputs
    assert run(tmp_path, "--dataset", str(questions), "--site", str(site), *flags) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1
    assert not (tmp_path / "data" / "runs").exists()


def test_a_dataset_with_no_site_is_told_to_give_one(inputs, capsys):
    tmp_path, _, questions, _ = inputs
    assert run(tmp_path, "--dataset", str(questions)) == 2
    assert "give --site" in capsys.readouterr().err
