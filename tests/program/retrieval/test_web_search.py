"""Web search: the real TavilyClient against a fake Tavily server on 127.0.0.1, and the offline backend."""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest

from program.base.settings import Settings
from program.retrieval import web_retry, web_search
from program.retrieval.web_search import (
    OfflineWeb,
    TavilyWeb,
    WebResult,
    WebSearchError,
    build_web_search,
)
from tests.conftest import FakeSearch, passage
from tests.program.retrieval.fake_tavily import FakeTavily

SECRET = "tvly-dev-SECRET0123456789"


@pytest.fixture
def fake_tavily():
    fake = FakeTavily()
    yield fake
    fake.close()


def tavily_settings(tmp_path: Path, url: str, **overrides) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, tavily_api_key=SECRET, tavily_api_base_url=url,
                    web_backend="tavily", **overrides)


def test_results_come_back_in_tavily_shape_through_the_real_client(tmp_path, fake_tavily):
    web = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url))
    results = web.search("river thames", max_results=3)
    assert [r.url for r in results] == ["https://example.org/0", "https://example.org/1", "https://example.org/2"]
    assert results[0] == WebResult(title="Page 0", url="https://example.org/0",
                                   content="About river thames (0).", score=0.9)
    assert fake_tavily.requests[0]["path"] == "/search"
    assert fake_tavily.requests[0]["auth"] == f"Bearer {SECRET}"


def test_options_reach_the_server(tmp_path, fake_tavily):
    settings = tavily_settings(tmp_path, fake_tavily.url, tavily_search_depth="advanced", tavily_max_results=4,
                               tavily_include_domains=["wikipedia.org"], tavily_exclude_domains=["spam.example"])
    web = TavilyWeb(settings)
    assert len(web.search("q1")) == 4
    web.search("q2", max_results=2)
    first, second = (r["body"] for r in fake_tavily.requests)
    assert first["search_depth"] == "advanced"
    assert first["include_domains"] == ["wikipedia.org"] and first["exclude_domains"] == ["spam.example"]
    assert (first["max_results"], second["max_results"]) == (4, 2)


def test_cache_serves_a_repeated_call_without_the_server(tmp_path, fake_tavily):
    web = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url))
    first = web.search("who wrote dune", max_results=2)
    again = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url)).search("who wrote dune", max_results=2)
    assert again == first
    assert len(fake_tavily.requests) == 1
    web.search("who wrote dune", max_results=3)  # other options are another entry
    assert len(fake_tavily.requests) == 2


def test_cache_entries_expire_after_the_ttl(tmp_path, fake_tavily):
    web = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url, web_cache_ttl_s=1))
    web.search("ttl")
    time.sleep(1.1)
    web.search("ttl")
    assert len(fake_tavily.requests) == 2


def test_http_500_is_retried_then_becomes_web_search_error(tmp_path, fake_tavily):
    fake_tavily.mode = "error"
    with pytest.raises(WebSearchError, match="tavily search failed") as caught:
        TavilyWeb(tavily_settings(tmp_path, fake_tavily.url)).search("anything")
    assert SECRET not in str(caught.value) and caught.value.__cause__ is None
    assert len(fake_tavily.requests) == web_retry.ATTEMPTS


def test_timeout_becomes_web_search_error(tmp_path, fake_tavily):
    fake_tavily.mode = "slow"
    with pytest.raises(WebSearchError, match="timed out") as caught:
        TavilyWeb(tavily_settings(tmp_path, fake_tavily.url, tavily_timeout_s=0.2)).search("anything")
    assert SECRET not in str(caught.value)


def test_failures_are_not_cached(tmp_path, fake_tavily):
    web = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url))
    fake_tavily.mode = "error"
    with pytest.raises(WebSearchError):
        web.search("flaky")
    fake_tavily.mode = "ok"
    assert len(web.search("flaky")) == 5


def test_api_key_never_reaches_cache_files_or_repr(tmp_path, fake_tavily):
    web = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url))
    web.search("secret check")
    web.close()
    files = [p for p in (tmp_path / "web_cache").rglob("*") if p.is_file()]
    assert files
    assert not any(SECRET.encode() in p.read_bytes() for p in files)
    assert SECRET not in repr(web)


def test_to_passage_is_a_web_passage_with_a_stable_id():
    r = WebResult(title="Dune", url="https://example.org/dune", content="Dune is a novel.", score=0.7)
    p = r.to_passage()
    assert (p.source, p.title, p.text, p.url, p.score) == ("web", "Dune", "Dune is a novel.", r.url, 0.7)
    assert p.chunk_id == r.model_copy().to_passage().chunk_id
    assert p.chunk_id != r.model_copy(update={"content": "Another snippet."}).to_passage().chunk_id


