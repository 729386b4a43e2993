"""The URL matrix: over 100 URLs an attacker might try (`tests.reliability.url_corpus`), each refused with
0 sockets opened to a non-public address, and a resolver that changes its answer. Every fetch runs the real
client on a sealed network (`tests.reliability.network`): only 127.0.0.1 is ever reached, standing in for
one public address.
"""

from __future__ import annotations

import pytest

from program.base.errors import IngestError
from program.base.settings import Settings
from program.retrieval.fetch import MAX_REDIRECTS, fetch_page
from tests.reliability.network import PUBLIC, Resolver, sealed_network
from tests.reliability.url_corpus import CORPUS, NAMES


def online(tmp_path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, web_backend="tavily", tavily_api_key="tvly-test")


def test_the_corpus_holds_over_100_distinct_urls():
    assert len(set(CORPUS)) >= 100


@pytest.mark.parametrize("url", CORPUS)
def test_a_url_to_a_non_public_address_is_refused_and_no_socket_reaches_it(url, tmp_path, monkeypatch):
    with sealed_network(monkeypatch) as network:
        with pytest.raises(IngestError):
            fetch_page(url, online(tmp_path), resolve=Resolver(NAMES))
    assert network.private_connects() == [] and network.lookups == []
    assert not any(path.startswith("/secret") for path in network.paths)


def test_a_public_page_is_fetched_from_the_checked_address_with_its_name(tmp_path, monkeypatch):
    # the control: the sealed network does serve a public host, so the refusals above are the guard's
    with sealed_network(monkeypatch) as network:
        page = fetch_page("http://site.test/to?u=%2Fpage", online(tmp_path), resolve=Resolver(NAMES))
    assert (page.url, page.text) == ("http://site.test/page", "page /page for site.test")
    assert network.connects == [(PUBLIC, 80), (PUBLIC, 80)] and network.lookups == []


@pytest.mark.parametrize("flip_after", [0, 1, 2])
def test_a_resolver_that_turns_private_never_gets_a_connection_to_its_new_answer(flip_after, tmp_path, monkeypatch):
    """Public for the first `flip_after` lookups, 127.0.0.1 after; the page redirects back to the same host."""
    resolver = Resolver(then=["127.0.0.1"], flip_after=flip_after)
    with sealed_network(monkeypatch) as network:
        with pytest.raises(IngestError, match="127.0.0.1"):
            fetch_page("http://rebind.test/to?u=%2Fsecret", online(tmp_path), resolve=resolver)
    assert network.private_connects() == [] and network.lookups == []
    assert network.paths == (["/to?u=%2Fsecret"] if flip_after == 2 else [])


def test_the_name_is_resolved_once_per_hop_and_the_connection_uses_that_answer(tmp_path, monkeypatch):
    # a third lookup would answer 127.0.0.1; connecting by name (httpx's own lookup) would ask it
    resolver = Resolver(then=["127.0.0.1"], flip_after=2)
    with sealed_network(monkeypatch) as network:
        page = fetch_page("http://rebind.test/page", online(tmp_path), resolve=resolver)
    assert page.text == "page /page for rebind.test"
    assert resolver.calls == 2 and network.connects == [(PUBLIC, 80)] and network.lookups == []


def test_redirects_stop_after_the_cap(tmp_path, monkeypatch):
    with sealed_network(monkeypatch) as network:
        with pytest.raises(IngestError, match=f"more than {MAX_REDIRECTS} redirects"):
            fetch_page("http://site.test/loop", online(tmp_path), resolve=Resolver())
    assert len(network.connects) == MAX_REDIRECTS + 1
