"""The eval report: all systems side by side, as report.md (+ plots/*.png), report.html and summary.json.

Sections: the headline metrics with 95% CIs (quality, net right, abstention, LM cost, latency over
all and over answered questions, web use against the holdout labels), each system against single
pass (paired differences and right answers a minute), right, wrong and abstained answers with the
risk-coverage curve (`optimize.eval.abstention_section`), the other metrics, latency, what
the loop did (actions, judge rounds, endings, gate rules), the confidence's calibration (ECE,
AUROC, reliability diagram), web-holdout vs local-only questions and HotpotQA's question types
(only where the dataset labels them), the worst examples with their traces, and one row per
question across the systems (its outcome, and whether the evidence shown held the answer), each
linked to its MLflow trace. `write_report` is the only entry
point; it reads records and a summary and writes files, nothing else.
"""

from __future__ import annotations

from pathlib import Path

from optimize.durable import write_atomic
from optimize.eval import plots
from optimize.eval.abstention_section import abstention_blocks
from optimize.eval.against_baseline import BASELINE, SHOWN_AS, Against, worth
from optimize.eval.document import (
    Block,
    Cell,
    Code,
    Figure,
    Heading,
    Link,
    Table,
    Text,
    number,
    to_html,
    to_markdown,
)
from metrics.net_right import outcome_of
from optimize.eval.records import Record
from optimize.eval.stats import Estimate, percentile
from optimize.eval.summary import (
    MAIN,
    METRICS,
    RunSummary,
    SystemSummary,
    digits,
    label,
)

FIGURES = "plots"
# the overall table's first rows, in this order; the other metrics follow in their own table
HEADLINE = (*MAIN, "net_right", "abstained", "lm_calls", "prompt_tokens")
QUESTION_CHARS = 90  # a question is cut to this in the per-question table; the trace has it whole
Traces = dict[tuple[str, str], str]  # (system, qid) -> the address of its MLflow trace


def write_report(records: list[Record], summary: RunSummary, folder: Path, traces: Traces | None = None) -> list[Path]:
    """Write the report files into `folder`; returns their paths. `traces` links questions to their MLflow traces."""
    blocks = report_blocks(records, summary, traces or {})
    (folder / FIGURES).mkdir(parents=True, exist_ok=True)
    written = []
    for figure in (b for b in blocks if isinstance(b, Figure)):
        write_atomic(folder / FIGURES / figure.name, figure.png)
        written.append(folder / FIGURES / figure.name)
    files = {"report.md": to_markdown(blocks, FIGURES), "report.html": to_html(blocks, f"gatedrag eval {summary.run_id}"),
             "summary.json": summary.model_dump_json(indent=2)}
    for name, text in files.items():
        write_atomic(folder / name, text)
        written.append(folder / name)
    return written


def report_blocks(records: list[Record], summary: RunSummary, traces: Traces) -> list[Block]:
    systems = summary.systems
    seconds = {s.system: [r.seconds for r in records if r.system == s.system] for s in systems}
    return [
        Heading(f"gatedrag eval: {summary.run_id}", 1),
        Text(f"{summary.dataset} {summary.split}, {systems[0].n if systems else 0} questions; program {summary.program}; "
             f"LM {summary.model} ({summary.profile}); support judge {summary.judge}{_conditions(summary)}. "
             "Means over all questions (timeouts and errors included, scored as what they returned) "
             "with 95% bootstrap confidence intervals."),
        Heading("Overall"), _overall(systems, records),
        Text("EM and F1 score the short answer against the best of the gold answers; an abstention scores as no "
             "answer. On an unanswerable question (the documents do not answer it) abstaining is correct: EM and F1 "
             "are 1 when the program abstained and 0 when it answered, and the evidence and citation metrics do not "
             "apply (left out of their means). Answer in evidence: the evidence as the reader was shown it "
             "(trimmed) holds every gold passage, or, where the gold names a page of several chunks or no source, a "
             "gold answer string; evidence recall counts gold sources shown, whole pages included. Net right: +1 "
             "right, -1 wrong, 0 abstained (below). Web precision: of the questions "
             "that searched the web, the share with a held-out gold paragraph; web recall: of the questions with a "
             "held-out gold paragraph, the share that searched the web."),
        Figure("metrics.png", plots.metrics_chart(summary), "main metrics per system, 95% CI"),
        *_against(summary.against),
        *abstention_blocks(systems),
        Heading("Other metrics"), _metrics_table([m for m in METRICS if m not in HEADLINE], systems),
        Heading("Latency"), Figure("latency.png", plots.latency_chart(seconds), "seconds per question, p50 and p95 marked"),
        Heading("What the loop did"),
        Figure("actions.png", plots.actions_chart(summary), "loop actions per question; questions by judge rounds"),
        _counts_table("ended", {s.system: s.ended for s in systems}),
        Heading("Gate rules", 3), _rules(systems),
        Heading("Confidence"), *_confidence(systems),
        *_labelled_slices(systems, records),
        Heading("Worst examples"), *[b for s in systems for b in _worst(s, records, traces)],
        Heading("Every question"), *_per_question(systems, records, traces),
    ]


