"""A program carries its sufficiency model through save and load; one saved before it loads with the shipped default."""

from __future__ import annotations

import json

import pytest

from program import load
from program.assembly.loading import ProgramLoadError, read_state
from program.judges.sufficiency import SufficiencyModel, default_model
from program.loop import GatedRAG
from tests.conftest import FakeSearch

MODEL = SufficiencyModel(features=["best", "cliff"], center=[0.5, 0.1], scale=[0.1, 0.05], weights=[1.5, 0.4],
                         intercept=-0.2, fitted_on="hand")


def test_a_new_program_carries_the_shipped_model():
    assert GatedRAG(FakeSearch([])).sufficiency == default_model()


def test_a_program_saved_with_a_model_loads_it(tmp_path):
    rag = GatedRAG(FakeSearch([]))
    rag.sufficiency = MODEL
    rag.save(tmp_path / "program.json")
    assert load(tmp_path / "program.json", search=FakeSearch([])).sufficiency == MODEL


def test_a_program_saved_before_the_model_loads_with_the_default(tmp_path):
    old = GatedRAG(FakeSearch([])).dump_state()
    del old["sufficiency"]
    (tmp_path / "program.json").write_text(json.dumps(old))
    rag = GatedRAG(FakeSearch([]))
    rag.sufficiency = MODEL
    assert rag.load_state(old).sufficiency == default_model()
    assert load(tmp_path / "program.json", search=FakeSearch([])).sufficiency == default_model()


def test_a_malformed_model_fails_in_one_line_naming_the_file(tmp_path):
    state = GatedRAG(FakeSearch([])).dump_state()
    state["sufficiency"] = MODEL.model_dump() | {"features": ["mood", "best"]}
    (tmp_path / "program.json").write_text(json.dumps(state))
    with pytest.raises(ProgramLoadError, match=r"program.json: sufficiency"):
        read_state(tmp_path / "program.json")
