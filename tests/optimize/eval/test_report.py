"""The report: all systems side by side, plots embedded in the HTML and written beside the Markdown."""

import re

import dspy

from optimize.eval.example_schema import make_example
from optimize.eval.records import RecordLog
from optimize.eval.report import write_report
from optimize.eval.runner import run_examples
from optimize.eval.summary import RunSummary, summarize
from program.contract.result import Result, Timing
from program.thresholds import Thresholds
from tests.optimize.conftest import GOLD, HAND, FakeProgram, examples, score

SYSTEMS = ("gated", "single_pass", "fixed_hops")


def make_report(tmp_path):
    log = RecordLog(tmp_path / "results.jsonl")
    records = []
    for system, program in zip(SYSTEMS, [FakeProgram(), FakeProgram(answers={GOLD["q1"][0]: "nobody"}),
                                         FakeProgram(fail=GOLD["q3"][0])]):
        records += run_examples(program, examples(), system, log, score, progress=False)
    summary = summarize(records, "eval-smoke-x", split="smoke", dataset="hotpotqa", program="uncompiled",
                        profile="local", model="qwen", judge="lexical")
    return write_report(records, summary, tmp_path), summary


def test_the_report_files_are_written_with_every_system(tmp_path):
    written, summary = make_report(tmp_path)
    assert {p.name for p in written} >= {"report.md", "report.html", "summary.json", "latency.png", "metrics.png", "actions.png",
                                        "reliability.png"}
    markdown, html = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    for system in SYSTEMS:
        assert f"| {system}" in markdown or f"{system} |" in markdown
        assert system in html
    assert RunSummary.model_validate_json((tmp_path / "summary.json").read_text()) == summary


def test_plots_are_pngs_linked_from_the_markdown_and_inlined_in_the_html(tmp_path):
    make_report(tmp_path)
    markdown, html = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    for name in ("metrics", "latency", "actions", "reliability", "risk_coverage"):
        assert (tmp_path / "plots" / f"{name}.png").read_bytes().startswith(b"\x89PNG")
        assert f"(plots/{name}.png)" in markdown
    assert html.count("src='data:image/png;base64,") == 5 and "plots/" not in html


