"""Web search behind one interface: Tavily online, or a local web corpus offline.

Both backends return `WebResult`s in Tavily's result shape, and each converts to a
`Passage(source="web")`. Tavily answers are cached on disk for `web_cache_ttl_s` (an empty one
for at most a minute). A Tavily call fits the caller's time: each try gets
min(`tavily_timeout_s`, the seconds left), and a throttled or failing call is retried only
while time is left (`program.retrieval.web_retry`, which honours Retry-After). After 5 failed
searches in a row Tavily is skipped for a minute (`program.retrieval.circuit_breaker`) rather
than each question waiting out its timeout.
This module does not decide when to search (see `program.loop`) and does not index the
offline corpus (see `program.retrieval.indexing`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Protocol

from pydantic import BaseModel

from program.base.settings import Settings
from program.retrieval.circuit_breaker import CircuitBreaker
from program.retrieval.passage import Passage
from program.retrieval.web_cache import JsonOnlyDisk, NotJsonError
from program.retrieval.web_retry import MIN_ATTEMPT_S, call_retrying, raise_if_throttled

WEB_CACHE = "web_cache"  # under the data dir
EMPTY_TTL_S = 60.0  # how long an empty Tavily answer is cached, whatever the cache TTL
BREAKER_FAILURES = 5  # failed searches in a row after which Tavily is skipped...
BREAKER_COOL_S = 60.0  # ...for this long, then tried again

Search = Callable[[str, int], list[Passage]]  # (query, k) -> passages, e.g. a HybridSearch


class WebSearchError(RuntimeError):
    """The web backend failed; the message never contains credentials."""


class WebResult(BaseModel):
    title: str
    url: str
    content: str
    score: float = 0.0
    origin: str = ""  # offline: the file or archive member the page was ingested from (it may have no URL)

    def to_passage(self) -> Passage:
        # subtle: the id hashes the content as well as the page, because one page can give
        # several different snippets (per query, or per chunk offline), and the evidence
        # pool drops a passage whose chunk_id it has seen.
        page = self.url or self.origin
        digest = hashlib.sha256(f"{page}\n{self.content}".encode()).hexdigest()[:16]
        return Passage(chunk_id=f"web:{digest}", doc_id=page, title=self.title, text=self.content,
                       url=self.url, origin=self.origin, score=self.score, source="web")


class WebSearch(Protocol):
    label: str  # which web this is, for the trace ("offline (hotpotqa_web)", "tavily")

    def search(self, query: str, max_results: int | None = None,
               seconds_left: float | None = None) -> list[WebResult]:
        """`seconds_left`: the caller's time (None: no limit); a search never takes longer."""
        ...


