"""A Jupyter notebook (`.ipynb`) becomes markdown: its markdown cells as they are, its code cells fenced.

A tutorial notebook says what it teaches in its markdown cells and shows it in its code cells, so
both are read, in order, as one markdown document (`read_markdown`: its leading heading is the
title). A code cell is fenced in the notebook's language, with more backticks than any run in its
code, so a prompt that quotes a fence does not close it. Outputs are not read: a cell's output is
mostly tables, progress bars, logs and images encoded in base64, and no passage should be one.
Raw cells are not read either, nor an image a markdown cell holds inline as a `data:` URI (a
tutorial's rendered chart was 294,505 characters of base64 in one cell). The document text is that
markdown, so chunk offsets point into it, not into the notebook's JSON. Only the current notebook
format (4) is read.
"""

from __future__ import annotations

import json
import re

from program.base.errors import IngestError
from program.retrieval.chunking import Document
from program.retrieval.readers.text import read_markdown
from program.retrieval.sources import SourceFile

FORMAT = 4
_LANGUAGE = re.compile(r"[\w+#.-]{1,30}")
_BACKTICKS = re.compile(r"`+")
# subtle: linear. The alt text holds no bracket and the data URI none, so no two image starts read the
# same characters; an <img> tag is read up to the next `<` and commits to its first `src` (atomic):
# `!\[([^\]\n]*)\]\(data:[^)]*\)|<img\s[^>]*src=...` read to the end again from every "![" or "<img".
_INLINE_IMAGE = re.compile(r"!\[([^\[\]\n]*+)\]\(data:[^)\[]*+\)|<img\s(?>[^<>]*?src=[\"']data:)[^<>]*+>")


def read_notebook(file: SourceFile, text: str) -> list[Document]:
    return read_markdown(file, notebook_markdown(_notebook(file, text)))


def notebook_markdown(notebook: dict) -> str:
    """The notebook's markdown and code cells as markdown, code fenced in its language."""
    language = _language(notebook)
    cells = [(cell.get("cell_type"), _source(cell)) for cell in notebook["cells"] if isinstance(cell, dict)]
    parts = [_INLINE_IMAGE.sub(r"\1", source) if kind == "markdown" else _fenced(source, language)
             for kind, source in cells if kind in ("markdown", "code") and source.strip()]
    return "\n\n".join(parts) + "\n"


def _fenced(code: str, language: str) -> str:
    fence = "`" * max(3, 1 + max(map(len, _BACKTICKS.findall(code)), default=0))
    return f"{fence}{language}\n{code}\n{fence}"


def _notebook(file: SourceFile, text: str) -> dict:
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise IngestError(f"{file.origin} is not a Jupyter notebook (line {error.lineno}: {error.msg})") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise IngestError(f"{file.origin} is not a Jupyter notebook: it has no list of cells")
    if notebook.get("nbformat") != FORMAT:
        raise IngestError(f"{file.origin} is a notebook of format {notebook.get('nbformat')}; only format "
                          f"{FORMAT} is read (`jupyter nbconvert --to notebook` upgrades it)")
    return notebook


def _source(cell: dict) -> str:
    """A cell's text: the format stores it as one string or as a list of lines."""
    source = cell.get("source", "")
    return "".join(part for part in source if isinstance(part, str)) if isinstance(source, list) else str(source)


def _language(notebook: dict) -> str:
    metadata = notebook.get("metadata")
    info = metadata.get("language_info") if isinstance(metadata, dict) else None
    name = info.get("name") if isinstance(info, dict) else None
    # a fence's info string: "c++" and "c#" are names too, but a backtick or a space would end the fence's line
    return name if isinstance(name, str) and _LANGUAGE.fullmatch(name) else "python"
