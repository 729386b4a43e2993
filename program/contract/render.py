"""Human-readable rendering of a Result: the answer, its citations and the decision trace."""

from __future__ import annotations

import textwrap

from program.contract.result import Acceptance, CodeCheck, ExpansionStep, Result, Step


def render_result(result: Result) -> str:
    short = "(abstained: the evidence does not hold the answer)" if result.abstained else result.short_answer
    lines = [f"short answer: {short}", result.answer, "",
             f"confidence {result.confidence}/100 · ended: {result.trace.ended}"]
    if result.standalone_question:
        lines[:0] = [f"follow-up read as: {result.standalone_question}"]
    if result.acceptance:
        lines.append(_render_acceptance(result.acceptance))
    if result.citations:
        lines += ["", "Citations:"]
        for c in result.citations:
            lines.append(f"  [{c.n}] {c.title} ({c.source}) {c.origin or c.url}")
            lines.append(textwrap.indent(textwrap.fill(c.quote, 96), "      "))
    if result.expansion_steps:
        lines += ["", "Traversal:"] + render_traversal(result.expansion_steps)
    lines += ["", "Trace:"] + [_render_step(i, s) for i, s in enumerate(result.trace.steps, 1)]
    r, t = result.trace.resources, result.timing
    lines += ["", f"LM: {r.lm.calls} calls, {r.lm.prompt} prompt + {r.lm.completion} completion tokens · "
              f"doc queries {r.doc_queries} · web searches {r.web_searches}",
              f"time: total {t.total_s:.1f}s (decompose {t.decompose_s:.1f}s, LM {t.lm_s:.1f}s, "
              f"retrieval {t.retrieval_s:.2f}s, web {t.web_s:.2f}s)"]
    if result.code_blocks:
        lines += ["", "Code blocks: " + ", ".join(_render_code_check(c) for c in result.code_blocks)]
    if result.warnings:
        lines += ["", "Warnings:"] + [f"  - {w}" for w in result.warnings]
    return "\n".join(lines)


def render_traversal(steps: list[ExpansionStep]) -> list[str]:
    """The pages breadth expansion reached, as a tree under the seed: each page under the page whose
    link led to it, with its round, score and status; a parent path of the seed hangs from the seed."""
    seed = steps[0]
    children: dict[str, list[ExpansionStep]] = {}
    for step in steps[1:]:
        children.setdefault(step.parent or seed.url, []).append(step)
    return [f"  {seed.url} (seed{', failed: ' + seed.reason if seed.reason else ''})", *_branches(seed.url, children, "  ")]


def _branches(url: str, children: dict[str, list[ExpansionStep]], indent: str) -> list[str]:
    lines, below = [], children.get(url, [])
    for i, step in enumerate(below):
        last = i == len(below) - 1
        why = f": {step.reason}" if step.reason else ""
        lines.append(f"{indent}{'└─' if last else '├─'} {step.url}  round {step.round} · score {step.score:.2f} · "
                     f"{step.status}{why}")
        if step.status == "fetched":
            lines += _branches(step.url, children, indent + ("   " if last else "│  "))
    return lines


def _render_acceptance(a: Acceptance) -> str:
    after = f" -> {a.score_after:.2f} ({'kept' if a.repaired else 'not kept'})" if a.score_after is not None else ""
    verdict = "accepted" if a.accepted else "under"
    line = f"score {a.score_before:.2f}{after} · {verdict} at {a.threshold:.2f} · factuality {a.factuality.score:.2f}"
    return line + (f" · still fails: {'; '.join(a.failed_after)}" if a.failed_after else "")


def _render_code_check(check: CodeCheck) -> str:
    status = "repaired" if check.repaired else check.status
    return f"{check.block} {check.language or '(no language)'} {status}"


def _render_step(i: int, step: Step) -> str:
    head = f"  {i}. {step.action:<15} {step.duration_s:5.1f}s  {step.lm.prompt:>5} prompt tok"
    rule = f"[{step.rule}] " if step.rule else ""
    details = [rule + step.reason] if step.reason or rule else []
    if step.signals:
        details.append("signals: " + ", ".join(f"{k} {v:g}" for k, v in step.signals.items()))
    if step.queries:
        details.append("queries: " + " | ".join(step.queries))
    if step.short_answer is not None:
        wrote = f" (the LM wrote {step.lm_short_answer!r})" if step.lm_short_answer is not None else ""
        details.append(f"short answer: {step.short_answer!r}{wrote}")
    if step.top_scores:
        details.append(f"top scores {step.top_scores}, {step.new_passages} new passages")
    if step.score_before is not None:
        after = f" -> {step.score_after:.2f}" if step.score_after is not None else ""
        details.append(f"score {step.score_before:.2f}{after}" + (f"; failed: {'; '.join(step.failed)}" if step.failed else ""))
    return "\n".join([head] + [f"       {d}" for d in details])
