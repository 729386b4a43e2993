"""Replayed trials on every core: each trial's questions split among forked workers.

The workers are forks of the job, taken once, so they share the memo (`with_memo`), the recording
and every cache without pickling them. A worker never searches: a forked index or embedder is not
safe to use. What its memo lacks it asks of the job over its pipe (`MemoSearch.redirect`); the job
searches in its own process, remembers the answer and sends it back, so the other workers find it
there too. With one core, or where fork is not available, every question replays in process.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from multiprocessing.connection import Connection, wait

import dspy

from optimize.eval.runner import Score
from optimize.replay.replay_lm import Recording
from optimize.replay.replay_run import Replayed, replay_at

# what a worker replays with, set just before the fork and inherited by it (nothing is pickled)
_FORKED: tuple[dspy.Module, list[dspy.Example], Recording, Score] | None = None


class WorkerError(RuntimeError):
    """A replay worker failed or died."""


class TrialPool:
    """`replay(thresholds)`: every example replayed on a copy of `memo` under `thresholds`, in order."""

    def __init__(self, memo: dspy.Module, examples: list[dspy.Example], recording: Recording, score: Score,
                 workers: int | None = None):
        self.memo, self.examples, self.recording, self.score = memo, examples, recording, score
        self.workers = min(workers if workers is not None else _cores(), len(examples))
        self.asked = 0  # look-ups the workers' memos lacked, answered by the job's
        self.asked_s = 0.0  # the seconds the job spent answering them (searching, embedding)
        self._pipes: list[Connection] = []
        self._processes: list[multiprocessing.process.BaseProcess] = []

    def replay(self, thresholds) -> list[Replayed]:
        if self.workers < 2:
            return replay_at(self.memo, thresholds, self.examples, self.recording, self.score)
        if not self._pipes:
            self._fork()
        shards = [list(range(i, len(self.examples), self.workers)) for i in range(self.workers)]
        for pipe, shard in zip(self._pipes, shards):
            pipe.send((thresholds, shard))
        done: dict[int, Replayed] = {}
        busy = set(self._pipes)
        while busy:
            for pipe in wait(list(busy)):
                kind, payload = _receive(pipe)
                if kind == "ask":  # searched here, where it is safe, and remembered for every worker
                    pipe.send(self._answer(*payload))
                else:
                    done.update(payload)
                    busy.discard(pipe)
        return [done[i] for i in range(len(self.examples))]

    def close(self) -> None:
        for pipe in self._pipes:
            pipe.send(None)
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        self._pipes, self._processes = [], []

    def __enter__(self) -> TrialPool:
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def _answer(self, target: str, method: str, args: tuple) -> tuple[str, object]:
        """("ok", what the job's memo answers) or ("raise", the error it raised, for the worker to raise)."""
        self.asked += 1
        started = time.perf_counter()
        try:
            return "ok", getattr(getattr(self.memo, target), method)(*args)
        except Exception as error:  # noqa: BLE001 - raised again in the worker, as it would be in process
            return "raise", error
        finally:
            self.asked_s += time.perf_counter() - started

    def _fork(self) -> None:
        global _FORKED
        _FORKED = (self.memo, self.examples, self.recording, self.score)
        context = multiprocessing.get_context("fork")
        for _ in range(self.workers):
            mine, theirs = context.Pipe()
            process = context.Process(target=_work, args=(theirs,), daemon=True)
            process.start()
            theirs.close()
            self._pipes.append(mine)
            self._processes.append(process)


def _cores() -> int:
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _receive(pipe: Connection):
    try:
        kind, payload = pipe.recv()
    except EOFError:
        raise WorkerError("a replay worker died mid-trial") from None
    if kind == "error":
        raise WorkerError(f"a replay worker failed: {payload}")
    return kind, payload


def _work(pipe: Connection) -> None:
    """A worker's loop: a trial's thresholds and shard in, its replays out, until told to stop."""
    memo, examples, recording, score = _FORKED
    for target in ("search", "web"):
        if getattr(memo, target) is not None:
            getattr(memo, target).redirect(lambda method, *args, _t=target: _ask(pipe, _t, method, args))
    while (task := pipe.recv()) is not None:
        thresholds, shard = task
        try:
            replayed = replay_at(memo, thresholds, [examples[i] for i in shard], recording, score)
        except Exception as error:  # noqa: BLE001 - the job reports it in one line and stops
            pipe.send(("error", f"{type(error).__name__}: {error}"))
            continue
        pipe.send(("done", dict(zip(shard, replayed))))


def _ask(pipe: Connection, target: str, method: str, args: tuple):
    pipe.send(("ask", (target, method, args)))
    outcome, value = pipe.recv()
    if outcome == "raise":
        raise value
    return value
