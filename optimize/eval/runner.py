"""Run one system over examples on a few threads, writing each outcome to the log as it lands.

Examples already in the log for this system are skipped, so re-running resumes. Each example
gets `time_limit_s` (the loop cancels its LM call in flight and returns its draft) and a hard
deadline 10% later (`HARD_FACTOR`, at least `HARD_GRACE_S`): a program still running then is
recorded as a timeout, scored as no answer, and its thread left to finish unheard. Such a thread
holds no LM slot: each LM call of the loop ends at the time limit, and none starts after it.
Scoring is not timed against the deadline. Exceptions are recorded as errors. Nothing is
dropped. With `hide_gold`, each example runs on a copy of the program whose searches never
return that example's gold paragraphs. This module does not choose systems, build reports or
log to MLflow.
"""

from __future__ import annotations

import contextvars
import copy
import queue
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Callable

import dspy
from tqdm import tqdm

from metrics import Scorecard
from metrics.gold_sources import source_matches
from optimize.eval.records import Record, RecordLog
from program.contract.result import Result, Timing

Score = Callable[[dspy.Example, dspy.Prediction], Scorecard]
HARD_FACTOR = 1.1
HARD_GRACE_S = 1.0  # a small limit still leaves the loop this long to hand back its draft
POLL_S = 0.5


@dataclass
class _Job:
    example: dspy.Example
    started: float
    answered: threading.Event  # the program returned; only scoring is left


@dataclass
class _Crash:
    """An example whose program or scoring raised; the main thread records it as an error."""
    example: dspy.Example
    error: str
    seconds: float

    @property
    def qid(self) -> str:
        return self.example.qid


def run_examples(program: dspy.Module, examples: list[dspy.Example], system: str, log: RecordLog, score: Score,
                 threads: int = 1, time_limit_s: float | None = None, progress: bool = True,
                 hide_gold: bool = False, finished: Callable[[Record], object] = lambda record: None,
                 cold_start: Callable[[], object] = lambda: None) -> list[Record]:
    """Every example's record for `system`, in example order: resumed from the log or run now.
    `cold_start` runs once before any example runs (it empties the LM's prompt cache, so that no
    system is timed on prompts another one computed); `finished` sees each record run now, as written."""
    wanted = {e.qid for e in examples}
    records = {r.qid: r for r in log.read() if r.system == system and r.qid in wanted}
    todo = still_to_run(examples, records, cold_start)
    hard_s = max(time_limit_s * HARD_FACTOR, time_limit_s + HARD_GRACE_S) if time_limit_s else None
    # a system whose questions all resumed from the log gets no bar: a full one would say it just ran them
    with tqdm(total=len(examples), initial=len(records), desc=system, disable=not progress or not todo,
              unit="q") as bar:
        for record in _run(program, todo, system, score, threads, time_limit_s, hard_s, hide_gold):
            records[record.qid] = log.append(record)  # as written: redacted
            finished(records[record.qid])
            bar.update()
            bar.set_postfix_str(postfix(list(records.values())))
    return [records[e.qid] for e in examples]


def still_to_run(examples: list, finished, cold_start: Callable[[], object]) -> list:
    """The examples whose qid is not in `finished`, in order; when there are any, `cold_start` runs
    first, once, so that a run is timed from an empty prompt cache but a finished one pays nothing."""
    todo = [e for e in examples if e.qid not in finished]
    if todo:
        cold_start()
    return todo


def _run(program, todo, system, score, threads, time_limit_s, hard_s, hide_gold):
    """Yield records as examples finish, at most `threads` at a time, on daemon threads: a
    given-up example must neither block the others nor keep the process alive at exit."""
    done: queue.Queue = queue.Queue()  # Record or _Crash
    waiting, running = list(reversed(todo)), {}
    while waiting or running:
        while waiting and len(running) < threads:
            example = waiting.pop()
            job = running[example.qid] = _Job(example, time.perf_counter(), threading.Event())
            # subtle: DSPy's settings (LM, adapter, usage tracking) live in context variables;
            # a copy of this thread's context gives the worker the same ones, as ParallelExecutor does.
            work = contextvars.copy_context().run
            runs = without_gold(program, example.gold_sources) if hide_gold else program
            threading.Thread(target=work, args=(_attempt, runs, job, system, score, time_limit_s, done),
                             daemon=True).start()
        try:
            outcome = done.get(timeout=POLL_S)
        except queue.Empty:
            outcome = None
        # subtle: a late result of a given-up example is no longer running; its timeout is recorded
        if outcome is not None and running.pop(outcome.qid, None) is not None:
            crashed = isinstance(outcome, _Crash)
            yield _failed(outcome.example, system, "error", outcome.error, outcome.seconds, score) if crashed else outcome
        for qid in _overdue(running, hard_s):
            yield _gave_up(running.pop(qid), system, score)


