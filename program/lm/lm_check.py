"""Check an API LM's settings before any long work starts, and say what `dspy.LM` is built with.

An API LM is a model string `dspy.LM` takes (`openai/gpt-4o-mini`, `ollama_chat/qwen2.5:7b`, ...), an
optional API base, and the provider's key variable. `api_lm` checks, cheaply and in this order, that the
string names a provider DSPy's native engine or LiteLLM knows, that the provider's key is set (unless an API
base is given: a llama-server or Ollama needs none), and that the API base's host:port accepts a TCP
connection. Each failure is one `LMSettingsError` line naming the variable to fix, never a key's value.
A key it reads is handed to `program.base.redaction`. This module sends no request to the LM and builds
no `dspy.LM` (`program.lm.lm_profiles` does).
"""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import dspy

from program.base.redaction import remember, shown_url

PROBE_TIMEOUT_S = 3.0
# subtle: the OpenAI client refuses to send a request with no key at all, and a local server needs none
NO_KEY = "sk-no-key"
_MODEL = re.compile(r"[^/\s]+/\S+")


class LMSettingsError(ValueError):
    """An LM setting that cannot work; the message names the variable to fix."""


@dataclass(frozen=True)
class Names:
    """The variables a message names: the model's and its API base's."""

    model: str
    api_base: str


SERVING = Names("GATEDRAG_LM", "GATEDRAG_LM_API_BASE")
TEACHER = Names("--teacher-model", "GATEDRAG_TEACHER_API_BASE")


@dataclass(frozen=True)
class ApiLM:
    """What `dspy.LM` is built with: `api_key` None leaves the key to LiteLLM, which reads the provider's variable."""

    model: str
    api_base: str | None
    api_key: str | None = field(repr=False)

    @property
    def where(self) -> str:
        """The API base as a message may show it (no userinfo or query), or the provider's own."""
        return shown_url(self.api_base) if self.api_base else "the provider's API"


def api_lm(model: str, api_base: str | None, names: Names, keys: dict[str, str] | None = None) -> ApiLM:
    """The checked LM of `model` at `api_base`; `keys`: key values the settings already hold, by variable."""
    if not _MODEL.fullmatch(model):
        raise LMSettingsError(f"{names.model} {model!r}: not provider/model; name the model as dspy.LM "
                              "takes it, e.g. openai/gpt-4o-mini or ollama_chat/qwen2.5:7b (docs/lms.md)")
    key = _key(model, api_base, names, keys or {})
    if api_base:
        _probe(api_base, names.api_base)
    return ApiLM(model, api_base or None, key)


def _key(model: str, api_base: str | None, names: Names, keys: dict[str, str]) -> str | None:
    """The key to send: the provider's variable, a provider's placeholder, or NO_KEY for an API base without one."""
    resolution = _native(model, api_base)
    if resolution is None:
        return _litellm_key(model, api_base, names)
    variable = resolution.env_key
    key = (keys.get(variable) or os.environ.get(variable)) if variable else None
    if key:
        remember(key)
        return key
    if resolution.placeholder_key or not variable:
        return resolution.placeholder_key
    if api_base:
        return NO_KEY
    raise LMSettingsError(f"{variable} is not set, and {names.model} {model} needs it; or set {names.api_base} "
                          "to a server that needs no key")


def _native(model: str, api_base: str | None):
    """DSPy's native engine's resolution of `model` (its provider, key variable and placeholder), or None
    when only LiteLLM can route it. Offline: no client is made and no key is read."""
    # deferred: DSPy's engine selection loads its provider registry
    from dspy.clients.backend_selection import select_backend

    return select_backend(dspy.LM(model, api_base=api_base)).resolution


def _litellm_key(model: str, api_base: str | None, names: Names) -> None:
    import litellm  # deferred: seconds to import, and only a model DSPy's native engine cannot route needs it

    provider = model.split("/", 1)[0]
    if provider not in litellm.provider_list:
        raise LMSettingsError(f"{names.model} {model!r}: unknown provider {provider!r}; name the model as dspy.LM "
                              "takes it, e.g. openai/gpt-4o-mini or ollama_chat/qwen2.5:7b (docs/lms.md)")
    missing = litellm.validate_environment(model, api_base=api_base).get("missing_keys") or []
    if missing and not api_base:
        raise LMSettingsError(f"{missing[0]} is not set, and {names.model} {model} needs it")
    return None  # LiteLLM reads the provider's variables itself


def _probe(api_base: str, variable: str) -> None:
    """The API base's host:port accepts a TCP connection within PROBE_TIMEOUT_S."""
    host, port = _host_port(api_base, variable)
    try:
        socket.create_connection((host, port), timeout=PROBE_TIMEOUT_S).close()
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise LMSettingsError(f"{variable} {shown_url(api_base)}: nothing answers at {host}:{port} ({reason}); start "
                              "the server or fix the address") from None


def _host_port(api_base: str, variable: str) -> tuple[str, int]:
    try:
        parts = urlsplit(api_base)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:  # a port that is not a number
        parts, port = None, 0
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise LMSettingsError(f"{variable} {shown_url(api_base)}: not an http(s) URL with a host, such as "
                              "http://127.0.0.1:8080/v1")
    return parts.hostname, port
