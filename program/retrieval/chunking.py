"""Split documents into the chunks the index stores: pure functions, no I/O.

A "paragraphs" document (a JSON record) gives one chunk per blank-line-separated paragraph, never
split (a HotpotQA paragraph is one chunk). A "markdown", "rst" or "text" document is cut at its
headings (a plain-text file's are marked by lines of one character, see
`program.retrieval.sections.plain_text`); small sections are packed together up to `max_chars`, and
a large section is cut between its blocks. A block too long for a chunk (a markdown table, an rst
directive with its body) is cut between its table rows and list items, and an item still too long
between its lines, never inside a fenced code block or a line; each later piece of a cut markdown
table opens a chunk under the table's header row. A "python" document gives each
top-level function or class its own chunks (see `program.retrieval.sections.python_source`), and
TypeScript, JavaScript, Rust and Go source each top-level definition with the imports it uses
(`program.retrieval.sections.code_source`).
Every chunk carries its heading path, also joined into its title, and the `start`/`end` offsets of
its text in the document text. This module does not read files, embed or store anything; see
`program.retrieval.readers` and `program.retrieval.indexing`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from pydantic import BaseModel

from program.retrieval.links import Link
from program.retrieval.sections import Section, Span
from program.retrieval.sections.blocks import EVERY_LINE, blocks, lines, records
from program.retrieval.sections.code_source import code_sections
from program.retrieval.sections.markdown import markdown_sections
from program.retrieval.sections.plain_text import text_sections
from program.retrieval.sections.python_source import python_sections
from program.retrieval.sections.rst import rst_sections

MAX_CHARS = 1200  # about the 256 tokens all-MiniLM-L6-v2 reads before it truncates
# bump when `chunk_document` cuts the same document differently (2: a heading shares its chunk with the
# block under it; 3: a long markdown block is cut between its records; 4: a cut table's later pieces
# carry its header row; 5: blocks packed after such a piece leave room for that header; 6: a markdown
# page's front matter is in no chunk; 7: nor is a thematic break; 8: a setext heading cuts a section, and
# its underline is in no chunk; 9: nor is a block of link targets; 10: nor are a reStructuredText
# title's adornment lines; 11: each object a Sphinx page describes is a chunk of its own; 12: a long
# rst block is cut as a markdown one is; 13: a code block over the cap is cut between its lines, and a
# definition's imports shown with it are capped): it is part of every document's hash, so ingest chunks each
# held document again (and embeds only the texts it does not hold, see `program.retrieval.indexing`)
CHUNKING = 13

Kind = Literal["paragraphs", "text", "markdown", "rst", "python", "javascript", "typescript", "tsx", "rust", "go"]
SPLITTERS: dict[str, Callable[[str], list[Section]]] = {
    "markdown": markdown_sections, "rst": rst_sections, "python": python_sections, "text": text_sections}
_DELIMITER = frozenset("|:- \t")  # what a markdown table's row under its header is made of: | --- | :-: |
CODE = {"python", "javascript", "typescript", "tsx", "rust", "go"}  # kinds whose sections are never merged
Part = tuple[list[str], list[Span], tuple[Span, ...]]  # a chunk to be: heading path, blocks, context shown first


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
        parts = _code_parts(doc, sections, max_chars) if doc.kind in CODE else _prose_parts(doc, sections, max_chars)
    return [Chunk(doc_id=doc.doc_id, chunk_index=i, doc_chunks=len(parts), title=" > ".join([doc.title, *path]),
                  url=doc.url, text="\n\n".join(doc.text[s:e] for s, e in [*context, *spans]), origin=doc.origin,
                  root=doc.root, heading_path=path, start=spans[0][0], end=spans[-1][1])
            for i, (path, spans, context) in enumerate(parts)]


def _prose_parts(doc: Document, sections: list[Section], max_chars: int) -> list[Part]:
    """Markdown, rst and plain-text sections packed; a long block cut first, and each
    later piece of a cut table opens its own chunk under the table's header row: a row of numbers
    alone ("| 40 | Yes |") does not say what it counts."""
    heads: dict[int, Span] = {}  # where a later piece of a cut table starts -> its table's header rows
    if doc.kind in ("markdown", "rst", "text"):
        sections = [s._replace(blocks=[piece for block in s.blocks for piece in _cut(doc.text, block, max_chars, heads)])
                    for s in sections]
    return [(path, spans, (heads[spans[0][0]],) if spans[0][0] in heads else ())
            for path, spans in _pack(sections, max_chars, heads)]


def _code_parts(doc: Document, sections: list[Section], max_chars: int) -> list[Part]:
    """Code sections are never merged: a chunk is one definition or part of one; its imports lead its first part.
    A block over the cap is cut between its lines first, as a long prose record is: a 400 KB Rust function,
    one `{` a line and no members to cut between, was one chunk of 400,024 characters."""
    sections = [s._replace(blocks=[piece for block in s.blocks for piece in _cut_lines(doc.text, block, max_chars)])
                for s in sections]
    return [(path, spans, section.context if k == 0 else ()) for section in sections
            for k, (path, spans) in enumerate(_pack([section], max_chars, {}))]


def _cut_lines(text: str, block: Span, max_chars: int) -> list[Span]:
    """A block as runs of whole lines, each within `max_chars` (a line longer than that alone)."""
    if block[1] - block[0] <= max_chars:
        return [block]
    pieces: list[Span] = []
    for start, line in lines(text, *block):  # subtle: not `records`, for which a "```" line in code would open a fence
        if pieces and start + len(line) - pieces[-1][0] <= max_chars:
            pieces[-1] = (pieces[-1][0], start + len(line))
        else:
            pieces.append((start, start + len(line)))
    return pieces


def _sections(doc: Document, max_chars: int) -> list[Section]:
    splitter = SPLITTERS.get(doc.kind)
    return code_sections(doc.kind, doc.text, max_chars) if splitter is None else splitter(doc.text)


def _cut(text: str, block: Span, max_chars: int, heads: dict[int, Span]) -> list[Span]:
    """A block as pieces that fit in a chunk, cut between its records (table rows, list items)
    and a record too long for one between its lines. A page converted from HTML often has no blank
    line in a whole options list or table (Valgrind's "Core Command-line Options" was one 25,000-character
    block), and the embedding reads only a chunk's first 1,200 characters or so: an option further down
    could not be found. An rst directive holds its whole body: pytest's plugin list, a table in one
    `.. only::` directive, was a chunk of 1,010,939 characters. A piece that continues a markdown table is
    entered in `heads` with the table's header, and leaves room for it."""
    if block[1] - block[0] <= max_chars:
        return [block]
    units = [unit for record in records(text, *block)
             for unit in ([record] if record[1] - record[0] <= max_chars else records(text, *record, EVERY_LINE))]
    pieces, room = [units[0]], max_chars
    for (start, end), head in zip(units[1:], _table_heads(text, units, max_chars // 4)[1:], strict=True):
        if end - pieces[-1][0] <= room:
            pieces[-1] = (pieces[-1][0], end)  # the open piece grows to the end of this unit
            continue
        pieces.append((start, end))
        room = max_chars
        if head is not None:
            heads[start] = head
            room -= head[1] - head[0] + 2
    return pieces


def _table_heads(text: str, units: list[Span], longest: int) -> list[Span | None]:
    """For each unit, the header of the markdown table it is a body row of: the table's first row and
    the delimiter row under it. None for a unit that is no table row or a header's own row, and for a
    body row whose header is longer than `longest` (it would crowd out the rows it labels)."""
    heads: list[Span | None] = []
    head, fresh = None, False  # the open table's header; whether it opened at the unit before
    for start, end in units:
        row, label = text[start:end].strip(), None
        if not row.startswith("|"):
            head = None
        elif head is None or (fresh and "-" in row and set(row) <= _DELIMITER):
            head = (start if head is None else head[0], end)
        elif head[1] - head[0] <= longest:
            label = head
        fresh = head is not None and head[0] == start
        heads.append(label)
    return heads


def _below_title(path: list[str], title: str) -> list[str]:
    """The path without a top heading that is the document's title (it would repeat in every chunk's title)."""
    return path[1:] if path and path[0] == title else path


def _pack(sections: list[Section], max_chars: int, heads: Mapping[int, Span]) -> list[tuple[list[str], list[Span]]]:
    """Greedy: whole sections while they fit in the open chunk, else one section block by block; a
    section that stands `alone` (an object a reference describes) shares its chunks with no other. A
    block that starts at one of `heads` (a later piece of a cut table) always opens a chunk, and its
    header counts toward that chunk's size.
    A headed section's first block (its heading) always shares a chunk with the block after it: alone,
    "### Added" over a changelog's long list was a chunk search could find and no reader could use."""
    chunks: list[tuple[list[str], list[Span]]] = []  # (heading path of the first section, blocks)
    sealed = True  # the open chunk takes no more sections: there is none, or it describes one object alone
    for path, spans, _, alone in sections:
        if not (sealed or alone) and _size(chunks[-1][1] + spans, heads) <= max_chars:
            chunks[-1][1].extend(spans)
            continue
        sealed = alone
        chunks.append((path, []))
        size = 0  # subtle: kept as blocks join, not summed again per block (a chunk of 400 tiny blocks was quadratic)
        for span in spans:
            # subtle: a first block over half a chunk is no heading (a cut definition's first lines): it stands alone
            lone_heading = bool(path) and chunks[-1][1] == spans[:1] and size <= max_chars // 2
            grown = size + 2 + span[1] - span[0] if chunks[-1][1] else _size([span], heads)
            if chunks[-1][1] and (grown > max_chars or span[0] in heads) and not lone_heading:
                chunks.append((path, []))
                grown = _size([span], heads)
            chunks[-1][1].append(span)
            size = grown
    return chunks


def _size(spans: list[Span], heads: Mapping[int, Span]) -> int:
    """The length of the chunk text the spans make: their texts joined by blank lines, under the header
    a chunk that opens with a cut table's later piece shows first."""
    head = heads.get(spans[0][0])
    shown = [head, *spans] if head else spans
    return sum(end - start for start, end in shown) + 2 * (len(shown) - 1)
