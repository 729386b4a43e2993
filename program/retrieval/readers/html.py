"""HTML becomes markdown through trafilatura: the main content only, no menus or footers.

The document text is that markdown, so chunk offsets point into it, not into the HTML.
This module does not fetch pages; see `program.retrieval.fetch`.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from program.retrieval.chunking import Document
from program.retrieval.links import html_links
from program.retrieval.sections.markdown import heading_text, lead_heading
from program.retrieval.sources import SourceFile, source_id


def read_html(file: SourceFile, html: str) -> list[Document]:
    import trafilatura  # subtle: slow to import, and only HTML needs it

    where = file.url or file.origin
    text = trafilatura.extract(html, url=where, output_format="markdown", include_tables=True, include_links=False)
    text = (text or "").replace("¶", "")  # Sphinx's and MkDocs' permalink anchors are no part of any quote
    if not text.strip():
        return []
    metadata = trafilatura.extract_metadata(html, default_url=where)
    title = lead_heading(text) or (heading_text(metadata.title) if metadata and metadata.title else None)
    return [Document(doc_id=source_id(file.root, file.path), title=title or PurePosixPath(file.path).stem or where,
                     text=text, url=file.url, kind="markdown", origin=file.origin, root=file.root,
                     links=html_links(html, file.url))]
