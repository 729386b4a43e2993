"""The text formats, one document per file: markdown, reStructuredText, source code and plain text.

The document text is the file's text unchanged, so chunk offsets point into the file. The title is
a markdown page's front matter `title` or its first heading when that is a `# Title`; a
reStructuredText page's first section title; a plain-text title that opens the file; a Python
module's name with its docstring's first line; or else the file name (TypeScript, JavaScript,
Rust, Go, and plain text without a title).
This module does not split documents into sections; see `program.retrieval.sections`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from program.base.errors import IngestError
from program.retrieval.chunking import Document, Kind
from program.retrieval.links import markdown_links
from program.retrieval.sections import Section
from program.retrieval.sections.markdown import page_title
from program.retrieval.sections.plain_text import text_sections
from program.retrieval.sections.python_source import module_summary
from program.retrieval.sections.rst import rst_sections
from program.retrieval.sources import SourceFile, source_id

_MINIFIED_LINE = 2000


def read_markdown(file: SourceFile, text: str) -> list[Document]:
    return [d.model_copy(update={"links": markdown_links(text, file.url)})
            for d in _one(file, text, "markdown", page_title(text))]


def read_rst(file: SourceFile, text: str) -> list[Document]:
    """Titled by its first section title, as Sphinx titles a page: directives and targets often come
    before it (`.. currentmodule:: flask`, `.. _cli:`, `:orphan:`)."""
    return _one(file, text, "rst", next((s.path[0] for s in rst_sections(text) if s.path), None))


def read_python(file: SourceFile, text: str) -> list[Document]:
    try:
        summary = module_summary(text)
    except SyntaxError as error:
        raise IngestError(f"{file.origin} is not valid Python (line {error.lineno}: {error.msg})") from None
    name = PurePosixPath(file.path).name
    return _one(file, text, "python", f"{name}: {summary}" if summary else name)


def read_source(language: str) -> Callable[[SourceFile, str], list[Document]]:
    """The reader of source files in `language` (a Kind of `program.retrieval.chunking`)."""
    def read(file: SourceFile, text: str) -> list[Document]:
        longest = max(map(len, text.splitlines()), default=0)
        if longest > _MINIFIED_LINE:  # a minified bundle or generated table: no function would chunk on its own
            raise IngestError(f"{file.origin} looks minified or generated (a line of {longest} characters): not indexed")
        return _one(file, text, language, None)
    return read


def read_text(file: SourceFile, text: str) -> list[Document]:
    return _one(file, text, "text", _opening_title(text_sections(text)))


def _opening_title(sections: list[Section]) -> str | None:
    """The heading the text opens with, if it opens with one."""
    return sections[0].path[0] if sections and sections[0].path else None


def _one(file: SourceFile, text: str, kind: Kind, title: str | None) -> list[Document]:
    if not text.strip():
        return []
    return [Document(doc_id=source_id(file.root, file.path), title=title or PurePosixPath(file.path).stem, text=text,
                     url=file.url, kind=kind, origin=file.origin, root=file.root)]
