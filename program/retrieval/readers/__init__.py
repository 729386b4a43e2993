"""Turn one file's bytes into documents, by its suffix: one small reader per format.

Markdown, reStructuredText, source code (Python, TypeScript, JavaScript, Rust, Go) and plain text
become one document each, HTML becomes markdown through trafilatura, an MDX page and a Jupyter
notebook become markdown too, and a JSON or JSONL file of `{title, text, [id], [url]}` records one
document per record. A document's id comes from where it was found (its root, its path under the root, and a
record's id or number), never from its title. Anything unreadable raises IngestError naming the file.
This module does not find files, chunk or index; see `program.retrieval.sources` and `program.retrieval.ingest`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from program.base.errors import IngestError
from program.retrieval.chunking import Document
from program.retrieval.readers.html import read_html
from program.retrieval.readers.mdx import read_mdx
from program.retrieval.readers.notebook import read_notebook
from program.retrieval.readers.records import read_records
from program.retrieval.readers.text import (
    read_markdown,
    read_python,
    read_rst,
    read_source,
    read_text,
)
from program.retrieval.sources import HTML_SUFFIXES, SourceFile

Reader = Callable[[SourceFile, str], list[Document]]  # (file, its decoded text) -> documents
READERS: dict[str, Reader] = {
    ".md": read_markdown, ".markdown": read_markdown, ".mdx": read_mdx, ".ipynb": read_notebook, ".rst": read_rst,
    ".py": read_python, ".txt": read_text,
    **dict.fromkeys(HTML_SUFFIXES, read_html), ".json": read_records, ".jsonl": read_records,
    ".ts": read_source("typescript"), ".mts": read_source("typescript"), ".tsx": read_source("tsx"),
    ".rs": read_source("rust"), ".go": read_source("go"),
    ".js": read_source("javascript"), ".jsx": read_source("javascript"), ".mjs": read_source("javascript"),
    ".cjs": read_source("javascript")}
# JavaScript is read when named or included (--include '*.js'): a built documentation site ships its
# own theme and search scripts, which would otherwise be indexed beside its pages
_OPT_IN = {".js", ".jsx", ".mjs", ".cjs"}
DEFAULT_INCLUDE = tuple(f"*{suffix}" for suffix in READERS if suffix not in _OPT_IN)


def read(file: SourceFile, max_bytes: int, suffix: str | None = None) -> list[Document]:
    """The documents of `file`, read as `suffix` (default: its own; plain text when unknown)."""
    if len(file.data) > max_bytes:
        raise IngestError(f"{file.origin} is larger than {max_bytes} bytes (ingest_max_bytes)")
    try:
        text = file.data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise IngestError(f"{file.origin} is not a UTF-8 text file") from None
    suffix = suffix or PurePosixPath(file.path).suffix.lower()
    documents = READERS.get(suffix, read_text)(file, text)
    if not documents:
        raise IngestError(f"{file.origin} has no text to index")
    return documents
