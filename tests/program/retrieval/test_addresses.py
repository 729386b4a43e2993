"""program/retrieval/addresses.py: public addresses, embedded IPv4, and numeric hosts read as the C resolver reads them."""

from __future__ import annotations

import ipaddress

import pytest

from program.retrieval.addresses import (
    UnresolvedHost,
    embedded_ipv4,
    host_addresses,
    is_public,
    numeric_address,
)


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:93.184.216.34",
                                     "2002:5db8:d822::1", "64:ff9b::5db8:d822"])
def test_public_addresses_pass(address):
    assert is_public(address)


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "100.64.0.1", "224.0.0.1", "::1", "::", "fe80::1%eth0", "fd00::1", "ff02::1",
    "::ffff:127.0.0.1", "::127.0.0.1", "::93.184.216.34", "2002:7f00:1::", "2002:a00:1::1", "64:ff9b::a00:1",
    "64:ff9b::7f00:1", "64:ff9b:1::5db8:d822", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "0:ffff::7f00:1",
])
def test_private_or_embedding_private_addresses_fail(address):
    assert not is_public(address)


def test_the_embedded_ipv4_addresses_are_found():
    as_v4 = lambda *xs: [ipaddress.IPv4Address(x) for x in xs]  # noqa: E731
    assert embedded_ipv4(ipaddress.ip_address("2002:7f00:1::")) == as_v4("127.0.0.1")
    assert embedded_ipv4(ipaddress.ip_address("64:ff9b::a00:1")) == as_v4("10.0.0.1")
    assert embedded_ipv4(ipaddress.ip_address("2001:0:4136:e378:8000:63bf:3fff:fdd2")) == as_v4("65.54.227.120",
                                                                                                  "192.0.2.45")
    assert embedded_ipv4(ipaddress.ip_address("93.184.216.34")) == []


@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "0177.0.0.1", "0x7f.0.0.1", "127.1", "127.0.0.1"])
def test_numeric_hosts_are_read_as_addresses(host):
    assert numeric_address(host) == "127.0.0.1"


def test_names_go_to_the_resolver_and_numbers_never_do():
    asked = []
    resolve = lambda host: asked.append(host) or ["93.184.216.34"]  # noqa: E731
    assert host_addresses("example.com", resolve) == ["93.184.216.34"]
    assert host_addresses("0x7f.1", resolve) == ["127.0.0.1"] and asked == ["example.com"]
    with pytest.raises(UnresolvedHost):
        host_addresses("nowhere.test", lambda host: [])
