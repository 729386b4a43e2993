"""optimize/eval/document.py: what a dataset carries into a report is text in both renderings, never HTML."""

from optimize.eval.document import Code, Figure, Heading, Link, Table, Text, to_html, to_markdown

HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)>"


def test_html_in_questions_and_answers_reaches_neither_file_raw():
    blocks = [Heading(HOSTILE), Text(HOSTILE), Table(["question", "answer"], [[HOSTILE, Link(HOSTILE, "http://x/")]]),
              Figure("a.png", b"", HOSTILE), Code(HOSTILE)]
    markdown, html = to_markdown(blocks, "plots"), to_html(blocks, HOSTILE)
    assert "<script" not in markdown and "<img" not in markdown and "&lt;script>" in markdown
    assert "<script" not in html and "<img src=x" not in html
    assert "EM 0->1" in to_markdown([Text("EM 0->1")], ".")  # arrows stay readable
