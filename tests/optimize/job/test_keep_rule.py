"""A compiled component ships only if it beats the uncompiled one on the same select questions."""

from metrics import Scorecard
from optimize.eval.records import Record
from optimize.job.keep_rule import best, judge_candidate


def records(system, *scores):
    return [Record(qid=f"q{i}", system=system, status="ok", question="q", gold="g", seconds=1.0,
                   scores=Scorecard(composite=c, f1=f)) for i, (c, f) in enumerate(scores)]


def test_a_higher_composite_and_a_higher_f1_ship():
    verdict = judge_candidate("prompts", "demos-1", records("d", (0.7, 0.6), (0.6, 0.5)), records("u", (0.6, 0.5), (0.5, 0.5)))
    assert verdict.ships and verdict.line.startswith("prompts: shipping demos-1 (composite 0.650 against 0.550")


def test_a_tie_on_either_keeps_the_uncompiled_component_and_says_why():
    tie = judge_candidate("thresholds", "the searched thresholds", records("t", (0.7, 0.5)), records("u", (0.6, 0.5)))
    worse_f1 = judge_candidate("prompts", "demos-2", records("d", (0.9, 0.2)), records("u", (0.6, 0.5)))
    assert not tie.ships and not worse_f1.ships
    assert worse_f1.line == ("prompts: keeping the uncompiled prompts; demos-2 did not beat them (composite 0.900 "
                             "against 0.600, paired gain +0.300 [+0.300, +0.300], F1 0.200 against 0.500 on 1 select "
                             "questions)")


def test_a_mean_gain_its_paired_interval_does_not_hold_keeps_the_uncompiled_component():
    """Higher on average, with F1 too, but one question in five went the other way by much more."""
    noisy = judge_candidate("thresholds", "the searched thresholds",
                            records("t", (0.9, 0.9), (0.9, 0.9), (0.9, 0.9), (0.9, 0.9), (0.1, 0.1)),
                            records("u", (0.7, 0.7), (0.7, 0.7), (0.7, 0.7), (0.7, 0.7), (0.8, 0.8)))
    assert not noisy.ships and "paired gain +0.020 [" in noisy.line


def test_only_shared_questions_count_and_the_best_candidate_is_by_composite():
    only_one = judge_candidate("prompts", "d", records("d", (0.9, 1.0)), records("u", (0.5, 0.5), (0.0, 0.0))[1:])
    assert not only_one.ships and "on 0 select questions" in only_one.line
    assert best({"a": records("a", (0.4, 0)), "b": records("b", (0.6, 0)), "c": records("c", (0.6, 0))}) == "b"
