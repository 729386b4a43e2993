"""The links of an ingested page, as breadth expansion reads them: where each goes, its anchor text,
and the nearest heading above it as its description.

Only http(s) links are kept, resolved against the page's URL, without their fragment, once per
target (the first anchor wins), and never the page itself. A page read from a file has no links to
follow. This module does not fetch or score anything; see `program.retrieval.breadth`.
"""

from __future__ import annotations

import re
from urllib.parse import urldefrag, urljoin, urlsplit

from pydantic import BaseModel

MAX_LINKS = 500  # per page: a site map's thousands of links would bloat every chunk's payload
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
# subtle: linear on any line. The anchor holds no bracket and the target no bracket or whitespace, and
# both are possessive, so each character is read at most once per pattern piece: the old
# `\[([^\]\n]{1,200})\]\(([^)\s]{1,2000})\)` read up to 2,000 characters again at every "[a](" of a
# 5 MB line (37 s, the GIL held). A bracket in an anchor ("[x [y](z)") now leaves the anchor "y".
_MARKDOWN_LINK = re.compile(r"\[([^\[\]\n]{1,200}+)\]\(([^)\[\]\s]{1,2000}+)\)")
_MARKDOWN_HEADING = re.compile(r"^#{1,6}[ \t]+(.+)$")


class Link(BaseModel):
    url: str
    anchor: str = ""
    description: str = ""  # the heading the link sits under


def html_links(html: str, page_url: str) -> list[Link]:
    """The page's links in document order."""
    if not _followable(page_url):
        return []
    import lxml.html  # subtle: comes with trafilatura, which only HTML needs

    try:
        root = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return []
    found, heading = [], ""
    for element in root.iter("a", *_HEADINGS):
        if element.tag in _HEADINGS:
            heading = _words(element.text_content())
        elif element.get("href"):
            found.append((element.get("href"), _words(element.text_content()), heading))
    return _kept(found, page_url)


def markdown_links(text: str, page_url: str) -> list[Link]:
    """A markdown page's `[anchor](target)` links, each under the heading above it."""
    if not _followable(page_url):
        return []
    found, heading = [], ""
    for line in text.splitlines():
        if match := _MARKDOWN_HEADING.match(line):
            heading = _words(match.group(1))
        found += [(target, _words(anchor), heading) for anchor, target in _MARKDOWN_LINK.findall(line)]
    return _kept(found, page_url)


def _kept(found: list[tuple[str, str, str]], page_url: str) -> list[Link]:
    links: dict[str, Link] = {}
    own = urldefrag(page_url).url
    for href, anchor, heading in found:
        url = urldefrag(urljoin(page_url, href.strip())).url
        if _followable(url) and url != own and url not in links:
            links[url] = Link(url=url, anchor=anchor[:200], description=heading[:200])
        if len(links) >= MAX_LINKS:
            break
    return list(links.values())


def _followable(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https")


def _words(text: str) -> str:
    return " ".join(text.replace("¶", "").split())