def _against(against: list[Against]) -> list[Block]:
    """Each system against single pass, paired per question: is the loop worth its cost here?"""
    if not against:
        return []
    rows = [[a.system, SHOWN_AS.get(m, m), f"{d.mean:+.3f}", f"[{d.low:+.3f}, {d.high:+.3f}]", str(d.n)]
            for a in against for m, d in a.deltas.items()]
    rows += [[a.system, "right answers a minute", f"{a.right_a_minute:.2f} against {a.baseline_right_a_minute:.2f}",
              "", str(a.questions)] for a in against]
    return [Heading(f"Against {BASELINE}"),
            Text(f"Each system minus {BASELINE} over the questions both finished, with paired bootstrap 95% "
                 "intervals; right answers a minute: answers right (as below) per minute of the system's wall time."),
            Table(["system", "metric", "difference", "95% CI", "questions"], rows),
            *[Text(worth(a)) for a in against]]


def _conditions(summary: RunSummary) -> str:
    """The run's retrieval conditions, for the header: the web backend, and whether gold was hidden."""
    web = f"; web {summary.web}" if summary.web else ""
    web += f" ({summary.web_note})" if summary.web_note else ""
    web = (f"; collection {summary.collection}" if summary.collection else "") + web
    return web + ("; each question's gold paragraphs hidden from retrieval" if summary.hide_gold else "")


def _overall(systems: list[SystemSummary], records: list[Record]) -> Table:
    table = _metrics_table([m for m in HEADLINE if m in METRICS], systems)
    # subtle: a refusal with no LM call takes no time, so over all questions a system that refuses
    # often looks fast; the answered questions' latency is what a user waits for an answer
    answered = {s.system: [r.seconds for r in records if r.system == s.system and _answered(r)] for s in systems}
    table.rows += [["latency p50 (s)", *(f"{s.latency_p50_s:.1f}" for s in systems)],
                   ["latency p95 (s)", *(f"{s.latency_p95_s:.1f}" for s in systems)],
                   ["latency p50, answered (s)", *(number(_p(answered[s.system], 50), 1) for s in systems)],
                   ["latency p95, answered (s)", *(number(_p(answered[s.system], 95), 1) for s in systems)],
                   ["right / wrong / abstained", *(str(s.outcomes) if s.outcomes else "–" for s in systems)],
                   ["abstention rate, answerable", *(str(s.abstained_answerable) for s in systems)],
                   ["abstention rate, unanswerable", *(str(s.abstained_unanswerable) for s in systems)],
                   ["web precision (holdout)", *(str(s.web_precision) for s in systems)],
                   ["web recall (holdout)", *(str(s.web_recall) for s in systems)],
                   ["status", *(", ".join(f"{k} {v}" for k, v in s.status.items()) for s in systems)]]
    return table


def _answered(record: Record) -> bool:
    return record.result is not None and not record.result.abstained and record.status == "ok"


def _p(values: list[float], q: float) -> float | None:
    return percentile(values, q) if values else None


def _metrics_table(names: list[str], systems: list[SystemSummary]) -> Table:
    rows = [[label(m), *(s.metrics[m].shown(digits(m)) if s.metrics[m].n else "–" for s in systems)]
            for m in names]
    return Table(["metric", *(s.system for s in systems)], rows)


def _rules(systems: list[SystemSummary]) -> Block:
    """Steps each gate rule chose, with the count per question."""
    if not any(s.rules for s in systems):
        return Text("No gate rule was recorded (baselines, and results from before rules were traced, have none).")
    return _counts_table("gate rule", {s.system: {rule: f"{k} ({k / s.n:.2f}/q)" for rule, k in s.rules.items()}
                                       for s in systems})


def _confidence(systems: list[SystemSummary]) -> list[Block]:
    """Does the reported confidence (0-100, as an agent reads it) predict right answers?"""
    measured = {s.system: s.calibration for s in systems if s.calibration is not None}
    if not measured:
        return [Text("No question returned a result, so no confidence was reported.")]
    rows = [[name, str(c.n), str(c.right), number(c.ece), number(c.auroc)] for name, c in measured.items()]
    return [Text("Right: short-answer F1 of at least 0.5 (on an unanswerable question, an abstention). ECE: the "
                 "mean gap between confidence and the share right, over 10 equal-width confidence bins weighted by "
                 "their counts (0 is calibrated). AUROC: the chance that a right answer has the higher confidence "
                 "of a right-wrong pair (0.5 is chance). Questions given up report no confidence and are left out."),
            Table(["system", "questions", "right", "ECE", "AUROC"], rows),
            Figure("reliability.png", plots.reliability_chart(measured), "share right per confidence bin, with counts")]