def without_gold(program: dspy.Module, sources: list[str]) -> dspy.Module:
    """A copy of `program` whose index search, and offline web search if any, never return the
    documents the gold sources name: by title, or by a path or URL that ends where a document
    came from (AWS's `guide/doc_source/page.md`), each resolved to the titles to filter out.

    The deep copy is cheap: searches and web backends share themselves instead of copying.
    A Tavily backend has no search to filter and stays as it is."""
    hidden = copy.deepcopy(program)
    hidden.search = hidden.search.excluding(_titles_named(hidden.search, sources))
    if hasattr(hidden.web, "excluding"):
        hidden.web = hidden.web.excluding(_titles_named(hidden.web, sources))
    return hidden


def _titles_named(search, sources: list[str]) -> list[str]:
    """The sources themselves (titles hide as they are) and the titles of the documents they name."""
    finder = getattr(search, "titles_where", None)
    named = finder(lambda title, places: any(source_matches(g, title, places) for g in sources)) if finder else []
    return list(dict.fromkeys([*sources, *named]))


def _overdue(running: dict[str, _Job], hard_s: float | None) -> list[str]:
    now = time.perf_counter()
    return [qid for qid, job in running.items()
            if hard_s is not None and not job.answered.is_set() and now - job.started > hard_s]


def _attempt(program, job: _Job, system, score, time_limit_s, done: queue.Queue) -> None:
    started, example = time.perf_counter(), job.example
    try:
        pred = program(question=example.question, time_limit_s=time_limit_s)
        seconds = time.perf_counter() - started
        job.answered.set()
        status, error = _status(pred.result, seconds, time_limit_s)
        done.put(_record(example, system, status, error, seconds, score(example, pred), pred.result))
    except Exception as exc:  # noqa: BLE001 - one broken example must not end the run
        done.put(_Crash(example, f"{type(exc).__name__}: {exc}", time.perf_counter() - started))


def _status(result: Result, seconds: float, time_limit_s: float | None) -> tuple[str, str]:
    if result.trace.ended == "error":
        return "error", "; ".join(result.warnings) or "the program ended with an error"
    if time_limit_s is not None and seconds > time_limit_s:
        return "timeout", f"over the {time_limit_s:g} s limit: the draft at that point was scored"
    return "ok", ""


def _gave_up(job: _Job, system: str, score: Score) -> Record:
    seconds = time.perf_counter() - job.started
    return _failed(job.example, system, "timeout", f"still running after {seconds:.0f} s: given up, scored as no answer",
                   seconds, score)


def _failed(example, system, status, error, seconds, score) -> Record:
    """A record scored as no answer, so means over a split count the failure instead of skipping it."""
    empty = Result(question=example.question, answer="", timing=Timing(total_s=round(seconds, 3)))
    pred = dspy.Prediction(answer="", result=empty, evidence=[])
    return _record(example, system, status, error, seconds, score(example, pred), None)


def postfix(records: list[Record]) -> str:
    """Running means for the progress bar: what a person watches to decide whether to stop early."""
    def mean(name: str) -> float:  # a metric that does not apply (None) is left out
        values = [v for r in records if (v := getattr(r.scores, name)) is not None]
        return statistics.fmean(values) if values else float("nan")

    return (f"f1={mean('f1'):.2f} ev_recall={mean('evidence_recall'):.2f} cite_recall={mean('citation_recall'):.2f} "
            f"p50={statistics.median(r.seconds for r in records):.1f}s")


def _record(example, system, status, error, seconds, scores, result) -> Record:
    return Record(qid=example.qid, system=system, status=status, error=error, question=example.question,
                  gold=example.answer, answerable=example.answerable, hotpot_type=example.hotpot_type,
                  holdout_title=example.holdout_title,
                  seconds=round(seconds, 3), scores=scores, result=result)
