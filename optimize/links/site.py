"""A documentation site read from a folder as breadth expansion would see it served: every page's links.

A page's URL is the site's base URL joined with its path in the folder, so its relative links
resolve as they would over HTTP. Links come from the same readers `ingest` uses
(`program.retrieval.links`): markdown `[anchor](target)` links and HTML `<a href>`s, each with the
heading it sits under. A folder's URL (`docs/`, a seed's parent path) is served as a static server
serves it: its `index.html`, or else a listing that links each of its entries by name under the
heading "Directory listing for /docs/" (Python's `http.server`). Nothing is fetched or embedded
here; see `optimize.links.traversal`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

from program.retrieval.links import Link, html_links, markdown_links

BASE_URL = "http://docs.invalid/"  # a reserved name (RFC 6761): nothing is ever fetched from it
READERS = {".md": markdown_links, ".markdown": markdown_links, ".html": html_links, ".htm": html_links}


@dataclass(frozen=True)
class Site:
    base_url: str
    pages: dict[str, list[Link]]  # page url -> its links, for every page the folder holds

    def url(self, path: str) -> str:
        """The URL of the page at `path` in the folder."""
        return self.base_url + quote(path.lstrip("/"))


def read_site(folder: Path, max_bytes: int, base_url: str = BASE_URL) -> Site:
    """Every markdown and HTML page under `folder`, with its links. A page over `max_bytes`
    (`GATEDRAG_INGEST_MAX_BYTES`: what `ingest` would refuse to fetch) is left out."""
    if not folder.is_dir():
        raise ValueError(f"no site folder at {folder}")
    pages = {}
    for path in sorted(p for p in folder.rglob("*") if is_page(p, max_bytes)):
        url = base_url + quote(path.relative_to(folder).as_posix())
        pages[url] = READERS[path.suffix.lower()](path.read_text(encoding="utf-8", errors="replace"), url)
    if not pages:
        raise ValueError(f"{folder} holds no markdown or HTML page")
    for sub in [folder, *sorted(p for p in folder.rglob("*") if p.is_dir())]:
        pages[_folder_url(base_url, folder, sub)] = _folder_page(pages, base_url, folder, sub)
    return Site(base_url, pages)


def is_page(path: Path, max_bytes: int) -> bool:
    """Whether `read_site` reads the file as a page: markdown or HTML, and no larger than `max_bytes`."""
    return path.suffix.lower() in READERS and path.is_file() and path.stat().st_size <= max_bytes


def _folder_url(base_url: str, root: Path, sub: Path) -> str:
    path = sub.relative_to(root).as_posix()
    return base_url if path == "." else base_url + quote(path) + "/"


def _folder_page(pages: dict[str, list[Link]], base_url: str, root: Path, sub: Path) -> list[Link]:
    url = _folder_url(base_url, root, sub)
    if url + "index.html" in pages:
        return pages[url + "index.html"]
    heading = "Directory listing for /" + urlsplit(url).path.lstrip("/")
    names = [entry.name + ("/" if entry.is_dir() else "") for entry in sorted(sub.iterdir())]
    return [Link(url=url + quote(name), anchor=name, description=heading) for name in names]
