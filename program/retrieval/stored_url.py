"""A web page's URL as the index keeps it: without the credentials it may carry.

The decision: a URL with credentials is fetched, not refused (an internal documentation host may
need them), but they are used for that one fetch only. What is stored, searched, cited, traced,
logged and followed is the URL with its userinfo (`user:password@`) and every credential-like query
parameter removed: `token`, `key`, `sig`, `password`, `secret`, `access_token` and their common
kin (any name ending in `_token`, `_key`, `_secret` or `_signature`, and AWS's `X-Amz-*` signing
parameters), case-insensitive. A page's links are read against this URL, so a relative link never
inherits them; a link that spells out its own credentials loses them the same way.
This module does not fetch anything; see `program.retrieval.fetch`.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

CREDENTIAL_PARAMS = frozenset({"token", "key", "sig", "signature", "password", "passwd", "pwd", "secret",
                               "access_token", "apikey", "auth", "credential", "credentials"})
_CREDENTIAL_ENDINGS = ("_token", "_key", "_secret", "_signature", "-token", "-key", "-secret", "-signature")


def stored_url(url: str) -> str:
    """`url` without its userinfo and credential-like query parameters; any other part as it was."""
    parts = urlsplit(url)
    if "@" not in parts.netloc and not parts.query:
        return url
    netloc = parts.netloc.rpartition("@")[2]
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    kept = [(name, value) for name, value in pairs if not is_credential(name)]
    query = parts.query if len(kept) == len(pairs) else urlencode(kept)  # untouched when nothing is dropped
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def is_credential(name: str) -> bool:
    """Whether a query parameter's name says its value is a credential."""
    name = name.strip().lower()
    return name in CREDENTIAL_PARAMS or name.endswith(_CREDENTIAL_ENDINGS) or name.startswith("x-amz-")
