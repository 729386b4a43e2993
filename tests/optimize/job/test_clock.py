"""The optimize job's plan and its time estimate, measured from the first questions it runs."""

from metrics import Scorecard
from optimize.eval.records import Record
from optimize.job.budget import estimate
from optimize.job.clock import JobClock
from optimize.job.config import load_config


def timed(system: str, seconds: float, n: int = 1) -> list[Record]:
    return [Record(qid=f"{system}{i}", system=system, status="ok", question="q", gold="g", seconds=seconds,
                   scores=Scorecard()) for i in range(n)]


def clock(written: list[str]) -> JobClock:
    """The quick preset's phases on 16 select and 30 report questions: 30 + 30 + 32 + 16 + 16 + 30."""
    return JobClock(estimate(load_config("quick"), 16, 30, "qwen2.5-coder-0.5b").phases, write=written.append)


def test_the_plan_names_each_phase_with_its_questions_and_which_may_not_run():
    plan = clock([]).plan().splitlines()
    assert plan[1].split() == ["baseline", "eval", "(report)", "30"]
    assert plan[3].split() == ["prompt", "candidates", "(select)", "32"]
    assert plan[4].split()[-3:] == ["up", "to", "16"] and plan[6].split()[-3:] == ["up", "to", "30"]
    assert plan[5].split() == ["learned", "release", "(select)", "16"]  # the judges phase always runs it


def test_the_estimate_comes_after_three_questions_and_again_once_single_pass_is_timed():
    written: list[str] = []
    job = clock(written)
    for record in timed("baseline", 12.0, 2):
        job.finished(record)
    assert written == []  # two questions are not yet a measure
    job.finished(timed("baseline", 18.0)[0])
    # 151 left, single pass counted at the loop's 14 s until it is timed
    assert written == ["time estimate on this machine: 14.0 s a question of the loop; the 151 questions left take "
                       "at most ~35 min"]
    for record in [*timed("baseline", 14.0, 27), *timed("single_pass", 2.0, 3)]:
        job.finished(record)
    # 94 loop questions at 14 s and 27 single-pass ones at 2 s
    assert written[-1] == ("time estimate on this machine: 14.0 s a question of the loop, 2.0 s of single pass; "
                           "the 121 questions left take at most ~23 min")
    assert len(written) == 2
