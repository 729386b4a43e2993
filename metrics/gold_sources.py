"""Does a passage or citation come from a gold source? One pure matcher for evidence recall and gold citations.

A gold source is a document title, a path or a URL. A candidate matches when its title equals
the gold source (case- and space-insensitively, as HotpotQA titles compare), or when one of its
locations (its `origin`, the file, archive member or URL it was ingested from, and its `url`) ends with the gold
source on a `/` boundary, case-sensitively, after normalising both: surrounding whitespace,
a `file://` prefix and a leading `./` are dropped. So the gold `guide/doc_source/page.md`
matches `documents/guide/doc_source/page.md` and `archive.tar.gz/documents/guide/doc_source/page.md`,
but not `other-guide/doc_source/page.md` or `xguide/doc_source/page.md`. This module does not score.
"""

from __future__ import annotations

from typing import Iterable


def title_key(title: str) -> str:
    """Titles compare case- and space-insensitively."""
    return " ".join(title.lower().split())


def normalize_location(text: str) -> str:
    text = text.strip().removeprefix("file://")
    while text.startswith("./"):
        text = text[2:]
    return text


def source_matches(gold: str, title: str, locations: Iterable[str]) -> bool:
    """The gold source names this document: by its title, or as a path suffix of one of its locations."""
    if title_key(gold) == title_key(title) and title_key(gold):
        return True
    wanted = normalize_location(gold)
    if not wanted:
        return False
    return any(place == wanted or place.endswith("/" + wanted) for place in map(normalize_location, locations) if place)


def locations(item) -> list[str]:
    """Where a passage or citation comes from, as the matcher reads it."""
    return [getattr(item, "origin", "") or "", getattr(item, "url", "") or ""]


def matched(gold_sources: list[str], items) -> list[str]:
    """The gold sources that at least one of the items (passages or citations) comes from."""
    items = list(items)
    return [g for g in gold_sources if any(source_matches(g, i.title, locations(i)) for i in items)]


def cites_gold(gold_sources: list[str], item) -> bool:
    return any(source_matches(g, item.title, locations(item)) for g in gold_sources)
