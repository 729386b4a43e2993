"""Each system against single pass in the same run: paired differences, right answers a minute, and a one-line verdict."""

from optimize.eval.against_baseline import against_baseline, worth
from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from tests.optimize.conftest import GOLD, FakeProgram, examples, score


def records(tmp_path, wrong_gated=(), wrong_single=(), gated_s=2.0, single_s=1.0, single_qids=tuple(GOLD)):
    """Both systems on GOLD's questions, each answer wrong where asked, with set wall times."""
    log = RecordLog(tmp_path / "results.jsonl")
    gated = run_examples(FakeProgram(answers={GOLD[q][0]: "nobody" for q in wrong_gated}), examples(), "gated", log,
                         score, progress=False)
    single = run_examples(FakeProgram(answers={GOLD[q][0]: "nobody" for q in wrong_single}), examples(*single_qids),
                          "single_pass", log, score, progress=False)
    return [*(r.model_copy(update={"seconds": gated_s}) for r in gated),
            *(r.model_copy(update={"seconds": single_s}) for r in single)]


def test_a_loop_that_answers_every_question_single_pass_gets_wrong_answers_better_and_more_a_minute(tmp_path):
    [against] = against_baseline(records(tmp_path, wrong_single=tuple(GOLD)))
    assert against.system == "gated" and against.questions == 3 and against.p50_ratio == 2.0
    f1 = against.deltas["f1"]
    assert f1.mean == 1.0 and f1.low > 0
    assert (against.right_a_minute, against.baseline_right_a_minute) == (30.0, 0.0)  # 3 right in 6 s; none in 3 s
    assert worth(against).endswith("2.00× single_pass's median seconds; 30.00 right answers a minute against 0.00: "
                                   "gated answers better here; gated gives more right answers a minute.")


def test_the_same_answers_at_twice_the_seconds_leave_single_pass_the_better_buy(tmp_path):
    [against] = against_baseline(records(tmp_path))
    assert against.deltas["f1"].mean == 0.0 and against.right_a_minute < against.baseline_right_a_minute
    assert worth(against).endswith(": F1 differs within the noise; single_pass gives more right answers a minute "
                                   "(serve it: GATEDRAG_SYSTEM=single_pass).")


def test_a_loop_that_answers_worse_is_told_so_even_when_it_is_faster(tmp_path):
    [against] = against_baseline(records(tmp_path, wrong_gated=tuple(GOLD), gated_s=0.5))
    assert against.deltas["f1"].high < 0
    assert worth(against).endswith(": single_pass answers better here; single_pass gives more right answers a minute "
                                   "(serve it: GATEDRAG_SYSTEM=single_pass).")


def test_no_right_answer_on_either_side_is_a_tie_not_a_win(tmp_path):
    [against] = against_baseline(records(tmp_path, wrong_gated=tuple(GOLD), wrong_single=tuple(GOLD)))
    assert against.right_a_minute == against.baseline_right_a_minute == 0.0
    assert worth(against).endswith(": F1 differs within the noise; both give as many right answers a minute.")


def test_only_the_questions_both_systems_finished_are_paired(tmp_path):
    [against] = against_baseline(records(tmp_path, single_qids=("q1", "q2")))
    assert against.questions == 2 and against.deltas["f1"].n == 2


def test_a_run_without_single_pass_has_nothing_to_set_against(tmp_path):
    assert against_baseline([r for r in records(tmp_path) if r.system == "gated"]) == []
