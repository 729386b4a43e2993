"""The report: all systems side by side, plots embedded in the HTML and written beside the Markdown."""

from optimize.records import RecordLog
from optimize.report import write_report
from optimize.runner import run_examples
from optimize.summary import RunSummary, summarize
from tests.optimize.conftest import GOLD, FakeProgram, examples, score

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
    assert {p.name for p in written} >= {"report.md", "report.html", "summary.json", "latency.png", "metrics.png", "actions.png"}
    markdown, html = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    for system in SYSTEMS:
        assert f"| {system}" in markdown or f"{system} |" in markdown
        assert system in html
    assert RunSummary.model_validate_json((tmp_path / "summary.json").read_text()) == summary


def test_plots_are_pngs_linked_from_the_markdown_and_inlined_in_the_html(tmp_path):
    make_report(tmp_path)
    markdown, html = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    for name in ("metrics", "latency", "actions"):
        assert (tmp_path / "plots" / f"{name}.png").read_bytes().startswith(b"\x89PNG")
        assert f"(plots/{name}.png)" in markdown
    assert html.count("src='data:image/png;base64,") == 3 and "plots/" not in html


def test_worst_examples_show_their_trace_and_errors(tmp_path):
    make_report(tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    assert "## Worst examples" in markdown and "fake retrieve" in markdown
    assert "the fake program broke" in markdown and "Web-holdout" in markdown and "By question type" in markdown
