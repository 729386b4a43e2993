"""Who may call the HTTP service, and how often: a trusted-host check, an optional bearer token and an
optional per-client rate limit, as ASGI middleware.

- Host: bound to a loopback address, the service answers only requests whose Host header names
  loopback, so a web page that rebinds its own DNS name to 127.0.0.1 gets 400. Bound elsewhere it
  answers the hosts in `allowed_hosts` (any, when that is empty).
- Token: with `api_token` set, each request but the probes needs `Authorization: Bearer <token>`;
  else 401 with `WWW-Authenticate: Bearer`. The token is compared in constant time and never echoed.
- Rate: with `rate_limit_per_minute` set, a client IP over its limit gets 429 with `Retry-After`.

This module does not answer requests; see `program.serving.service`.
"""

from __future__ import annotations

import hmac
import ipaddress
import math

from fastapi import FastAPI
from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from program.base.settings import Settings
from program.serving.safe_json import SafeJSONResponse
from program.serving.token_buckets import TokenBuckets

# subtle: /readyz is open too. Orchestrators' readiness probes and load balancers cannot carry a
# token, and it tells only whether the models loaded (and which LM), nothing from the collection.
PROBES = frozenset({"/healthz", "/readyz"})
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def install_guards(app: FastAPI, settings: Settings) -> None:
    """Wrap `app` in the guards, outermost first: host, then rate, then token."""
    # Starlette puts the last middleware added outermost. A rebinding page learns nothing, not even
    # a 401; and wrong-token guesses count against the rate limit.
    if settings.api_token is not None:
        app.add_middleware(BearerToken, token=settings.api_token.get_secret_value())
    if settings.rate_limit_per_minute is not None:
        app.add_middleware(RateLimit, buckets=TokenBuckets(settings.rate_limit_per_minute))
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=trusted_hosts(settings), www_redirect=False)


def trusted_hosts(settings: Settings) -> list[str]:
    """The Host header values answered: `allowed_hosts`, else loopback names when bound to loopback, else any."""
    if settings.allowed_hosts:
        return settings.allowed_hosts
    if not is_loopback(settings.serve_host):
        return ["*"]
    bound = settings.serve_host.lower()
    bound = f"[{bound}]" if ":" in bound else bound  # an IPv6 literal, as a Host header writes it
    return list(dict.fromkeys([*LOOPBACK_HOSTS, bound]))


def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class BearerToken:
    """Refuse each HTTP request but the probes that lacks `Authorization: Bearer <token>`."""

    def __init__(self, app: ASGIApp, token: str):
        self.app, self._token = app, token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PROBES or self._presented(scope):
            await self.app(scope, receive, send)
            return
        response = SafeJSONResponse({"detail": "a valid bearer token is required (Authorization: Bearer <token>)"},
                                    401, headers={"WWW-Authenticate": "Bearer"})
        await response(scope, receive, send)

    def _presented(self, scope: Scope) -> bool:
        # header values arrive as latin-1; back to the bytes the client sent
        scheme, _, token = Headers(scope=scope).get("authorization", "").encode("latin-1").partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(token.strip(), self._token)


class RateLimit:
    """Answer 429 with `Retry-After` to a client IP over its limit. The probes are never limited: a
    probe refused because a busy client shares its IP would get a healthy service restarted."""

    def __init__(self, app: ASGIApp, buckets: TokenBuckets):
        self.app, self.buckets = app, buckets

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in PROBES:
            await self.app(scope, receive, send)
            return
        client = scope.get("client") or ("unknown",)  # a unix socket has no peer address
        wait = self.buckets.take(client[0])
        if wait == 0:
            await self.app(scope, receive, send)
            return
        response = SafeJSONResponse({"detail": "rate limit exceeded: retry later"}, 429,
                                    headers={"Retry-After": str(math.ceil(wait))})
        await response(scope, receive, send)
