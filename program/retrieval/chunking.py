"""Split documents into the chunks the index stores: pure functions, no I/O.

A "paragraphs" document gives one chunk per blank-line-separated paragraph, never split (a HotpotQA
paragraph is one chunk). A "markdown" or "rst" document is cut at its headings; small sections are
packed together up to `max_chars`, and a large section is cut between its blocks. An rst block (a
directive with its body) is never split; a markdown block too long for a chunk is cut between its
table rows and list items, and an item still too long between its lines, never inside a fenced code
block or a line. A "python" document gives
each top-level function or class its own chunks (see `program.retrieval.sections.python_source`), and
TypeScript, JavaScript, Rust and Go source each top-level definition with the imports it uses
(`program.retrieval.sections.code_source`).
Every chunk carries its heading path, also joined into its title, and the `start`/`end` offsets of
its text in the document text. This module does not read files, embed or store anything; see
`program.retrieval.readers` and `program.retrieval.indexing`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel

from program.retrieval.links import Link
from program.retrieval.sections import Section, Span
from program.retrieval.sections.blocks import EVERY_LINE, blocks, records
from program.retrieval.sections.code_source import code_sections
from program.retrieval.sections.markdown import markdown_sections
from program.retrieval.sections.python_source import python_sections
from program.retrieval.sections.rst import rst_sections

MAX_CHARS = 1200  # about the 256 tokens all-MiniLM-L6-v2 reads before it truncates
# bump when `chunk_document` cuts the same document differently (2: a heading shares its chunk with the
# block under it; 3: a long markdown block is cut between its records): it is part of every document's
# hash, so ingest chunks each held document again
CHUNKING = 3

Kind = Literal["paragraphs", "markdown", "rst", "python", "javascript", "typescript", "tsx", "rust", "go"]
SPLITTERS: dict[str, Callable[[str], list[Section]]] = {
    "markdown": markdown_sections, "rst": rst_sections, "python": python_sections}
CODE = {"python", "javascript", "typescript", "tsx", "rust", "go"}  # kinds whose sections are never merged


class Document(BaseModel):
    doc_id: str
    title: str
    text: str
    url: str = ""
    kind: Kind = "paragraphs"
    origin: str = ""  # where the text came from: a file path, an archive member or a URL
    root: str = ""  # the ingest root it was found under (a folder, archive, file or URL), for pruning
    file_hash: str = ""  # of the file's bytes: ingest does not even parse a file the index holds unchanged
    links: list[Link] = []  # a web page's links, for breadth expansion; kept with its first chunk


class Chunk(BaseModel):
    doc_id: str
    chunk_index: int
    doc_chunks: int = 1  # how many chunks its document has: the loop's locality expansion reads it
    title: str
    url: str
    text: str
    origin: str = ""
    root: str = ""
    heading_path: list[str] = []
    start: int = 0  # the chunk's first block starts here in the document text
    end: int = 0  # and its last block ends here


def chunk_document(doc: Document, max_chars: int = MAX_CHARS) -> list[Chunk]:
    """Raises SyntaxError for a "python" document that does not parse."""
    if doc.kind == "paragraphs":
        parts = [([], [span], ()) for span in blocks(doc.text)]
    else:
        sections = [s._replace(path=_below_title(s.path, doc.title)) for s in _sections(doc, max_chars)]
        parts = _code_parts(sections, max_chars) if doc.kind in CODE else \
            [(path, spans, ()) for path, spans in _pack(sections, max_chars)]
    return [Chunk(doc_id=doc.doc_id, chunk_index=i, doc_chunks=len(parts), title=" > ".join([doc.title, *path]),
                  url=doc.url, text="\n\n".join(doc.text[s:e] for s, e in [*context, *spans]), origin=doc.origin,
                  root=doc.root, heading_path=path, start=spans[0][0], end=spans[-1][1])
            for i, (path, spans, context) in enumerate(parts)]


def _code_parts(sections: list[Section], max_chars: int) -> list[tuple[list[str], list[Span], tuple[Span, ...]]]:
    """Code sections are never merged: a chunk is one definition or part of one; its imports lead its first part."""
    return [(path, spans, section.context if k == 0 else ()) for section in sections
            for k, (path, spans) in enumerate(_pack([section], max_chars))]


def _sections(doc: Document, max_chars: int) -> list[Section]:
    splitter = SPLITTERS.get(doc.kind)
    if splitter is None:
        return code_sections(doc.kind, doc.text, max_chars)
    sections = splitter(doc.text)
    if doc.kind != "markdown":
        return sections
    return [s._replace(blocks=[piece for block in s.blocks for piece in _cut(doc.text, block, max_chars)])
            for s in sections]


def _cut(text: str, block: Span, max_chars: int) -> list[Span]:
    """A markdown block as pieces that fit in a chunk, cut between its records (table rows, list items)
    and a record too long for one between its lines. A page converted from HTML often has no blank
    line in a whole options list or table (Valgrind's "Core Command-line Options" was one 25,000-character
    block), and the embedding reads only a chunk's first 1,200 characters or so: an option further down
    could not be found."""
    if block[1] - block[0] <= max_chars:
        return [block]
    units = [unit for record in records(text, *block)
             for unit in ([record] if record[1] - record[0] <= max_chars else records(text, *record, EVERY_LINE))]
    pieces = [units[0]]
    for start, end in units[1:]:
        if end - pieces[-1][0] <= max_chars:
            pieces[-1] = (pieces[-1][0], end)  # the open piece grows to the end of this unit
        else:
            pieces.append((start, end))
    return pieces


def _below_title(path: list[str], title: str) -> list[str]:
    """The path without a top heading that is the document's title (it would repeat in every chunk's title)."""
    return path[1:] if path and path[0] == title else path


def _pack(sections: list[Section], max_chars: int) -> list[tuple[list[str], list[Span]]]:
    """Greedy: whole sections while they fit in the open chunk, else one section block by block.
    A headed section's first block (its heading) always shares a chunk with the block after it: alone,
    "### Added" over a changelog's long list was a chunk search could find and no reader could use."""
    chunks: list[tuple[list[str], list[Span]]] = []  # (heading path of the first section, blocks)
    for path, spans, _ in sections:
        if chunks and _size(chunks[-1][1] + spans) <= max_chars:
            chunks[-1][1].extend(spans)
            continue
        chunks.append((path, []))
        for span in spans:
            lone_heading = bool(path) and chunks[-1][1] == spans[:1]
            if chunks[-1][1] and _size(chunks[-1][1] + [span]) > max_chars and not lone_heading:
                chunks.append((path, []))
            chunks[-1][1].append(span)
    return chunks


def _size(spans: list[Span]) -> int:
    """The length of the spans' texts joined by blank lines."""
    return sum(end - start for start, end in spans) + 2 * (len(spans) - 1)
