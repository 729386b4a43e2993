"""Which IP addresses a URL's host names, and whether each is public.

An address is public only if it AND every IPv4 address embedded in it are globally reachable.
An IPv4-mapped address (`::ffff:a.b.c.d`) is its IPv4 address. Otherwise an IPv6 address must be global
unicast (`2000::/3`) or well-known NAT64 (`64:ff9b::/96`), so the deprecated IPv4-compatible form
(`::a.b.c.d`), local-use NAT64 (`64:ff9b:1::/48`) and the rest of `::/8` are never public; and 6to4
(`2002::/16`), NAT64 and Teredo (`2001::/32`) are checked for the IPv4 addresses a relay would route
to. The rules are written out here rather than left to `ipaddress.is_global`, whose answer for these
ranges changed between Python versions.
This module does not fetch anything; see `program.retrieval.fetch`.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from ipaddress import IPv4Address, IPv6Address

Resolve = Callable[[str], list[str]]  # host -> its IP addresses

GLOBAL_UNICAST = ipaddress.ip_network("2000::/3")  # RFC 4291: every public IPv6 address but NAT64's
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix: the IPv4 is the last 32 bits


class UnresolvedHost(Exception):
    """The host has no address: the resolver failed or answered nothing."""


def host_addresses(host: str, resolve: Resolve) -> list[str]:
    """The addresses `host` names: itself when numeric in any form, else what `resolve` answers."""
    literal = numeric_address(host)
    if literal is not None:
        return [literal]
    try:
        found = resolve(host)
    except OSError as error:
        raise UnresolvedHost(str(error)) from None
    if not found:
        raise UnresolvedHost("no address")
    return list(found)


def numeric_address(host: str) -> str | None:
    """The address a numeric host stands for, or None for a name.

    subtle: the C resolver reads `2130706433`, `0x7f.1` and `0177.0.0.1` as 127.0.0.1 (inet_aton),
    so they are read here the same way instead of being handed to a resolver that might not.
    """
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        return socket.inet_ntoa(socket.inet_aton(host))
    except (OSError, ValueError):  # ValueError: an embedded NUL
        return None


def is_public(address: str) -> bool:
    """True when the address and every IPv4 address embedded in it are globally reachable unicast."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone id
    if ip.version == 6 and ip.ipv4_mapped:  # the kernel connects ::ffff:a.b.c.d over IPv4 to a.b.c.d
        ip = ip.ipv4_mapped
    return all(_is_global(each) for each in (ip, *embedded_ipv4(ip)))


def embedded_ipv4(ip: IPv4Address | IPv6Address) -> list[IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: mapped, 6to4, NAT64, and Teredo's server and client."""
    if ip.version == 4:
        return []
    found = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip in NAT64:
        found.append(IPv4Address(int(ip) & 0xFFFFFFFF))
    return [each for each in found if each is not None]


def _is_global(ip: IPv4Address | IPv6Address) -> bool:
    if ip.version == 6 and ip not in GLOBAL_UNICAST and ip not in NAT64:
        return False
    return ip.is_global and not ip.is_multicast
