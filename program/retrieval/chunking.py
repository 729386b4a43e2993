"""Split documents into the chunks the index stores: pure functions, no I/O.

A "paragraphs" document gives one chunk per blank-line-separated paragraph, never split (a HotpotQA
paragraph is one chunk). A "markdown" document is cut at its headings; small sections are packed
together up to `max_chars`, a large section is cut between its blocks, and a fenced code block is
never split, however long. Every markdown chunk carries its heading path in its title.
This module does not embed or store anything; see `program.retrieval.indexing`.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

MAX_CHARS = 1200  # about the 256 tokens all-MiniLM-L6-v2 reads before it truncates

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


class Document(BaseModel):
    doc_id: str
    title: str
    text: str
    url: str = ""
    kind: Literal["paragraphs", "markdown"] = "paragraphs"


class Chunk(BaseModel):
    doc_id: str
    chunk_index: int
    doc_chunks: int = 1  # how many chunks its document has: the loop's locality expansion reads it
    title: str
    url: str
    text: str


def chunk_document(doc: Document, max_chars: int = MAX_CHARS) -> list[Chunk]:
    if doc.kind == "paragraphs":
        parts = [(doc.title, p) for p in _blocks(doc.text.splitlines())]
    else:
        parts = [(" > ".join([doc.title, *path]), text) for path, text in _pack(_sections(doc.text), max_chars)]
    return [Chunk(doc_id=doc.doc_id, chunk_index=i, doc_chunks=len(parts), title=title, url=doc.url, text=text)
            for i, (title, text) in enumerate(parts)]


def _blocks(lines: list[str]) -> list[str]:
    """Blank-line-separated blocks; a fenced code block stays one block, blank lines and all."""
    blocks, current, fence = [], [], None
    for line in lines:
        if fence is None and not line.strip():
            blocks, current = _flush(blocks, current), []
        else:
            current.append(line)
        fence = _next_fence(fence, line)
    return _flush(blocks, current)


def _next_fence(fence: str | None, line: str) -> str | None:
    """The code fence open after `line`: it opens one, closes the open one, or changes nothing."""
    marker = _FENCE.match(line)
    if marker is None:
        return fence
    if fence is None:
        return marker.group(1)
    # a fence closes only with the same character, at least as many times
    return None if marker.group(1).startswith(fence) else fence


def _flush(blocks: list[str], lines: list[str]) -> list[str]:
    text = "\n".join(lines).strip("\n")
    return [*blocks, text] if text.strip() else blocks


def _sections(markdown: str) -> list[tuple[list[str], list[str]]]:
    """(heading path, blocks) per section, cut at headings outside code fences."""
    sections: list[tuple[list[str], list[str]]] = [([], [])]  # (heading path, lines)
    path: list[str] = []
    fence = None
    for line in markdown.splitlines():
        heading = _HEADING.match(line) if fence is None else None
        fence = _next_fence(fence, line)
        if heading:
            level = len(heading.group(1))
            # subtle: a skipped level (# then ###) leaves a gap that the shown path drops
            path = [*path[: level - 1], *[""] * (level - 1 - len(path)), heading.group(2)]
            sections.append(([p for p in path if p], []))
        sections[-1][1].append(line)
    return [(path, blocks) for path, lines in sections if (blocks := _blocks(lines))]


def _pack(sections: list[tuple[list[str], list[str]]], max_chars: int) -> list[tuple[list[str], str]]:
    """Greedy: whole sections while they fit in the open chunk, else one section block by block."""
    chunks: list[tuple[list[str], list[str]]] = []  # (heading path of the first section, blocks)
    for path, blocks in sections:
        if chunks and _size(chunks[-1][1] + blocks) <= max_chars:
            chunks[-1][1].extend(blocks)
            continue
        chunks.append((path, []))
        for block in blocks:
            if chunks[-1][1] and _size(chunks[-1][1] + [block]) > max_chars:
                chunks.append((path, []))
            chunks[-1][1].append(block)
    return [(path, "\n\n".join(blocks)) for path, blocks in chunks]


def _size(blocks: list[str]) -> int:
    return len("\n\n".join(blocks))