def _counts_table(label: str, counts: dict[str, dict[str, int | str]]) -> Table:
    keys = list(dict.fromkeys(k for c in counts.values() for k in c))
    return Table([label, *counts], [[k, *(str(c.get(k, 0)) for c in counts.values())] for k in keys])


def _slice_table(label: str, slices: dict[str, dict[str, dict[str, Estimate]]]) -> Table:
    rows = [[system, name, str(next(iter(means.values())).n), *(f"{means[m].mean:.3f}" for m in MAIN)]
            for system, by_name in slices.items() for name, means in by_name.items()]
    return Table(["system", label, "n", *MAIN], rows)


def _labelled_slices(systems: list[SystemSummary], records: list[Record]) -> list[Block]:
    """The HotpotQA-labelled slices, only for a dataset that labels its questions so."""
    blocks: list[Block] = []
    if any(r.holdout_title for r in records):
        blocks += [Heading("Web-holdout vs local-only questions"),
                   Text("A web-holdout question has one gold paragraph kept out of the local index: only a web "
                        "search finds it."),
                   _slice_table("questions", {s.system: s.by_holdout for s in systems})]
    if any(r.hotpot_type for r in records):
        blocks += [Heading("By question type"),
                   Text("HotpotQA's type (bridge, comparison) where known, else the type the program gave the question."),
                   _slice_table("type", {s.system: s.by_type for s in systems})]
    return blocks


def _worst(system: SystemSummary, records: list[Record], traces: Traces) -> list[Block]:
    by_qid = {r.qid: r for r in records if r.system == system.system}
    blocks: list[Block] = [Heading(system.system, 3)]
    for record in (by_qid[q] for q in system.worst):
        blocks += [Text(f"{record.qid} [{record.status}] composite {record.scores.composite:.2f}. "
                        f"Q: {record.question} Gold: {_gold(record)}.{_short_answer(record)} Answer: "
                        f"{record.answer or '(none)'}" + (f" Error: {record.error}" if record.error else "")
                        + (f" MLflow trace: {traces[(record.system, record.qid)]}" if (record.system, record.qid) in traces
                           else "")),
                   Code(_trace(record))]
    return blocks


def _per_question(systems: list[SystemSummary], records: list[Record], traces: Traces) -> list[Block]:
    """One row per question: its gold, and each system's short answer, its outcome, whether the evidence
    shown held the answer, and its trace."""
    by_key = {(r.system, r.qid): r for r in records}
    qids = list(dict.fromkeys(r.qid for r in records))
    first = {r.qid: r for r in reversed(records)}
    headers = ["question", "gold", *(h for s in systems for h in (s.system, "outcome", "in evidence", "trace"))]
    rows = [[_cut(first[q].question), _gold(first[q]), *(c for s in systems for c in _cells(by_key.get((s.system, q)), traces))]
            for q in qids]
    return [Text("Outcome: right (short-answer F1 of at least 0.5, or an abstention on an unanswerable question), "
                 "wrong or abstained. In evidence: the evidence shown held the answer (– where it does not apply). "
                 "Each trace "
                 "link opens the question in `mlflow ui` (started on its default address, over this data dir's store)."),
            Table(headers, rows)]


def _cells(record: Record | None, traces: Traces) -> list[Cell]:
    if record is None:
        return ["–", "–", "–", "–"]
    answer = "(abstained)" if record.result and record.result.abstained else (
        record.result.short_answer or record.answer if record.result else f"({record.status})")
    url = traces.get((record.system, record.qid))
    held = record.scores.answer_in_evidence
    return [_cut(answer), _outcome(record), "–" if held is None else "yes" if held else "no",
            Link("trace", url) if url else "–"]


def _outcome(record: Record) -> str:
    """Right, wrong or abstained; a record scored before net right was kept says only right or not."""
    net = record.scores.net_right
    return str(outcome_of(net)) if net is not None else "right" if record.right else "not right"


def _gold(record: Record) -> str:
    return record.gold if record.answerable else "(unanswerable)"


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= QUESTION_CHARS else text[:QUESTION_CHARS - 1] + "…"


def _short_answer(record: Record) -> str:
    if record.result is None:
        return ""
    if record.result.abstained:
        return " Abstained."
    return f" Short answer: {record.result.short_answer}." if record.result.short_answer else ""


def _trace(record: Record) -> str:
    if record.result is None:
        return "(no trace: the example was given up)"
    lines = [f"{s.action:<15} {s.duration_s:>6.1f}s  {s.reason}" + (f"  [rule {s.rule}]" if s.rule else "")
             + (f"\n{'':<24}queries: {s.queries}" if s.queries else "")
             + (f"  top scores: {s.top_scores}" if s.top_scores else "") for s in record.result.trace.steps]
    return "\n".join(lines + [f"ended: {record.result.trace.ended}; feedback: {record.scores.feedback}"])
