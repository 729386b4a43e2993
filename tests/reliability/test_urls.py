"""The URL matrix: over 100 URLs an attacker might try, each refused with 0 sockets opened to a non-public address.

Forms: IPv4 in decimal, hex, octal and short notation; IPv6 addresses that embed IPv4 (mapped, compatible,
6to4, NAT64, Teredo); `user@host` and parser tricks; names that resolve to private addresses; a resolver
that changes its answer; redirect chains from a public page to private addresses. Every fetch runs the real
client on a sealed network (`tests.reliability.network`): only 127.0.0.1 is ever reached, standing in for
one public address.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import quote

import pytest
from program.errors import IngestError
from program.retrieval.fetch import MAX_REDIRECTS, fetch_page
from program.settings import Settings
from tests.reliability.network import PUBLIC, Resolver, sealed_network

PRIVATE_V4 = ["127.0.0.1", "10.0.0.1", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "100.64.0.1",
              "224.0.0.1", "198.18.0.1", "255.255.255.255"]
NAMES = {"private.test": ["10.0.0.7"], "mixed.test": [PUBLIC, "127.0.0.1"], "metadata.test": ["169.254.169.254"],
         "mapped.test": ["::ffff:127.0.0.1"], "compat.test": ["::127.0.0.1"], "sixtofour.test": ["2002:7f00:1::"],
         "nat64.test": ["64:ff9b::a00:1"], "teredo.test": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
         "loopback6.test": ["::1"], "ula.test": ["fd00::1"], "zone.test": ["fe80::1%eth0"]}


def numeric_forms(address: str) -> list[str]:
    """Every way to write an IPv4 address as a URL host that a resolver or an IPv6 stack reads as it."""
    value, octets = int(ipaddress.IPv4Address(address)), address.split(".")
    teredo_server = ipaddress.IPv6Address((0x20010000 << 96) | (value << 64))
    teredo_client = ipaddress.IPv6Address((0x20010000 << 96) | (int(ipaddress.IPv4Address(PUBLIC)) << 64)
                                          | (~value & 0xFFFFFFFF))
    return [address, str(value), hex(value), ".".join(f"0{int(o):o}" for o in octets),
            ".".join(hex(int(o)) for o in octets), f"{octets[0]}.{value & 0xFFFFFF}",
            f"[::ffff:{address}]", f"[{ipaddress.IPv6Address((0xFFFF << 32) | value)}]", f"[::{address}]", f"[64:ff9b::{address}]",
            f"[64:ff9b:1::{address}]", f"[{ipaddress.IPv6Address((0x2002 << 112) | (value << 80))}]",
            f"[{teredo_server}]", f"[{teredo_client}]", f"{PUBLIC}@{address}"]


DIRECT = [f"http://{host}/secret" for address in PRIVATE_V4 for host in numeric_forms(address)]
TRICKS = ["http://localhost/", "http://api.localhost./", "http://[::1]/", "http://[::]/", "http://[fe80::1%25eth0]/",
          f"http://user:pw@{PUBLIC}@127.0.0.1/", "http://93.184.216.34\\@127.0.0.1/", "http://127.0.0.1#@93.184.216.34/",
          "http://127.0.0.1:80/", "http://2130706433./", "HTTP://0X7F000001/"]
NAMED = [f"http://{name}/secret" for name in NAMES]
REDIRECTS = [f"http://site.test/to?u={quote(target, safe='')}" for target in
             ["http://127.0.0.1/secret", "http://2130706433/secret", "http://[::ffff:7f00:1]/secret",
              "http://[::127.0.0.1]/secret", "http://[2002:7f00:1::]/secret", "http://[64:ff9b::7f00:1]/secret",
              "http://private.test/secret", "http://metadata.test/latest/meta-data", "/to?u=http%3A%2F%2F10.0.0.1%2F",
              "file:///etc/passwd"]]
CORPUS = DIRECT + TRICKS + NAMED + REDIRECTS


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
