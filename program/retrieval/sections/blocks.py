"""Lines with their offsets, and blank-line-separated blocks that keep a fenced code block whole.

Shared by the markdown and plain-paragraph splitters. This module knows nothing of headings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from program.retrieval.sections import Span

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


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


def next_fence(fence: str | None, line: str) -> str | None:
    """The code fence open after `line`: it opens one, closes the open one, or changes nothing."""
    marker = _FENCE.match(line)
    if marker is None:
        return fence
    if fence is None:
        return marker.group(1)
    # a fence closes only with the same character, at least as many times
    return None if marker.group(1).startswith(fence) else fence
