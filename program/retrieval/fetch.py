"""Fetch one web page for ingest, refusing any URL that could reach this machine or its network.

Only an http(s) URL whose host resolves to public addresses is accepted, at every redirect (at most
`MAX_REDIRECTS`): never localhost, private, link-local or otherwise reserved addresses, nor an IPv6
address that embeds one (see `program.retrieval.addresses`). Each hop connects to an address that was
checked, never to the name resolved again, while the Host header and TLS (SNI and the certificate
check) still use the name. A page is fetched only when the online web backend is configured, and only
HTML, markdown or plain text, up to `ingest_max_bytes`. The one exception is a host the user names in
`GATEDRAG_FETCH_ALLOW_HOSTS` (an internal documentation host): it may be local or private, and is
fetched without the web backend, at every hop. Every hop is checked by the same rules as the first
(`check_fetchable`): the URL, its addresses, and the backend or the allowed hosts, so an allowed
internal host cannot redirect an offline fetch to a public one.
The whole fetch has one deadline (`fetch_deadline_s`, or sooner as the caller asks): the caller hears
IngestError at it, a page that trickles in included, and the fetch's worker thread stops at its next
read (each read waits at most `ingest_timeout_s`, and never past the time left when its request began).
The body is inflated and capped as it arrives (`program.retrieval.capped_body`).
This module does not parse or index the page; see `program.retrieval.readers` and `program.retrieval.ingest`.
"""

from __future__ import annotations

import codecs
import math
import socket
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from typing import NamedTuple
from urllib.parse import urljoin, urlsplit

import httpx

from program.base.errors import IngestError
from program.base.redaction import shown_url, shown_urls_in
from program.base.settings import Settings
from program.retrieval.addresses import (
    Resolve,
    UnresolvedHost,
    host_addresses,
    is_public,
)
from program.retrieval.capped_body import ACCEPT_ENCODING, read_capped

MAX_REDIRECTS = 5
TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/markdown", "text/plain", "text/x-markdown")


class Page(NamedTuple):
    url: str  # after redirects
    content_type: str
    text: str


def fetch_page(url: str, settings: Settings, *, http: httpx.Client | None = None,
               resolve: Resolve | None = None, deadline: float | None = None) -> Page:
    """The page at `url` after its redirects, each hop checked; raises IngestError.

    `deadline`: a `time.monotonic()` the whole fetch ends by; the sooner of it and `fetch_deadline_s`
    from now. `http` replaces the client (tests pass one over a mock or local transport); every
    request still goes to a checked address, as built by `_pinned`.
    """
    started = time.monotonic()
    deadline = min(math.inf if deadline is None else deadline, started + settings.fetch_deadline_s)
    check_fetchable(url, settings, resolve)  # a bad URL is refused before anything else, whatever the time left
    worker = ThreadPoolExecutor(1, thread_name_prefix="gatedrag-fetch")
    try:
        job = worker.submit(_Fetch(settings, resolve, deadline).page, url, http)
        return job.result(timeout=max(0.0, deadline - time.monotonic()))
    except TimeoutError:
        raise IngestError(f"{shown_url(url)} was not fetched within its deadline of "
                          f"{max(0.0, deadline - started):.1f} s (fetch_deadline_s, or the question's time left); "
                          "dropped") from None
    finally:
        worker.shutdown(wait=False)  # a late worker ends at its next read, alone


def check_fetchable(url: str, settings: Settings, resolve: Resolve | None = None) -> list[str]:
    """`check_url`'s addresses, once the backend may fetch `url`: the online one, or an allowed host."""
    addresses = check_url(url, resolve, settings.fetch_allow_hosts)
    if settings.resolved_web_backend != "tavily" and not is_allowed(url, settings.fetch_allow_hosts):
        raise IngestError(f"fetching {shown_url(url)} needs the online web backend (set TAVILY_API_KEY or "
                          "GATEDRAG_WEB_BACKEND=tavily); offline, ingest a local file instead")
    return addresses


def is_allowed(url: str, allowed: Sequence[str]) -> bool:
    """Whether `url`'s host, or its host:port, is one the user allowed despite the public-address check."""
    parts = urlsplit(url)
    host = (parts.hostname or "").rstrip(".").lower()
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return False
    names = {name.strip().lower() for name in allowed}
    return bool(host) and (host in names or f"{host}:{port}" in names)


