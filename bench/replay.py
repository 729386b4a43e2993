"""How fast and how faithful the threshold replay is, against real runs of the local LM.

    python bench/replay.py OUT [--split smoke] [--limit 30] [--trials 200] [--thresholds FILE]

1. Runs the uncompiled program over the HotpotQA split with the real LM, recording every LM call
   (resumable: finished questions are kept in OUT).
2. Replays the recorded thresholds: fidelity against that run (same actions, in order).
3. Times `--trials` replayed trials of the full search space, drawn at random, over the split:
   seconds, question-replays and milliseconds a question-replay.
4. With `--thresholds FILE` (a thresholds JSON, e.g. an optimize run's), runs those thresholds
   for real too and replays them from the first recording: the fidelity that matters, under
   thresholds the recording never saw.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import dspy
import optuna

import program  # noqa: F401  (offline env vars first)
from metrics import CompositeWeights, build_support_judge, score_example
from optimize.eval.hotpotqa import load_hotpotqa
from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from optimize.job.threshold_search import space
from optimize.replay.recorder import LMRecorder, read_calls
from optimize.replay.replay_lm import Recording
from optimize.replay.replay_run import fidelity, replay_examples, with_memo
from program.assembly.factory import build_program
from program.lm.lm_profiles import configure_lm, json_adapter
from program.base.settings import Settings
from program.thresholds import Thresholds


def main() -> None:
    args = _args()
    settings, out = Settings(), args.out
    out.mkdir(parents=True, exist_ok=True)
    examples = load_hotpotqa(settings, args.split)[: args.limit]
    rag = build_program(settings)
    judge = build_support_judge("lexical")
    score = lambda e, p: score_example(e, p, judge, CompositeWeights(latency_budget_s=30))  # noqa: E731
    other = Thresholds.model_validate_json(args.thresholds.read_text()) if args.thresholds else None
    with configure_lm(settings, cache=False, announce=False):
        real = _real(rag, examples, "current", out, score)
        real_other = _real(_with(rag, other), examples, "other", out, score) if other else None
    recording = Recording.of(read_calls(out / "current.jsonl"))
    memo = with_memo(rag)
    with dspy.context(adapter=json_adapter()):
        replayed, found = replay_examples(memo.deepcopy(), examples, recording, score)
        print(f"recorded thresholds: fidelity {fidelity(replayed, real):.3f} on {len(examples)} questions; replies {found}")
        if other is not None:
            replayed, found = replay_examples(_with(memo, other), examples, recording, score)
            print(f"other thresholds: fidelity {fidelity(replayed, real_other):.3f} on {len(examples)} questions; "
                  f"replies {found}")
        _time_trials(memo, examples, recording, score, args.trials)


def _real(rag, examples, name: str, out: Path, score):
    with dspy.context(callbacks=[LMRecorder(out / f"{name}.jsonl")]):
        return run_examples(rag, examples, name, RecordLog(out / "results.jsonl"), score, 1, 60.0)


def _with(rag, thresholds: Thresholds):
    copy = rag.deepcopy()
    copy.thresholds = thresholds
    return copy


def _time_trials(memo, examples, recording, score, trials: int) -> None:
    sampler = optuna.samplers.RandomSampler(seed=0)
    study = optuna.create_study(sampler=sampler)
    started = time.perf_counter()
    for _ in range(trials):
        trial = study.ask()
        replay_examples(_with(memo, Thresholds().model_copy(update=space(trial, "full"))), examples, recording, score)
        study.tell(trial, 0.0)
    seconds = time.perf_counter() - started
    runs = trials * len(examples)
    print(f"{trials} trials x {len(examples)} questions: {seconds:.1f} s, {1000 * seconds / runs:.1f} ms a question-replay")


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--split", default="smoke")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--thresholds", type=Path)
    return parser.parse_args()


if __name__ == "__main__":
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    main()
