"""How fast and how faithful the threshold replay is, against real runs of the local LM.

    python bench/replay.py OUT [--split smoke] [--limit 30] [--trials 200] [--thresholds FILE] [--workers N]

1. Runs the uncompiled program over the HotpotQA split with the real LM, recording every LM call
   (resumable: finished questions are kept in OUT).
2. Replays the recorded thresholds: fidelity against that run (same actions, in order).
3. Times the job's threshold search: `--trials` replayed trials of the full space (NSGA-II), a
   trial's questions spread over `--workers` processes, starting with the searches step 2 made,
   as the job's starts with those of its select runs: seconds, question-replays and
   milliseconds a question-replay.
4. With `--thresholds FILE` (a thresholds JSON, e.g. an optimize run's), runs those thresholds
   for real too and replays them from the first recording: the fidelity that matters, under
   thresholds the recording never saw. Each real run starts with the LM's prompt cache empty, as
   the job's do.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import dspy
import optuna

import program  # noqa: F401  (offline env vars first)
from metrics import CompositeWeights, build_support_judge, score_example
from optimize.eval.hotpotqa import load_hotpotqa
from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from optimize.job.config import load_config
from optimize.job.threshold_search import (
    DEEPEST_CUT,
    replay_objective,
    search_thresholds,
)
from optimize.replay.recorder import LMRecorder, read_calls
from optimize.replay.replay_lm import Recording
from optimize.replay.replay_run import (
    fidelity,
    remembering_searches,
    replay_examples,
    with_memo,
    with_thresholds,
)
from optimize.replay.workers import TrialPool
from program.assembly.factory import build_program
from program.base.settings import Settings
from program.lm.lm_profiles import configure_lm, json_adapter
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
    with configure_lm(settings, cache=False, announce=False) as handle:
        real = _real(rag, examples, "current", out, score, handle.empty_prompt_cache)
        real_other = _real(with_thresholds(rag, other), examples, "other", out, score,
                           handle.empty_prompt_cache) if other else None
    recording = Recording.of(read_calls(out / "current.jsonl"))
    searched = remembering_searches(rag, DEEPEST_CUT)
    memo = with_memo(searched)
    with dspy.context(adapter=json_adapter()):
        replayed, found = replay_examples(memo.deepcopy(), examples, recording, score)
        print(f"recorded thresholds: fidelity {fidelity(replayed, real):.3f} on {len(examples)} questions; replies {found}")
        if other is not None:
            replayed, found = replay_examples(with_thresholds(memo, other), examples, recording, score)
            print(f"other thresholds: fidelity {fidelity(replayed, real_other):.3f} on {len(examples)} questions; "
                  f"replies {found}")
        _time_search(rag, searched, examples, recording, score, args.trials, args.workers)


def _real(rag, examples, name: str, out: Path, score, cold_start):
    """One real run, each from an empty prompt cache as the job's are: a prompt the other run
    computed, served from the cache, can draw another reply, which is LM noise, not the replay's."""
    with dspy.context(callbacks=[LMRecorder(out / f"{name}.jsonl")]):
        return run_examples(rag, examples, name, RecordLog(out / "results.jsonl"), score, 1, 60.0,
                            cold_start=cold_start)


def _time_search(rag, searched, examples, recording, score, trials: int, workers: int | None) -> None:
    """The job's threshold search (NSGA-II, the full space, its study in a journal file) with the searches of
    `searched`: those the recorded thresholds' replay made, as the job's search starts with those its
    select runs made (the predictions are not remembered yet)."""
    config = load_config("standard", overrides={"threshold_trials": trials})
    with tempfile.TemporaryDirectory() as folder, \
            TrialPool(with_memo(searched, DEEPEST_CUT), examples, recording, score, workers) as pool:
        started = time.perf_counter()
        search_thresholds(rag.thresholds, replay_objective(pool.replay, 5.0), config, Path(folder), progress=False)
        seconds = time.perf_counter() - started
    runs = trials * len(examples)
    print(f"{trials} trials x {len(examples)} questions on {pool.workers} worker(s): {seconds:.1f} s, "
          f"{1000 * seconds / runs:.2f} ms a question-replay; {pool.asked} look-ups asked of the job, answered in "
          f"{pool.asked_s:.1f} s")


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--split", default="smoke")
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--thresholds", type=Path)
    parser.add_argument("--workers", type=int, help="processes a trial's questions are spread over (default: the cores)")
    return parser.parse_args()


if __name__ == "__main__":
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    main()