def check_url(url: str, resolve: Resolve | None = None, allowed: Sequence[str] = ()) -> list[str]:
    """The addresses of `url`'s host, each public unless the host is `allowed`; refuses anything but http(s)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise IngestError(f"only http and https URLs can be ingested, not {parts.scheme or 'a bare path'}: "
                          f"{shown_url(url)}")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise IngestError(f"the URL has no host: {shown_url(url)}")
    if is_allowed(url, allowed):
        return _addresses(host, resolve)
    if host == "localhost" or host.endswith(".localhost"):
        raise IngestError(f"{host} is a local address; only public hosts can be ingested")
    addresses = _addresses(host, resolve)
    for address in addresses:
        if not is_public(address):
            raise IngestError(f"{host} resolves to {address}, a local, private or reserved address; refused")
    return addresses


def _addresses(host: str, resolve: Resolve | None) -> list[str]:
    try:
        return host_addresses(host, resolve or _resolve)
    except UnresolvedHost as error:
        raise IngestError(f"cannot resolve {host}: {error}") from None


def _resolve(host: str) -> list[str]:
    return sorted({info[4][0] for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)})


class _Fetch:
    """One fetch: its hops, each checked and pinned, and its body, all by one deadline."""

    def __init__(self, settings: Settings, resolve: Resolve | None, deadline: float):
        self.settings, self.resolve, self.deadline = settings, resolve, deadline

    def page(self, url: str, http: httpx.Client | None) -> Page:
        # subtle: connections are pooled by address, so a kept-alive one could carry a later hop for another
        # name over TLS that was checked for the first; every request gets its own connection
        no_reuse = httpx.Limits(max_keepalive_connections=0)
        with http or httpx.Client(follow_redirects=False, limits=no_reuse) as session:
            return Page(*self._hops(session, url))

    def _hops(self, session: httpx.Client, url: str) -> tuple[str, str, str]:
        """(final url, content type, text), following redirects by hand so each hop is checked and pinned."""
        for _ in range(MAX_REDIRECTS + 1):
            addresses = check_fetchable(url, self.settings, self.resolve)
            try:
                with closing(self._open(session, url, addresses)) as response:
                    if response.is_redirect:
                        url = urljoin(url, response.headers.get("location", ""))
                        continue
                    return url, *self._read(response, url)
            except httpx.HTTPError as error:
                # subtle: the transport's message quotes the URL whole, its query and credentials included
                raise IngestError(f"fetching {shown_url(url)} failed: {type(error).__name__}: "
                                  f"{shown_urls_in(str(error))}") from None
        raise IngestError(f"more than {MAX_REDIRECTS} redirects from {shown_url(url)}")

    def _read(self, response: httpx.Response, url: str) -> tuple[str, str]:
        if response.status_code != 200:
            raise IngestError(f"{shown_url(url)} answered HTTP {response.status_code}")
        content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type not in TEXT_TYPES:
            raise IngestError(f"{shown_url(url)} is {content_type or 'of no stated type'}; only HTML, markdown "
                              "and text pages can be ingested")
        body = read_capped(response, url, self.settings.ingest_max_bytes, self.deadline)
        return content_type, body.decode(_codec(response.encoding), errors="replace")

    def _open(self, session: httpx.Client, url: str, addresses: list[str]) -> httpx.Response:
        """The streamed response from the first checked address that takes the connection."""
        for address in addresses[:-1]:
            try:
                return session.send(self._pinned(session, url, address), stream=True)
            except httpx.ConnectError:
                continue  # e.g. an IPv6 address on a host without IPv6: try the next checked one
        return session.send(self._pinned(session, url, addresses[-1]), stream=True)

    def _pinned(self, session: httpx.Client, url: str, address: str) -> httpx.Request:
        """A GET sent to `address` that still names the host: in the Host header, the TLS SNI and the certificate
        check. Each wait (connect, read) is at most `ingest_timeout_s`, and never past the deadline as it is now."""
        if (left := self.deadline - time.monotonic()) <= 0:
            raise IngestError(f"{shown_url(url)}: the fetch deadline passed before this request; dropped")
        asked = httpx.URL(url)
        return session.build_request("GET", asked.copy_with(host=address), timeout=min(self.settings.ingest_timeout_s, left),
                                     headers={"Host": asked.netloc.decode("ascii"), "Accept": ", ".join(TEXT_TYPES),
                                              "Accept-Encoding": ACCEPT_ENCODING},
                                     extensions={"sni_hostname": asked.raw_host.decode("ascii").rstrip(".")})


def _codec(named: str | None) -> str:
    """The page's stated charset if Python knows it as a text encoding; else UTF-8 (a page served as
    `charset=rot13` had failed the whole ingest with a LookupError)."""
    try:
        return codecs.lookup(named).name if named and codecs.lookup(named)._is_text_encoding else "utf-8"
    except LookupError:
        return "utf-8"
