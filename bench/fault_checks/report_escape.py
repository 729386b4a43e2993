"""A dataset whose question and answer carry `<script>` and `<img onerror>`, written into an eval report.

Figure: raw tags in report.md and report.html (bar: 0).
"""

from __future__ import annotations

from fault_checks.figure import Figure
from optimize.eval.document import Heading, Table, Text, to_html, to_markdown

HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)>"


def run(quick: bool) -> list[Figure]:
    blocks = [Heading(HOSTILE), Text(HOSTILE), Table(["question", "answer"], [[HOSTILE, HOSTILE]])]
    files = to_markdown(blocks, "plots") + to_html(blocks, HOSTILE)
    raw = files.count("<script") + files.count("<img")
    return [Figure("report", f"{raw} raw <script or <img tags in report.md and report.html", "0", raw == 0)]
