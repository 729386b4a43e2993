"""Lines with their offsets, blank-line-separated blocks that keep a fenced code block whole, a
block's records (its table rows and list items), and a text's prose apart from its code (`map_prose`).

Shared by the markdown and plain-paragraph splitters, chunking, the HTML reader and the evidence's
rendering of markdown. This module knows nothing of headings.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from program.retrieval.sections import Span

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_CODE_MARK = re.compile(r"(?<!\\)`")  # an inline code span opens or closes; an escaped backtick is text
RECORD_MARK = r"(?:\||[-*+]\s|\d+[.)]\s)"  # how a markdown table row or list item starts
_RECORD = re.compile(rf"[ \t]*{RECORD_MARK}")
EVERY_LINE = re.compile("")


def lines(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, str]]:
    """(offset, line without its newline) for each line of text[start:end]."""
    offset = start
    for line in text[start:end].splitlines(keepends=True):
        yield offset, line.rstrip("\r\n")
        offset += len(line)


def blocks(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Blank-line-separated blocks of text[start:end]; a fenced code block stays one block, blank lines and all."""
    found: list[Span] = []
    open_at, close_at, fence = None, None, None
    for offset, line in lines(text, start, end):
        if fence is None and not line.strip():
            if open_at is not None:
                found.append((open_at, close_at))
            open_at = None
        else:
            open_at = offset if open_at is None else open_at
            close_at = offset + len(line)
        fence = next_fence(fence, line)
    if open_at is not None:
        found.append((open_at, close_at))
    return found


def records(text: str, start: int, end: int, opens: re.Pattern[str] = _RECORD) -> list[Span]:
    """text[start:end] as consecutive spans, each from a line that `opens` one (default: a table row
    or a list item) to the line before the next. A line inside a fenced code block opens none, so no
    span ends inside one; the lines before the first opening line are a span of their own."""
    found: list[list[int]] = []
    fence = None
    for offset, line in lines(text, start, end):
        if not found or (fence is None and opens.match(line)):
            found.append([offset, offset])
        found[-1][1] = offset + len(line)
        fence = next_fence(fence, line)
    return [(first, last) for first, last in found]


def next_fence(fence: str | None, line: str) -> str | None:
    """The code fence open after `line`: it opens one, closes the open one, or changes nothing."""
    marker = FENCE.match(line)
    if marker is None:
        return fence
    if fence is None:
        return marker.group(1)
    # a fence closes only with the same character, at least as many times
    return None if marker.group(1).startswith(fence) else fence


def map_prose(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to its prose: not to fenced code, nor to inline code spans, whose
    characters are literal. A line that `change` would make open a code fence keeps its own text:
    unescaped, a page's "\\~\\~\\~" (an underline under a title) read the rest of the page as code.
    Linear: one pass over the lines, one split of each."""
    kept, fence = [], None
    for line in text.split("\n"):
        in_code = fence is not None
        fence = next_fence(fence, line)
        if not in_code and fence is None:
            parts = _CODE_MARK.split(line)  # even parts are prose, odd ones inline code
            plain = "`".join(change(part) if i % 2 == 0 else part for i, part in enumerate(parts))
            line = line if next_fence(None, plain) else plain
        kept.append(line)
    return "\n".join(kept)