class TavilyWeb:
    """Tavily's search API through the official client, with a disk cache keyed on query and options."""

    def __init__(self, settings: Settings):
        # deferred: only a Tavily key brings the client and its disk cache in
        import diskcache
        from tavily import TavilyClient

        self.label = " ".join(filter(None, ["tavily", settings.web_backend_note and f"({settings.web_backend_note})"]))

        self._key = settings.tavily_api_key  # kept as SecretStr: only the client and _redact unwrap it
        self._client = TavilyClient(api_key=self._key.get_secret_value() if self._key else None,
                                    api_base_url=settings.tavily_api_base_url)
        # subtle: JSON only; a planted pickled row is a miss, never loaded (program/retrieval/web_cache.py)
        self._cache = diskcache.Cache(str(settings.data_dir / WEB_CACHE), disk=JsonOnlyDisk)
        self._ttl = settings.web_cache_ttl_s
        self._options = {
            "search_depth": settings.tavily_search_depth,
            "include_domains": list(settings.tavily_include_domains),
            "exclude_domains": list(settings.tavily_exclude_domains),
        }
        self._max_results = settings.tavily_max_results
        self._timeout = settings.tavily_timeout_s
        self._endpoint = self._client.base_url
        self._client.session.hooks["response"].append(raise_if_throttled)  # the client drops a 429's Retry-After
        self._breaker = CircuitBreaker(BREAKER_FAILURES, BREAKER_COOL_S)  # an outage costs one timeout per 5, not each

    def search(self, query: str, max_results: int | None = None,
               seconds_left: float | None = None) -> list[WebResult]:
        query = query.strip()
        options = {**self._options, "max_results": max_results or self._max_results}
        key = _cache_key(self._endpoint, query, options)
        cached = self._cached(key)
        if cached is None:
            deadline = None if seconds_left is None else time.monotonic() + seconds_left
            cached = self._fetch(query, options, deadline)
            # an empty answer may be a hiccup of the service: keep it only briefly
            self._cache.set(key, cached, expire=self._ttl if cached else min(self._ttl, EMPTY_TTL_S))
        return [WebResult.model_validate(r) for r in cached]

    def _cached(self, key: str) -> list[dict] | None:
        try:
            return self._cache.get(key)
        except NotJsonError:
            return None  # the next search overwrites it with JSON

    def _fetch(self, query: str, options: dict, deadline: float | None) -> list[dict]:
        if (wait := self._breaker.seconds_open()) > 0:
            raise WebSearchError(f"tavily skipped: {self._breaker.threshold} failures in a row; "
                                 f"trying again in {wait:.0f} s")
        if deadline is not None and (left := deadline - time.monotonic()) < MIN_ATTEMPT_S:
            raise WebSearchError(f"tavily skipped: {max(left, 0):.1f} s left of the time limit")
        try:
            response = call_retrying(lambda left: self._client.search(query, timeout=self._timeout_within(left),
                                                                      **options), deadline)
            # keep only the fields we use, so nothing else the API returns is written to disk
            results = [WebResult.model_validate(r).model_dump() for r in response.get("results", [])]
        except Exception as error:  # any client, transport or response-shape failure is a failed search
            self._breaker.failed()
            # `from None`: a chained requests error carries the request, Authorization header included
            raise WebSearchError(self._redact(f"tavily search failed: {type(error).__name__}: {error}")) from None
        self._breaker.succeeded()
        return results

    def _timeout_within(self, seconds_left: float | None) -> float:
        return self._timeout if seconds_left is None else max(0.1, round(min(self._timeout, seconds_left), 1))

    def _redact(self, text: str) -> str:
        secret = self._key.get_secret_value() if self._key else ""
        return text.replace(secret, "***") if secret else text

    def close(self) -> None:
        self._client.close()
        self._cache.close()

    def __deepcopy__(self, memo) -> TavilyWeb:
        # a service handle, shared by program copies: optimizers deep-copy programs
        return self

    def __repr__(self) -> str:
        return f"TavilyWeb(endpoint={self._endpoint!r}, depth={self._options['search_depth']!r})"


class OfflineWeb:
    """The offline stand-in for the web: a search over a local web-corpus collection."""

    def __init__(self, search: Search, max_results: int = 5, label: str = "offline"):
        self._search, self._max_results, self.label = search, max_results, label

    def search(self, query: str, max_results: int | None = None,
               seconds_left: float | None = None) -> list[WebResult]:
        # a local search takes milliseconds: no time limit to fit
        try:
            found = self._search(query, max_results or self._max_results)
        except Exception as error:  # the loop treats a failed web search as a warning, not a crash
            raise WebSearchError(f"offline web search failed: {type(error).__name__}: {error}") from error
        return [WebResult(title=p.title, url=p.url, content=p.text, score=p.score, origin=p.origin) for p in found]

    def __deepcopy__(self, memo) -> OfflineWeb:
        return self

    def excluding(self, titles: list[str]) -> OfflineWeb:
        """A copy whose corpus search never returns these titles (when the search can filter)."""
        narrowed = getattr(self._search, "excluding", None)
        return OfflineWeb(narrowed(titles), self._max_results, self.label) if narrowed else self

    def titles_where(self, names) -> list[str]:
        """The corpus's titles for which `names(title, [origin, url])` holds (see `HybridSearch.titles_where`)."""
        finder = getattr(self._search, "titles_where", None)
        return finder(names) if finder else []


def build_web_search(settings: Settings, offline_search: Search | None = None) -> WebSearch:
    """The backend `settings.resolved_web_backend` names; offline needs the web-corpus search."""
    if settings.resolved_web_backend == "tavily":
        return TavilyWeb(settings)
    if offline_search is None:
        raise ValueError("web backend 'offline' needs a search over the web-corpus collection; "
                         "build it with: python -m program index")
    return OfflineWeb(offline_search, max_results=settings.tavily_max_results,
                      label=f"offline ({settings.resolved_web_collection})")


def _cache_key(endpoint: str, query: str, options: dict) -> str:
    # the endpoint is part of the key (a test server's answers must not pass for Tavily's);
    # the api key is not: it changes who pays, not what comes back
    blob = json.dumps({"endpoint": endpoint, "query": query, **options}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()
