"""program/serving/http_guards.py: which Host headers the service answers, from where it binds."""

import pytest

from program.base.settings import Settings
from program.serving.http_guards import is_loopback, trusted_hosts


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("[::1]", True),
                                            ("LOCALHOST", True), ("0.0.0.0", False), ("::", False),
                                            ("192.168.1.5", False), ("example.org", False), ("localhost.evil", False)])
def test_loopback_addresses_and_names(host, loopback):
    assert is_loopback(host) is loopback


def test_a_loopback_bind_answers_only_loopback_hosts():
    assert trusted_hosts(Settings(_env_file=None)) == ["localhost", "127.0.0.1", "[::1]"]
    assert trusted_hosts(Settings(_env_file=None, serve_host="::1")) == ["localhost", "127.0.0.1", "[::1]"]
    assert trusted_hosts(Settings(_env_file=None, serve_host="127.0.0.2"))[-1] == "127.0.0.2"


def test_another_bind_answers_any_host_unless_the_hosts_are_configured():
    assert trusted_hosts(Settings(_env_file=None, serve_host="0.0.0.0")) == ["*"]
    configured = Settings(_env_file=None, serve_host="0.0.0.0", allowed_hosts=["api.example", "*.example.org"])
    assert trusted_hosts(configured) == ["api.example", "*.example.org"]
    # a configured list replaces the loopback default (a proxy in front forwards its own name)
    assert trusted_hosts(Settings(_env_file=None, allowed_hosts=["api.example"])) == ["api.example"]


@pytest.mark.parametrize("pattern", ["a*b", "*example.org", "api.*"])
def test_a_malformed_wildcard_is_refused_at_start_up(pattern):
    with pytest.raises(ValueError, match="wildcard"):
        Settings(_env_file=None, allowed_hosts=[pattern])
