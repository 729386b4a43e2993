"""One MLflow trace per question, built from its record when it finishes, linked to the eval's run.

The loop's own trace (`program.contract.result.Trace`) already holds every decision with its duration and
LM tokens, so the MLflow trace is drawn from it, not from live instrumentation: a question that
was resumed, replayed or timed out gets the same shape. The spans, in time order:

    <system> (AGENT): the question in, the answer, short answer and scores out
      gate: <action> (CHAIN): the rule, its reason and the signals the gate read
        retrieval (RETRIEVER): the queries, the top scores and how many passages were new
        lm: <action> (LLM): the LM calls, prompt and completion tokens

MLflow's GenAI view (the experiment's Traces tab) lists them, searchable by `gatedrag.qid` and
`gatedrag.system` tags. Records are redacted before they reach here. This module neither runs
nor scores anything.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import mlflow
from mlflow.entities import SpanType
from mlflow.entities.span import LiveSpan

from optimize.eval.records import Record
from program.contract.result import Step

TRACES = "traces.jsonl"  # in an eval's run folder: which trace is each question's, for the report's links
UI = "http://127.0.0.1:5000"  # where `mlflow ui` serves by default
RETRIEVAL = {"seed", "retrieve", "expand_locality", "query_docs", "search_web", "expand_breadth"}
SOURCE_RUN = "mlflow.sourceRun"  # the trace metadata key MLflow links a trace to its run by


def log_question_trace(record: Record, experiment_id: str, run_id: str) -> str:
    """Log `record`'s trace, ending now and lasting its measured seconds; the trace id."""
    end_ns = time.time_ns()
    start_ns = end_ns - int(record.seconds * 1e9)
    root = mlflow.start_span_no_context(
        record.system, span_type=SpanType.AGENT, experiment_id=experiment_id, start_time_ns=start_ns,
        inputs={"question": record.question, "qid": record.qid}, metadata={SOURCE_RUN: run_id},
        tags={"gatedrag.qid": record.qid, "gatedrag.system": record.system, "gatedrag.status": record.status})
    at = start_ns
    for step in record.result.trace.steps if record.result else []:
        at = _step_spans(root, step, at, min(end_ns, at + int(step.duration_s * 1e9)))
    result = record.result
    root.set_outputs({"answer": result.answer if result else "", "short_answer": result.short_answer if result else "",
                      "gold": record.gold, "status": record.status, "error": record.error,
                      "scores": record.scores.model_dump(exclude_none=True)})
    root.end(end_time_ns=end_ns)
    return root.trace_id


def remember_trace(folder: Path, record: Record, trace_id: str, experiment_id: str) -> None:
    """Note which trace is the record's, so a report written after a resume still links it."""
    line = {"system": record.system, "qid": record.qid, "trace_id": trace_id, "experiment_id": experiment_id}
    with (folder / TRACES).open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def trace_urls(folder: Path) -> dict[tuple[str, str], str]:
    """(system, qid) -> the `mlflow ui` address of its latest trace; a torn last line is skipped."""
    urls = {}
    path = folder / TRACES
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        try:
            t = json.loads(line)
            urls[(t["system"], t["qid"])] = f"{UI}/#/experiments/{t['experiment_id']}/traces?selectedEvaluationId={t['trace_id']}"
        except (ValueError, KeyError, TypeError):
            continue
    return urls


def _step_spans(root: LiveSpan, step: Step, start_ns: int, end_ns: int) -> int:
    """The gate's decision, and under it the retrieval or LM work it caused; returns when it ended."""
    gate = mlflow.start_span_no_context(f"gate: {step.action}", span_type=SpanType.CHAIN, parent_span=root,
                                        start_time_ns=start_ns, inputs={"signals": step.signals},
                                        attributes={"rule": step.rule, "reason": step.reason})
    if step.action in RETRIEVAL:
        work = mlflow.start_span_no_context("retrieval", span_type=SpanType.RETRIEVER, parent_span=gate,
                                            start_time_ns=start_ns, inputs={"queries": step.queries})
        work.set_outputs({"top_scores": step.top_scores, "new_passages": step.new_passages})
        work.end(end_time_ns=end_ns)
    if step.lm.calls:
        call = mlflow.start_span_no_context(f"lm: {step.action}", span_type=SpanType.LLM, parent_span=gate,
                                            start_time_ns=start_ns,
                                            attributes={"calls": step.lm.calls, "prompt_tokens": step.lm.prompt,
                                                        "completion_tokens": step.lm.completion})
        call.end(end_time_ns=end_ns)
    gate.set_outputs({"action": step.action, "warnings": step.warnings})
    gate.end(end_time_ns=end_ns)
    return end_ns
