"""The URL corpus: over 100 URLs an attacker might try to reach a local, private or reserved address with.

Forms: IPv4 in decimal, hex, octal and short notation; IPv6 addresses that embed IPv4 (mapped,
compatible, 6to4, NAT64, Teredo); `user@host` and parser tricks; names that `NAMES` resolves to
private addresses; redirect chains from a public page to private addresses. Shared by
tests/reliability/test_urls.py and bench/fault_checks/urls.py; not a test module.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import quote

from tests.reliability.network import PUBLIC

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
