"""Run the loop over examples against a recording instead of the LM, and compare with real runs.

Each question runs the whole loop, gate and all, with `ReplayLM` in place of the LM and the
program's searches remembered (`MemoSearch`), so a trial costs milliseconds a question and no LM
call. A replayed question is scored like a real one; its wall time means nothing, so the
threshold search estimates latency from the LM calls it would make. Fidelity is the share of
questions on which a replay takes the same actions, in the same order, as a real run under the
same thresholds.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import dspy

from metrics import Scorecard
from optimize.eval.records import Record
from optimize.eval.runner import Score
from optimize.replay.memo_search import MemoSearch, MemoWeb
from optimize.replay.replay_lm import Recording, ReplayLM
from program.contract.result import Result


@dataclass
class Replayed:
    qid: str
    actions: list[str]
    scores: Scorecard


def with_memo(program: dspy.Module) -> dspy.Module:
    """A copy of `program` whose searches remember their answers; trials copied from it share them."""
    memo = copy.deepcopy(program)
    memo.search = MemoSearch(program.search)
    if memo.web is not None:
        memo.web = MemoWeb(program.web)
    return memo


def replay_examples(program: dspy.Module, examples: list[dspy.Example], recording: Recording,
                    score: Score) -> tuple[list[Replayed], dict[str, int]]:
    """Each example replayed and scored, and how the replay found its LM replies (exact, closest, missing)."""
    lm = ReplayLM(recording)
    replayed = []
    # the recorded run's adapter (the caller's), so prompts are asked as recorded; no callbacks:
    # the spending guard and the recorder count real calls only
    with dspy.context(lm=lm, track_usage=True, callbacks=[]):
        for example in examples:
            pred = program(question=example.question)
            replayed.append(Replayed(example.qid, actions(pred.result), score(example, pred)))
    return replayed, dict(lm.found)


def actions(result: Result | None) -> list[str]:
    """What the loop did, in order, and how it ended."""
    if result is None:
        return ["error"]
    return [step.action for step in result.trace.steps] + [result.trace.ended]


def fidelity(replayed: list[Replayed], real: list[Record]) -> float:
    """The share of replayed questions whose actions equal the real run's."""
    by_qid = {r.qid: actions(r.result) for r in real}
    paired = [r for r in replayed if r.qid in by_qid]
    return sum(r.actions == by_qid[r.qid] for r in paired) / len(paired) if paired else 0.0


def replay_at(memo: dspy.Module, thresholds, examples: list[dspy.Example], recording: Recording,
              score: Score) -> list[Replayed]:
    """The examples replayed on a copy of `memo` (see `with_memo`) under `thresholds`."""
    trial = memo.deepcopy()
    trial.thresholds = thresholds
    return replay_examples(trial, examples, recording, score)[0]


def replay_objective(memo: dspy.Module, examples: list[dspy.Example], recording: Recording, score: Score,
                     seconds_per_call: float):
    """A threshold trial's (mean composite, estimated seconds a question), replayed on copies of
    `memo`: the seconds are the LM calls the replay made times the seconds a call took in the
    recorded run."""
    def evaluate(thresholds) -> tuple[float, float]:
        replayed = replay_at(memo, thresholds, examples, recording, score)
        quality = sum(r.scores.composite for r in replayed) / len(replayed)
        return quality, sum(r.scores.lm_calls for r in replayed) / len(replayed) * seconds_per_call

    return evaluate
