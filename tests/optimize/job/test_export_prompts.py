"""Exported prompts: one readable file per module, with instructions and demos, and the thresholds."""

import json

import dspy

from optimize.job.export_prompts import export_prompts
from program.loop import GatedRAG
from program.thresholds import Thresholds
from tests.conftest import FakeSearch


def test_export_writes_instructions_demos_and_thresholds(tmp_path):
    rag = GatedRAG(FakeSearch([]), thresholds=Thresholds(top_k=4))
    rag.synthesize.demos = [dspy.Example(question="Who?", evidence="[1] A: a", answer="A [1]")]
    rag.save(tmp_path / "program.json")
    written = export_prompts(tmp_path / "program.json", tmp_path / "prompts")
    assert {p.name for p in written} == {"decompose.md", "judge.md", "rewrite.md", "synthesize.md", "refine.md",
                                         "repair_code.md", "repair_answer.md", "contextualize.md", "thresholds.json"}
    text = (tmp_path / "prompts" / "synthesize.md").read_text()
    assert "Answer the question using only the numbered passages" in text and "## Demos (1)" in text and "A [1]" in text
    assert json.loads((tmp_path / "prompts" / "thresholds.json").read_text())["top_k"] == 4


def test_a_program_saved_before_the_code_repair_exports_its_default_prompt(tmp_path):
    GatedRAG(FakeSearch([])).save(tmp_path / "program.json")
    state = json.loads((tmp_path / "program.json").read_text())
    del state["repair_code"], state["contextualize"]
    (tmp_path / "program.json").write_text(json.dumps(state))
    export_prompts(tmp_path / "program.json", tmp_path / "prompts")
    assert "Fix the syntax error in this code block" in (tmp_path / "prompts" / "repair_code.md").read_text()
    assert "stands alone" in (tmp_path / "prompts" / "contextualize.md").read_text()
