"""Where a document's text divides: per format, its sections (heading path and blocks), as offsets.

A block is a `(start, end)` span of the document text: a paragraph, a fenced code block, a whole
Python function. Chunking never splits one, except a markdown block too long for a chunk, which it
cuts between its table rows and list items (`blocks.records`). A section is the blocks under one
heading path.
Packing blocks into chunks of a size is `program.retrieval.chunking`'s job, not this package's.
"""

from __future__ import annotations

from typing import NamedTuple

Span = tuple[int, int]  # [start, end) in the document text


class Section(NamedTuple):
    path: list[str]  # the headings above it, outermost first
    blocks: list[Span]
    context: tuple[Span, ...] = ()  # shown before its first chunk, outside its offsets: a definition's imports
    alone: bool = False  # packed with no other section: one object a reference describes (`.. py:data:: DEBUG`)
