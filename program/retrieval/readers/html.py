"""HTML becomes markdown through trafilatura: the main content only, no menus, footers or controls.

The document text is that markdown, so chunk offsets point into it, not into the HTML. Before
extraction the page loses what it shows as controls rather than content: buttons (rustdoc's "Copy
item path", inside every item's title) and permalink anchors (Sphinx's and MkDocs' ¶, rustdoc's §).
After it, the text loses trafilatura's escapes of inline characters outside code: `first\\_key\\_value`
is one BM25 term again, as a question spells it, and a quote reads as the page does.
The title is the page's own `# heading`, else the page part of its `<title>` ("OS" of "OS | Node.js
v20 Documentation"). A leading heading that only names the site (the `<title>`'s part after its last
separator: Node's docs open every page with "# Node.js v20 documentation") is the site's banner, not
the page's title, and is dropped.
This module does not fetch pages; see `program.retrieval.fetch`.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from program.retrieval.chunking import Document
from program.retrieval.links import html_links
from program.retrieval.sections.blocks import next_fence
from program.retrieval.sections.markdown import heading_text, lead_heading
from program.retrieval.sources import SourceFile, source_id

# trafilatura's inline escapes; its block-start ones ("\# not a heading") stay, since the chunker reads headings
_INLINE_ESCAPE = re.compile(r"\\([*_~\[\]<])")
_CODE_MARK = re.compile(r"(?<!\\)`")  # an inline code span opens or closes; an escaped backtick is text
# a link to a place on its own page whose whole text is a mark, not a word: a permalink
_PERMALINK_TEXT = re.compile(r"^\W{1,2}$")
# "<page> | <site>": the last of these separators in a page's <title> starts the site's name
_SEPARATOR = re.compile(r"\s[|\-–—·]\s")


def read_html(file: SourceFile, html: str) -> list[Document]:
    import trafilatura  # subtle: slow to import, and only HTML needs it
    from trafilatura.utils import load_html

    where = file.url or file.origin
    tree = load_html(html)
    if tree is None:
        return []
    _drop_controls(tree)
    text = _unescaped(trafilatura.extract(tree, url=where, output_format="markdown", include_tables=True,
                                         include_links=False) or "")
    page, site = _title_parts(tree.findtext(".//title") or "")
    if site and _same(lead_heading(text) or "", site):
        text = text.lstrip().partition("\n")[2]  # the banner line goes; what follows it stays as it was
    if not text.strip():
        return []
    title = lead_heading(text) or page or _metadata_title(tree, where)
    return [Document(doc_id=source_id(file.root, file.path), title=title or PurePosixPath(file.path).stem or where,
                     text=text, url=file.url, kind="markdown", origin=file.origin, root=file.root,
                     links=html_links(html, file.url))]


def _title_parts(title: str) -> tuple[str, str]:
    """A `<title>`'s page part and its site part ("" when it names no site)."""
    title = " ".join(title.split())
    cuts = list(_SEPARATOR.finditer(title))
    return (heading_text(title[:cuts[-1].start()]), title[cuts[-1].end():]) if cuts else (heading_text(title), "")


def _metadata_title(tree, where: str) -> str | None:
    """trafilatura's guess from the page's metadata, for a page with no `<title>` or leading heading
    (it picks an h1, such as mdBook's "Keyboard shortcuts" dialog, so it comes last)."""
    import trafilatura

    metadata = trafilatura.extract_metadata(tree, default_url=where)
    return heading_text(metadata.title) if metadata and metadata.title else None


def _same(a: str, b: str) -> bool:
    return a.casefold().split() == b.casefold().split()


def _drop_controls(tree) -> None:
    """Remove buttons and permalink anchors from the parsed page, keeping the text that follows each."""
    for element in tree.xpath("//button | //a[starts-with(@href, '#')]"):
        if element.tag == "button" or _PERMALINK_TEXT.match(element.text_content().strip()):
            element.drop_tree()


def _unescaped(markdown: str) -> str:
    """`markdown` without the backslashes before inline characters outside code (code keeps its
    backslashes: they are literal there). Linear: one pass over the lines, one split of each."""
    lines, fence = [], None
    for line in markdown.split("\n"):
        in_code = fence is not None
        fence = next_fence(fence, line)
        if not in_code and fence is None:
            parts = _CODE_MARK.split(line)  # even parts are prose, odd ones inline code
            line = "`".join(_INLINE_ESCAPE.sub(r"\1", part) if i % 2 == 0 else part for i, part in enumerate(parts))
        lines.append(line)
    return "\n".join(lines)
