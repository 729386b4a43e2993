"""Add one file or web page to the collection: read or fetch it, chunk it, index it.

Markdown stays markdown (chunked at its headings), an HTML page becomes markdown through
trafilatura (main content only: no menus or footers), anything else is plain paragraphs.
Re-ingesting a source replaces its chunks. A URL is fetched only when the online web backend
is configured, and only an http(s) URL whose host resolves to public addresses is accepted,
at every redirect: never localhost, private, link-local or otherwise reserved addresses.
This module does not search or answer; see `program.retrieval.retriever` and `program.serving.answerer`.
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx
from pydantic import BaseModel

from program.retrieval.chunking import Document
from program.retrieval.embeddings import load_embedder
from program.retrieval.indexing import IndexStats, index_documents
from program.retrieval.open_store import open_store
from program.settings import Settings

MAX_REDIRECTS = 5
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/markdown", "text/plain", "text/x-markdown")
MARKDOWN_SUFFIXES = {".md", ".markdown"}
HTML_SUFFIXES = {".html", ".htm"}

Resolve = Callable[[str], list[str]]  # host -> its IP addresses


class IngestError(ValueError):
    """The source cannot be ingested; the message says why, and nothing was indexed."""


class IngestReport(BaseModel):
    source: str
    doc_id: str
    title: str
    collection: str
    stats: IndexStats


def ingest(source: str, settings: Settings, *, http: httpx.Client | None = None, resolve: Resolve | None = None,
           store=None, embedder=None) -> IngestReport:
    """Index a file path or an http(s) URL into `settings.collection`."""
    if "://" in source:
        document = fetch_document(source, settings, http=http, resolve=resolve)
    else:
        document = file_document(Path(source).expanduser(), settings.ingest_max_bytes)
    stats = index_documents(store or open_store(settings), settings.collection, [document], progress=False,
                            embedder=embedder or load_embedder(settings))
    return IngestReport(source=source, doc_id=document.doc_id, title=document.title, collection=settings.collection,
                        stats=stats)


def file_document(path: Path, max_bytes: int) -> Document:
    if not path.is_file():
        raise IngestError(f"no such file: {path}")
    if path.stat().st_size > max_bytes:
        raise IngestError(f"{path} has {path.stat().st_size} bytes; the limit is {max_bytes} (ingest_max_bytes)")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise IngestError(f"{path} is not a UTF-8 text file") from None
    url = path.resolve().as_uri()
    kind = "html" if path.suffix.lower() in HTML_SUFFIXES else "markdown" if path.suffix.lower() in MARKDOWN_SUFFIXES else "text"
    return _document(text, kind, url, fallback_title=path.stem)


def fetch_document(url: str, settings: Settings, *, http: httpx.Client | None = None,
                   resolve: Resolve | None = None) -> Document:
    check_url(url, resolve)  # a bad URL is refused whatever the backend, before anything else
    if settings.resolved_web_backend != "tavily":
        raise IngestError("fetching a URL needs the online web backend (set TAVILY_API_KEY or GATEDRAG_WEB_BACKEND="
                          "tavily); offline, ingest a local file instead")
    with http or httpx.Client(timeout=settings.ingest_timeout_s, follow_redirects=False) as session:
        final_url, content_type, body = _fetch(session, url, settings.ingest_max_bytes, resolve)
    kind = "html" if "html" in content_type else "markdown" if "markdown" in content_type else "text"
    return _document(body, kind, final_url, fallback_title=urlsplit(final_url).path.rsplit("/", 1)[-1] or final_url)


def check_url(url: str, resolve: Resolve | None = None) -> None:
    """Refuse anything but http(s) to a host whose every address is public."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise IngestError(f"only http and https URLs can be ingested, not {parts.scheme or 'a bare path'}: {url}")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise IngestError(f"the URL has no host: {url}")
    if host == "localhost" or host.endswith(".localhost"):
        raise IngestError(f"{host} is a local address; only public hosts can be ingested")
    for address in _addresses(host, resolve or _resolve):
        if not _is_public(address):
            raise IngestError(f"{host} resolves to {address}, a local, private or reserved address; refused")


def _addresses(host: str, resolve: Resolve) -> list[str]:
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    try:
        found = resolve(host)
    except OSError as error:
        raise IngestError(f"cannot resolve {host}: {error}") from None
    if not found:
        raise IngestError(f"cannot resolve {host}")
    return found


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone id
    if ip.version == 6 and ip.ipv4_mapped:  # ::ffff:127.0.0.1 is 127.0.0.1
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def _resolve(host: str) -> list[str]:
    return sorted({info[4][0] for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)})


def _fetch(session: httpx.Client, url: str, max_bytes: int, resolve: Resolve | None) -> tuple[str, str, str]:
    """(final url, content type, text), following redirects by hand so each hop is checked.

    subtle: httpx resolves the name again when it connects, so a DNS server that answers
    differently the second time could still reach a private address; pinning the address
    would break TLS host checks. Expose ingest to untrusted callers only behind an egress
    proxy that blocks private ranges.
    """
    for _ in range(MAX_REDIRECTS + 1):
        check_url(url, resolve)
        try:
            with session.stream("GET", url, headers={"Accept": ", ".join(TEXT_TYPES)}) as response:
                if response.is_redirect:
                    url = urljoin(url, response.headers.get("location", ""))
                    continue
                if response.status_code != 200:
                    raise IngestError(f"{url} answered HTTP {response.status_code}")
                content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if content_type not in TEXT_TYPES:
                    raise IngestError(f"{url} is {content_type or 'of no stated type'}; only HTML, markdown and text pages can be ingested")
                return url, content_type, _read_capped(response, max_bytes)
        except httpx.HTTPError as error:
            raise IngestError(f"fetching {url} failed: {type(error).__name__}: {error}") from None
    raise IngestError(f"more than {MAX_REDIRECTS} redirects from {url}")


def _read_capped(response: httpx.Response, max_bytes: int) -> str:
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > max_bytes:
            raise IngestError(f"{response.url} is larger than {max_bytes} bytes (ingest_max_bytes)")
    return body.decode(response.encoding or "utf-8", errors="replace")


def _document(text: str, kind: str, url: str, fallback_title: str) -> Document:
    title = fallback_title
    if kind == "html":
        text, title = _html_to_markdown(text, url, fallback_title)
    if not text.strip():
        raise IngestError(f"{url} has no text to index")
    if kind != "text":
        heading, text = _lead_heading(text)
        title = heading or title
    doc_id = "src:" + hashlib.sha256(url.encode()).hexdigest()[:16]
    return Document(doc_id=doc_id, title=title, text=text, url=url, kind="paragraphs" if kind == "text" else "markdown")


def _html_to_markdown(html: str, url: str, fallback_title: str) -> tuple[str, str]:
    import trafilatura

    text = trafilatura.extract(html, url=url, output_format="markdown", include_tables=True, include_links=False)
    metadata = trafilatura.extract_metadata(html, default_url=url)
    return text or "", (metadata.title if metadata and metadata.title else fallback_title)


def _lead_heading(markdown: str) -> tuple[str | None, str]:
    """A leading `# Title` is the document's title, taken out of the text: otherwise every chunk's
    heading path ("Title > Title > Install") would repeat it."""
    lines = markdown.lstrip().splitlines()
    if lines and lines[0].startswith("# "):
        return lines[0][2:].strip(" #"), "\n".join(lines[1:])
    return None, markdown
