"""A report as a list of blocks (headings, text, tables, figures, code), rendered to Markdown and HTML.

One structure, two renderings, so report.md and report.html never disagree. The HTML is
self-contained (figures inlined as base64 PNG); the Markdown links the PNGs written beside it.
Both escape HTML in every text they carry (report.md its `<`): a dataset question holding `<script>` is text in either
(a Markdown viewer renders raw HTML, so report.md once ran it). A code block's text is a fenced block's,
which no viewer renders, but `<` is escaped there too so that no raw tag reaches the file.
This module knows nothing about evaluation.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass


@dataclass
class Heading:
    text: str
    level: int = 2


@dataclass
class Text:
    text: str


@dataclass
class Link:
    """A table cell that opens something: a question's MLflow trace."""
    text: str
    url: str


Cell = str | Link


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Cell]]


@dataclass
class Figure:
    name: str  # file name under the figures folder, e.g. "latency.png"
    png: bytes
    caption: str


@dataclass
class Code:
    text: str


Block = Heading | Text | Table | Figure | Code
CSS = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
       "table{border-collapse:collapse;margin:1em 0;font-size:14px}td,th{border:1px solid #ccc;padding:3px 8px;"
       "text-align:left}th{background:#f3f3f3}pre{background:#f7f7f7;padding:8px;white-space:pre-wrap;"
       "overflow-wrap:anywhere;font-size:12px}"
       "figure{margin:1em 0}figcaption{font-size:13px;color:#555}")


def to_markdown(blocks: list[Block], figures_dir: str) -> str:
    return "\n\n".join(_markdown(block, figures_dir) for block in blocks) + "\n"


def to_html(blocks: list[Block], title: str) -> str:
    body = "\n".join(_html(block) for block in blocks)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body>\n{body}\n</body></html>\n")


def number(value: float | None, digits: int = 3) -> str:
    """A number for a table cell or a caption; a dash when there is none."""
    return "–" if value is None else f"{value:.{digits}f}"


def to_text(table: Table) -> str:
    """A table as aligned plain text, for the terminal."""
    rows = [table.headers, *([_plain(c) for c in row] for row in table.rows)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(table.headers))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def _markdown(block: Block, figures_dir: str) -> str:
    if isinstance(block, Heading):
        return f"{'#' * block.level} {_md(block.text)}"
    if isinstance(block, Text):
        return _md(block.text)
    if isinstance(block, Table):
        cells = lambda row: "| " + " | ".join(_markdown_cell(c) for c in row) + " |"  # noqa: E731
        return "\n".join([cells(block.headers), cells(["---"] * len(block.headers)), *map(cells, block.rows)])
    if isinstance(block, Figure):
        return f"![{_md(block.caption)}]({figures_dir}/{block.name})"
    return f"```\n{_md(block.text)}\n```"


def _md(text: str) -> str:
    """Text as Markdown shows it, never as HTML it would render: no tag opens without a raw `<`, and
    `->`, `>=` and `&` stay readable in the file."""
    return text.replace("<", "&lt;")


def _html(block: Block) -> str:
    if isinstance(block, Heading):
        return f"<h{block.level}>{html.escape(block.text)}</h{block.level}>"
    if isinstance(block, Text):
        return f"<p>{html.escape(block.text)}</p>"
    if isinstance(block, Table):
        head = "".join(f"<th>{html.escape(h)}</th>" for h in block.headers)
        rows = "".join("<tr>" + "".join(f"<td>{_html_cell(c)}</td>" for c in row) + "</tr>" for row in block.rows)
        return f"<table><tr>{head}</tr>{rows}</table>"
    if isinstance(block, Figure):
        data = base64.b64encode(block.png).decode("ascii")
        return (f"<figure><img alt='{html.escape(block.caption)}' src='data:image/png;base64,{data}'>"
                f"<figcaption>{html.escape(block.caption)}</figcaption></figure>")
    return f"<pre>{html.escape(block.text)}</pre>"


def _plain(cell: Cell) -> str:
    return cell.text if isinstance(cell, Link) else cell


def _markdown_cell(cell: Cell) -> str:
    text = _md(_plain(cell)).replace("|", "\\|").replace("\n", " ")
    return f"[{text}]({cell.url})" if isinstance(cell, Link) else text


def _html_cell(cell: Cell) -> str:
    if isinstance(cell, Link):
        return f"<a href='{html.escape(cell.url, quote=True)}'>{html.escape(cell.text)}</a>"
    return html.escape(cell)
