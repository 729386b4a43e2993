"""One eval run: each system over the examples, then the report, summary and MLflow logs.

The caller brings ready programs, a scorer and a configured DSPy LM (see `optimize.cli`), so
this recipe runs the same under a fake program in tests. Finished examples are in
results.jsonl the moment they finish; an interrupted run resumes from there, says on stderr
what it recovered, and keeps that in summary.json (`recovered`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import dspy

from optimize.durable import write_atomic
from optimize.eval.question_traces import trace_urls
from optimize.eval.records import Record, RecordLog, recovery_of
from optimize.eval.report import write_report
from optimize.eval.run_config import EvalConfig
from optimize.eval.runner import Score, run_examples
from optimize.eval.summary import RunSummary, summarize
from optimize.eval.tracking import tracked_run
from program.base.settings import Settings

RESULTS = "results.jsonl"


def run_eval(config: EvalConfig, settings: Settings, folder: Path, programs: dict[str, dspy.Module],
             examples: list[dspy.Example], score: Score, threads: int = 1, params: dict | None = None,
             progress: bool = True, announce: bool = True, cold_start: Callable[[], object] = lambda: None,
             finished: Callable[[Record], object] = lambda record: None) -> RunSummary:
    """Run each program over `examples`, resuming from the folder's log, each after `cold_start`
    (see `run_examples`); `finished` sees each record run now, after its trace is logged. `announce` says what a resume kept, on stderr; a caller that seeded the
    log itself says what it seeded instead."""
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / "config.json", config.model_dump_json(indent=2))
    log = RecordLog(folder / RESULTS)
    recovery = recovery_of(log, announce)
    with tracked_run(settings, folder, config.model_dump() | (params or {})) as tracking:
        records: list[Record] = []
        for name, program in programs.items():
            records += run_examples(program, examples, name, log, score, threads, config.time_limit_s, progress,
                                    hide_gold=config.hide_gold,
                                    finished=lambda r: (tracking.log_trace(r, folder), finished(r)),
                                    cold_start=cold_start)
        _trace_untraced(records, folder, tracking)
        summary = summarize(records, config.run_id, split=config.split, dataset=config.dataset,
                            program=config.program, profile=config.profile, model=config.model, judge=config.judge,
                            web=config.web, web_note=config.web_note, hide_gold=config.hide_gold,
                            collection=config.collection, recovered=recovery)
        written = write_report(records, summary, folder, trace_urls(folder))
        tracking.log_summary(summary)
        tracking.log_files([*written, log.path], folder)
    return summary


def _trace_untraced(records: list[Record], folder: Path, tracking) -> None:
    """Log the trace of each record that has none noted: a kill between a question's results line
    and its trace's would otherwise leave it without one for good, since a resume never runs a
    finished question again."""
    traced = trace_urls(folder)
    for record in records:
        if (record.system, record.qid) not in traced:
            tracking.log_trace(record, folder)
