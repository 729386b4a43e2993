"""Fetch one web page for ingest, refusing any URL that could reach this machine or its network.

Only an http(s) URL whose host resolves to public addresses is accepted, at every redirect: never
localhost, private, link-local or otherwise reserved addresses. A page is fetched only when the
online web backend is configured, and only HTML, markdown or plain text, up to `ingest_max_bytes`.
This module does not parse or index the page; see `program.retrieval.readers` and `program.retrieval.ingest`.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

import httpx

from program.errors import IngestError
from program.settings import Settings

MAX_REDIRECTS = 5
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/markdown", "text/plain", "text/x-markdown")

Resolve = Callable[[str], list[str]]  # host -> its IP addresses


class Page(NamedTuple):
    url: str  # after redirects
    content_type: str
    text: str


def fetch_page(url: str, settings: Settings, *, http: httpx.Client | None = None,
               resolve: Resolve | None = None) -> Page:
    """The page at `url` after its redirects, each hop checked; raises IngestError."""
    check_url(url, resolve)  # a bad URL is refused whatever the backend, before anything else
    if settings.resolved_web_backend != "tavily":
        raise IngestError("fetching a URL needs the online web backend (set TAVILY_API_KEY or GATEDRAG_WEB_BACKEND="
                          "tavily); offline, ingest a local file instead")
    with http or httpx.Client(timeout=settings.ingest_timeout_s, follow_redirects=False) as session:
        return Page(*_fetch(session, url, settings.ingest_max_bytes, resolve))


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
