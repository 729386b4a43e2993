"""Sparsifying a searched point: a change ships only if the replay can tell it from none."""

from optimize.job.cross_validation import cross_validate
from optimize.job.sparse_point import Sparsifier, changes, moved
from optimize.job.threshold_search import Point, Scored
from program.thresholds import Thresholds

CURRENT = Thresholds()
N = 10


def replay(thresholds: Thresholds) -> Scored:
    """A raised `answer_source_similarity` helps every question; a raised `cliff_to_answer` helps
    the first question alone, a lot; a larger `top_k` costs a second a question and changes no
    answer; every other knob does nothing."""
    lucky = thresholds.cliff_to_answer > CURRENT.cliff_to_answer
    quality = 0.7 if thresholds.answer_source_similarity > CURRENT.answer_source_similarity else 0.5
    seconds = 5.0 + (thresholds.top_k > CURRENT.top_k)
    questions = [(quality + 0.3 * (lucky and i == 0), seconds) for i in range(N)]
    return Scored(sum(q for q, _ in questions) / N, seconds, questions)


class Counted:
    def __init__(self):
        self.calls = 0

    def __call__(self, thresholds: Thresholds) -> Scored:
        self.calls += 1
        return replay(thresholds)


def point(thresholds: Thresholds, trial: int = 7) -> Point:
    scored = replay(thresholds)
    return Point(trial=trial, quality=scored.quality, latency_s=scored.latency_s, thresholds=thresholds,
                 questions=scored.questions)


PICK = CURRENT.model_copy(update={"answer_source_similarity": 0.6, "top_k": 5, "cliff_to_answer": 0.3,
                                  "names_on_topic": 0.75})


def test_only_the_change_that_carries_the_gain_is_kept_not_one_that_rests_on_one_question():
    sparsify = Sparsifier(replay, point(CURRENT, trial=0))
    kept = sparsify(point(PICK), list(range(N)))
    assert moved(CURRENT, kept.thresholds) == ["answer_source_similarity"]
    assert kept.trial == 7 and round(kept.quality, 6) == 0.7 and kept.latency_s == 5.0
    assert point(PICK).quality > kept.quality
    assert changes(CURRENT, kept.thresholds) == "answer_source_similarity 0.3 -> 0.6"


def test_a_pick_that_gains_nothing_goes_back_to_the_current_thresholds():
    useless = CURRENT.model_copy(update={"cliff_to_answer": 0.3, "names_on_topic": 0.75})
    assert Sparsifier(replay, point(CURRENT, trial=0))(point(useless), list(range(N))).thresholds == CURRENT


def test_each_put_back_is_replayed_once_however_often_it_is_asked():
    counted = Counted()
    sparsify = Sparsifier(counted, point(CURRENT, trial=0))
    sparsify(point(PICK), list(range(N)))
    calls = counted.calls
    sparsify(point(PICK), list(range(N // 2)))
    assert counted.calls == calls == sparsify.replays


def test_cross_validation_scores_each_fold_on_its_sparsified_pick():
    """A pick whose extra change costs time: held out, the sparsified pick is scored, not the pick."""
    current, pick = point(CURRENT, trial=0), point(PICK)
    calls = []

    def refine(p: Point, questions: list[int]) -> Point:
        calls.append(len(questions))
        return Sparsifier(replay, current)(p, questions)

    gain = cross_validate([current, pick], current=0, latency_weight=0.0, latency_budget_s=None, seed=1,
                          refine=refine)
    assert calls == [8] * 5 and round(gain.mean, 6) == 0.2
