"""Run the loop over examples against a recording instead of the LM, and compare with real runs.

Each question runs the whole loop, gate and all, with `ReplayLM` in place of the LM and the
program's searches remembered (`MemoSearch`), so a trial costs milliseconds a question and no LM
call (`optimize.replay.workers` spreads a trial's questions over the cores). A replayed question
is scored like a real one; its wall time means nothing, so the threshold search estimates
latency from the LM calls it would make. Fidelity is the share of
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
from optimize.replay.memo_predict import MemoPredict
from optimize.replay.memo_search import MemoSearch, MemoWeb
from optimize.replay.replay_lm import Recording, ReplayLM, remembering, stood_in
from program.contract.result import Result


@dataclass
class Replayed:
    qid: str
    actions: list[str]
    scores: Scorecard


def remembering_searches(program: dspy.Module, depth: int = 0) -> dspy.Module:
    """A shallow copy of `program` whose searches remember their answers, each query searched for
    `depth` hits at least (see `MemoSearch`); searches that already remember are kept, so that
    copies made from it share what any of them searched. Its LM calls stay real."""
    remembering = copy.copy(program)
    if not isinstance(program.search, MemoSearch):
        remembering.search = MemoSearch(program.search, depth)
    if program.web is not None and not isinstance(program.web, MemoWeb):
        remembering.web = MemoWeb(program.web)
    return remembering


def with_memo(program: dspy.Module, depth: int = 0) -> dspy.Module:
    """A copy of `program` for replaying: its searches remember their answers (see
    `remembering_searches`; those of a program that already remembers are shared), and its
    predictors remember their predictions (see `MemoPredict`); trials copied from it share both."""
    memo = copy.deepcopy(remembering_searches(program, depth))
    for name in program.PREDICTORS:
        setattr(memo, name, MemoPredict(getattr(memo, name)))
    return memo


def replay_examples(program: dspy.Module, examples: list[dspy.Example], recording: Recording,
                    score: Score) -> tuple[list[Replayed], dict[str, int]]:
    """Each example replayed and scored, and how the replay found its LM replies (exact, closest, missing)."""
    lm = ReplayLM(recording)
    replayed = []
    # the recorded run's adapter (the caller's), so prompts are asked as recorded; no callbacks:
    # the spending guard and the recorder count real calls only
    adapter = remembering(dspy.settings.adapter or dspy.ChatAdapter())
    with dspy.context(lm=lm, adapter=adapter, track_usage=True, callbacks=[]):
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


def with_thresholds(memo: dspy.Module, thresholds) -> dspy.Module:
    """A copy of `memo` (see `with_memo`) under `thresholds`, sharing its searches.
    subtle: shallow, so that it shares the predictors too (and their remembered predictions): a
    run never changes its program, and a deep copy a trial showed in the replay's profile"""
    trial = copy.copy(memo)
    trial.thresholds = thresholds
    return trial


def replay_afresh(program: dspy.Module, thresholds, examples: list[dspy.Example], recording: Recording,
                  score: Score) -> tuple[list[Replayed], float]:
    """The examples replayed under `thresholds`, and the share of the LM replies the recording had no
    record of and stood in for: how much of that point's replayed score is the recording's guess.
    Replayed on predictors that remember nothing, so that no prediction from another trial hides a reply."""
    replayed, found = replay_examples(with_thresholds(_forgetting(program), thresholds), examples, recording, score)
    return replayed, stood_in(found)


def _forgetting(program: dspy.Module) -> dspy.Module:
    """A shallow copy of `program` (its searches shared) whose predictors remember no prediction."""
    forgetting = copy.copy(program)
    for name in program.PREDICTORS:
        predictor = getattr(program, name)
        setattr(forgetting, name, predictor._predictor if isinstance(predictor, MemoPredict) else predictor)
    return forgetting


def replay_at(memo: dspy.Module, thresholds, examples: list[dspy.Example], recording: Recording,
              score: Score) -> list[Replayed]:
    """The examples replayed on a copy of `memo` (see `with_memo`) under `thresholds`."""
    return replay_examples(with_thresholds(memo, thresholds), examples, recording, score)[0]