def test_offline_web_returns_the_same_shape():
    corpus = [passage("Thames", "The Thames flows through London.", source="web", score=0.8),
              passage("Seine", "The Seine flows through Paris.", source="web", score=0.4)]
    fake = FakeSearch(corpus)
    web = OfflineWeb(fake)
    results = web.search("Thames London", max_results=1)
    assert results == [WebResult(title="Thames", url="https://example.org/Thames",
                                 content="The Thames flows through London.", score=0.8)]
    assert results[0].to_passage().source == "web"
    assert copy.deepcopy(web) is web


def test_offline_search_failure_becomes_web_search_error():
    def broken(query: str, k: int):
        raise ConnectionError("store closed")

    with pytest.raises(WebSearchError, match="store closed"):
        OfflineWeb(broken).search("x")


def test_build_web_search_picks_the_backend(tmp_path, fake_tavily):
    online = build_web_search(tavily_settings(tmp_path, fake_tavily.url))
    assert isinstance(online, TavilyWeb)
    offline = Settings(_env_file=None, data_dir=tmp_path, web_backend="offline", tavily_max_results=2)
    web = build_web_search(offline, FakeSearch([passage("A", "alpha beta")] * 3))
    assert isinstance(web, OfflineWeb) and len(web.search("alpha")) == 2
    with pytest.raises(ValueError, match="offline"):
        build_web_search(offline, None)


def test_an_offline_page_from_an_archive_keeps_where_it_came_from():
    member = "/data/guides.tar.gz!/documents/guide/doc_source/page.md"
    ingested = passage("Page", "Quotas are listed here.", source="web").model_copy(update={"url": "", "origin": member})
    (result,) = OfflineWeb(FakeSearch([ingested])).search("quotas listed", max_results=1)
    found = result.to_passage()
    assert found.origin == found.doc_id == member  # so a gold page's path still matches it


def test_an_empty_answer_is_cached_only_briefly(tmp_path, fake_tavily, monkeypatch):
    monkeypatch.setattr(web_search, "EMPTY_TTL_S", 0.2)
    web = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url))
    fake_tavily.mode = "empty"
    assert web.search("nothing") == [] and web.search("nothing") == []
    assert len(fake_tavily.requests) == 1  # within the short TTL, from the cache
    time.sleep(0.3)
    web.search("nothing")
    fake_tavily.mode = "ok"
    web.search("something")
    time.sleep(0.3)
    web.search("something")
    assert len(fake_tavily.requests) == 3  # the empty answer was asked again; the full one stayed cached


def test_five_failures_in_a_row_open_the_breaker_until_it_cools(tmp_path, fake_tavily, monkeypatch):
    monkeypatch.setattr(web_search, "BREAKER_COOL_S", 0.3)
    monkeypatch.setattr(web_retry, "ATTEMPTS", 1)  # one request per search: the breaker counts searches
    web = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url))
    fake_tavily.mode = "error"
    for i in range(5):
        with pytest.raises(WebSearchError, match="tavily search failed"):
            web.search(f"outage {i}")
    with pytest.raises(WebSearchError, match="5 failures in a row"):
        web.search("outage 5")
    assert len(fake_tavily.requests) == 5  # the sixth never reached the service
    fake_tavily.mode = "ok"
    time.sleep(0.35)
    assert len(web.search("recovered")) == 5 and len(fake_tavily.requests) == 6


class _Planted:
    """What a hostile pickle does on load: here, leave a mark instead of running a shell command."""

    def __reduce__(self):
        return (Path.touch, (MARK,))


MARK = Path("/tmp/gatedrag-planted-web-cache-ran")


def test_a_pickled_entry_planted_in_the_web_cache_is_never_loaded(tmp_path, fake_tavily):
    import diskcache

    from program.retrieval.web_search import _cache_key

    MARK.unlink(missing_ok=True)
    web = TavilyWeb(tavily_settings(tmp_path, fake_tavily.url))
    key = _cache_key(web._endpoint, "planted", {**web._options, "max_results": web._max_results})
    with diskcache.Cache(str(tmp_path / "web_cache")) as old:  # the default, pickling disk, as before
        old.set(key, _Planted())
    results = web.search("planted")
    assert not MARK.exists() and results and len(fake_tavily.requests) == 1  # a miss: searched, then stored as JSON
    assert TavilyWeb(tavily_settings(tmp_path, fake_tavily.url)).search("planted") == results
