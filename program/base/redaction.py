"""Redact secrets from text before it leaves the process: logs, result warnings, /readyz, results files.

`shown_url` is a URL as any message may show it: without its user, password, query or fragment
(`http://admin:pass@host/?token=...` is `http://host/`).

`redact` replaces every known secret value (each `SecretStr` of every `Settings` built in this process,
registered by `remember`) and anything shaped like an API key (`sk-...`, `tvly-...`, a Bearer token)
with `MARKER`. `install_log_redaction` makes every log record pass through it. Each sink calls `redact`
once, where its text is made; this module does not decide what is logged or stored.
"""

from __future__ import annotations

import logging
import re
import threading
from urllib.parse import urlsplit, urlunsplit

MARKER = "[redacted]"
MIN_SECRET_CHARS = 8  # shorter values would also match ordinary words; keys are far longer
KEY_PATTERNS = re.compile(r"\bsk-[A-Za-z0-9_-]{16,}|\btvly-[A-Za-z0-9_-]{16,}|(?<=[Bb]earer )[A-Za-z0-9._~+/=-]{8,}")

_URL = re.compile(r"https?://[^\s'\"<>]+")
_secrets: set[str] = set()
_lock = threading.Lock()


def remember(*values: str) -> None:
    """Add secret values to redact from now on (Settings calls this for its own)."""
    with _lock:
        _secrets.update(v for v in values if len(v) >= MIN_SECRET_CHARS)


def redact(text: str) -> str:
    """`text` with every known secret and key-shaped token replaced by MARKER."""
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)  # longest first: a key may contain another
    for secret in known:
        text = text.replace(secret, MARKER)
    return KEY_PATTERNS.sub(MARKER, text)


def shown_url(url: str) -> str:
    """The URL without what may be a secret: its userinfo, query and fragment."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # not a URL at all (a bad port, say): show nothing of it
        return "(a URL that cannot be parsed)"
    host = f"[{host}]" if ":" in host else host
    return urlunsplit((parts.scheme, f"{host}{port}", parts.path, "", ""))


def shown_urls_in(text: str) -> str:
    """`text` with every http(s) URL in it shown as `shown_url` shows it (a transport error quotes URLs whole)."""
    return _URL.sub(lambda found: shown_url(found.group()), text)


def install_log_redaction() -> None:
    """Redact every log record from now on, whatever its logger or handler; installing twice is a no-op.

    subtle: a filter on the root logger never sees records that propagate from child loggers, and
    handlers come and go (uvicorn's own, logging.lastResort), so records are cleaned as they are made.
    """
    make = logging.getLogRecordFactory()
    if getattr(make, "redacts", False):
        return

    def redacted_record(*args, **kwargs) -> logging.LogRecord:
        record = make(*args, **kwargs)
        try:
            record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string is the handler's to report, as logging does
            return record
        # subtle: the args keep their shape, each redacted: uvicorn's access formatter unpacks them
        # (emptied, every request printed a "--- Logging error ---" traceback and no access line)
        record.msg = redact(record.msg) if isinstance(record.msg, str) else record.msg
        record.args = _redacted_args(record.args)
        if record.exc_info:  # the traceback's last line repeats the exception text
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return record

    redacted_record.redacts = True
    logging.setLogRecordFactory(redacted_record)


def _redacted_args(args):
    """A log record's args, each string (or object shown as one) redacted; numbers stay numbers for `%d`."""
    def clean(value):
        return value if isinstance(value, (int, float, type(None))) else redact(str(value))
    if isinstance(args, dict):
        return {k: clean(v) for k, v in args.items()}
    return tuple(clean(a) for a in args) if args else args