def test_worst_examples_show_their_trace_and_errors(tmp_path):
    make_report(tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    assert "## Worst examples" in markdown and "fake retrieve" in markdown
    assert "the fake program broke" in markdown and "Web-holdout" in markdown and "By question type" in markdown


def test_the_overall_table_leads_with_abstention_cost_and_web_use_and_rules_are_tallied(tmp_path):
    summary = summarize(HAND, "eval-smoke-y", split="smoke", dataset="hotpotqa", program="uncompiled", profile="local",
                        model="qwen", judge="lexical", web="none", hide_gold=True)
    write_report(HAND, summary, tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    overall = markdown.split("## Overall")[1].split("## Other metrics")[0]
    # counts to the decimals they are read at, rates to three
    for row in ("| abstention rate | 0.400", "| LM calls / question | 4.00 [", "| prompt tokens / question | 900 [",
                "| web precision (holdout) | 0.67 (2/3) |", "| web recall (holdout) | 0.67 (2/3) |"):
        assert row in overall
    assert "| gate rule | gated |" in markdown and "| covered_with_cliff | 2 (0.40/q) |" in markdown
    assert "web none; each question's gold paragraphs hidden from retrieval" in markdown
    other = markdown.split("## Other metrics")[1]
    assert "| answer coverage | 0." in other
    assert re.search(r"\| completion tokens / question \| \d+ \[\d+, \d+\] \|", other)  # whole tokens


def test_a_report_without_gate_rules_says_so(tmp_path):
    make_report(tmp_path)
    assert "No gate rule was recorded" in (tmp_path / "report.md").read_text()


def test_the_header_names_the_collection_and_a_web_a_key_chose(tmp_path):
    note = "web: Tavily, because TAVILY_API_KEY is set (GATEDRAG_WEB_BACKEND=offline or none chooses otherwise)"
    summary = summarize(HAND, "eval-dev-z", split="dev", dataset="aws_docs", program="uncompiled", profile="local",
                        model="qwen", judge="lexical", web="tavily", web_note=note, collection="aws_docs")
    write_report(HAND, summary, tmp_path)
    assert f"; collection aws_docs; web tavily ({note})" in (tmp_path / "report.md").read_text()


def test_the_confidence_section_gives_each_systems_ece_and_auroc(tmp_path):
    _, summary = make_report(tmp_path)
    confidence = (tmp_path / "report.md").read_text().split("## Confidence")[1].split("## Web-holdout")[0]
    # no judge ran and no similarity was measured, so each cited answer reports the medium-quality prior, 45:
    # gated is right on all 3, so its ECE is 1 - 0.45, and there is no wrong answer to rank against
    gated = summary.systems[0].calibration
    assert (gated.n, gated.right, gated.auroc) == (3, 3, None) and abs(gated.ece - 0.55) < 1e-9
    assert "| gated | 3 | 3 | 0.550 | – |" in confidence and "(plots/reliability.png)" in confidence
    # fixed_hops' broken question has no result: no confidence to judge
    assert summary.systems[2].calibration.n == 2


def test_a_users_dataset_gets_one_row_per_question_and_no_hotpotqa_section(tmp_path):

    users = [make_example("u1", GOLD["q1"][0], ["Richard Wallace"], GOLD["q1"][2]),
             make_example("u2", GOLD["q2"][0], [], GOLD["q2"][2], answerable=False),
             make_example("u3", GOLD["q3"][0], ["Santa Monica"], GOLD["q3"][2])]
    log, records = RecordLog(tmp_path / "results.jsonl"), []
    for system, program in (("gated", FakeProgram()), ("single_pass", FakeProgram(answers={GOLD["q1"][0]: "nobody"}))):
        records += run_examples(program, users, system, log, score, progress=False)
    summary = summarize(records, "eval-mine-dev", split="dev", dataset="mine.jsonl", program="uncompiled",
                        profile="local", model="qwen", judge="lexical")
    traces = {("gated", "u1"): "http://127.0.0.1:5000/#/experiments/1/traces?selectedEvaluationId=tr-1"}
    write_report(records, summary, tmp_path, traces)
    markdown, html = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    assert "Web-holdout" not in markdown and "By question type" not in markdown and "Gold: ." not in markdown
    table = markdown.split("## Every question")[1]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 3
    assert rows[0].startswith(f"| {GOLD['q1'][0]} | Richard Wallace | Richard Wallace [1]. | right | yes | "
                              "[trace](http://127.0.0.1")
    assert "| nobody [1]. | wrong | yes | – |" in rows[0]  # the gold passage was shown; the reader missed it
    assert "| (unanswerable) |" in rows[1] and "| wrong | – |" in rows[1]  # answering it is wrong
    assert "href='http://127.0.0.1:5000/#/experiments/1/traces?selectedEvaluationId=tr-1'" in html
    overall = markdown.split("## Overall")[1].split("## Other metrics")[0]
    assert "| latency p50, answered (s) |" in overall
    assert "white-space:pre-wrap" in html


def test_each_system_is_set_against_single_pass_with_a_verdict_a_user_can_act_on(tmp_path):
    """gated answers q1, which single pass gets wrong; fixed_hops gives up on q3: both are paired with single pass."""
    _, summary = make_report(tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    assert [a.system for a in summary.against] == ["gated", "fixed_hops"]
    assert "## Against single_pass" in markdown and "| gated | F1 | +0.333 |" in markdown
    assert markdown.index("## Against single_pass") < markdown.index("## Other metrics")
    assert "gated against single_pass, paired over 3 questions: F1 +0.333 [" in markdown


class Abstaining(dspy.Module):
    """Abstains on every question, with no evidence."""

    thresholds = Thresholds()

    def forward(self, question: str, time_limit_s: float | None = None) -> dspy.Prediction:
        r = Result(question=question, answer="I could not find the answer.", abstained=True, timing=Timing(total_s=0.01))
        return dspy.Prediction(answer=r.answer, result=r, evidence=[])


def test_right_wrong_abstained_net_right_and_risk_coverage_are_reported(tmp_path):
    """On 2 answerable questions and 1 unanswerable: gated is right on both answerable and answers the
    unanswerable one (wrong); abstaining everywhere is right only on the unanswerable one; single pass
    is wrong on q1 and on the unanswerable one."""
    users = [make_example("u1", GOLD["q1"][0], ["Richard Wallace"], GOLD["q1"][2]),
             make_example("u2", GOLD["q2"][0], [], GOLD["q2"][2], answerable=False),
             make_example("u3", GOLD["q3"][0], ["Santa Monica"], GOLD["q3"][2])]
    log, records = RecordLog(tmp_path / "results.jsonl"), []
    for system, program in (("gated", FakeProgram()), ("abstainer", Abstaining()),
                            ("single_pass", FakeProgram(answers={GOLD["q1"][0]: "nobody"}))):
        records += run_examples(program, users, system, log, score, progress=False)
    summary = summarize(records, "eval-mine-dev", split="dev", dataset="mine.jsonl", program="uncompiled",
                        profile="local", model="qwen", judge="lexical")
    write_report(records, summary, tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    section = markdown.split("## Right, wrong and abstained")[1].split("## Other metrics")[0]
    # every answer has the same confidence, so AURC is gated's wrong rate, 1 of 3; the abstainer answered none
    assert "| gated | 2 | 1 | 0 | 0.33 | 0.333 [" in section and "| 1.00 | 0.333 |" in section
    assert "| abstainer | 1 | 0 | 2 | – | 0.333 [0.000, 1.000] | 0.00 | – |" in section
    assert "| single_pass | 1 | 2 | 0 | 0.67 | -0.333 [" in section and "(plots/risk_coverage.png)" in section
    assert "| right / wrong / abstained | 2 / 1 / 0 | 1 / 0 / 2 | 1 / 2 / 0 |" in markdown
    assert "| gated | net right | +0.667 |" in markdown  # paired against single pass
    # the evidence shown held q1's gold passages; the abstainer was shown nothing
    in_evidence = {s.system: s.metrics["answer_in_evidence"].mean for s in summary.systems}
    assert in_evidence == {"gated": 1.0, "abstainer": 0.0, "single_pass": 1.0}
    back = RunSummary.model_validate_json((tmp_path / "summary.json").read_text())
    assert back.systems[0].outcomes == summary.systems[0].outcomes and back.systems[0].risk_coverage.aurc == 1 / 3
