"""The readable rendering shows the short answer, each step's rule and its signals."""

from program.contract.render import render_result
from program.contract.result import (
    Acceptance,
    CodeCheck,
    Factuality,
    Result,
    Step,
    Trace,
)


def test_render_shows_the_short_answer_rule_and_signals():
    step = Step(action="draft", rule="covered_with_cliff", reason="covered", signals={"cliff": 0.21, "best": 0.57})
    text = render_result(Result(question="q", answer="Mumbai [1].", short_answer="Mumbai", trace=Trace(steps=[step])))
    assert text.startswith("short answer: Mumbai")
    assert "[covered_with_cliff] covered" in text and "signals: cliff 0.21, best 0.57" in text


def test_render_says_when_the_program_abstained():
    text = render_result(Result(question="q", answer="The evidence does not say.", abstained=True))
    assert text.startswith("short answer: (abstained")


def test_render_lists_each_code_block_with_its_status():
    checks = [CodeCheck(block=1, language="python", status="valid", repaired=True),
              CodeCheck(block=2, language="", status="unchecked")]
    text = render_result(Result(question="q", answer="a", code_blocks=checks))
    assert "Code blocks: 1 python repaired, 2 (no language) unchecked" in text


def test_render_shows_the_score_before_and_after_the_repair():
    acceptance = Acceptance(score_before=0.3, score_after=0.94, threshold=0.7, accepted=True, repaired=True,
                            failed=['must mention "x"'], factuality=Factuality(score=0.8, support=0.8))
    step = Step(action="repair", rule="criteria_failed", score_before=0.3, score_after=0.94, failed=['must mention "x"'])
    text = render_result(Result(question="q", answer="a", acceptance=acceptance, trace=Trace(steps=[step])))
    assert "score 0.30 -> 0.94 (kept) · accepted at 0.70 · factuality 0.80" in text
    assert 'score 0.30 -> 0.94; failed: must mention "x"' in text


def test_render_shows_the_short_answer_a_step_drafted_even_when_it_was_refused():
    steps = [Step(action="draft", rule="ambiguous", short_answer="Prime Minister"),
             Step(action="abstain", rule="answer_unsupported", reason="no passage the answer cites uses it")]
    text = render_result(Result(question="q", answer="", abstained=True, trace=Trace(steps=steps)))
    assert "short answer: 'Prime Minister'" in text.split("[ambiguous]")[1]


def test_render_shows_what_the_lm_wrote_where_the_recorded_short_answer_replaced_it():
    steps = [Step(action="draft", rule="ambiguous", short_answer="128", lm_short_answer="1")]
    text = render_result(Result(question="q", answer="128 [1].", trace=Trace(steps=steps)))
    assert "short answer: '128' (the LM wrote '1')" in text
