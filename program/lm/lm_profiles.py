"""The LM profiles: `local` (the bundled Qwen2.5-Coder on llama.cpp, in this process) and any model string
`dspy.LM` takes (`openai/gpt-4o-mini`, `ollama_chat/qwen2.5:7b`, ...; `openai` alone is the older name of
`openai/<GATEDRAG_OPENAI_MODEL>`).

`build_lm(settings)` returns an `LMHandle`: the `dspy.LM`, what it is, and `close()` for
whatever it started. `configure_lm(settings)` is what every command runs its work under: the LM
started, announced on stderr, and made DSPy's with the JSON adapter and usage tracking. An API LM's
settings are checked first (`program.lm.lm_check`), so a bad one ends in one line before anything starts.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import dspy

from program.base.settings import Settings
from program.lm.lm_check import SERVING, TEACHER, ApiLM, api_lm
from program.lm.local_lm import GGUF_SPECS, LocalServer, assemble_gguf

LLAMACPP = "llamacpp"  # the provider id our llama.cpp server is declared under
_ABANDONED: list = []  # servers left running after Ctrl-C, until the process exits


@dataclass
class LMHandle:
    lm: dspy.LM = field(repr=False)  # its kwargs can hold an API key
    profile: str
    description: str
    _server: LocalServer | None = field(default=None, repr=False)

    def empty_prompt_cache(self) -> None:
        """Forget every prompt served so far, so that the next run of the same questions pays for its
        own: a comparison's second system would otherwise be served the first one's prompts."""
        # an API model's provider-side cache cannot be emptied; there is nothing of ours to forget
        if self._server is not None:
            self._server.empty_prompt_cache()

    def close(self) -> None:
        self.lm.close()
        if self._server is not None:
            self._server.close()
            self._server = None

    def __enter__(self) -> LMHandle:
        return self

    def __exit__(self, exc_type, *exc) -> None:
        # subtle: llama.cpp's server stops in its destructor, which waits for the request in
        # flight; after Ctrl-C that request's worker thread is abandoned and never reads its
        # answer, so the wait never ends. The process is exiting: leave the server to it.
        # subtle: a subclass too: a SIGTERM arrives as one (optimize.sigterm), and an identity test
        # sent it to the destructor, where an eval killed mid-call waited until SIGKILL
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            self.lm.close()
            _ABANDONED.append(self._server)  # still referenced, so no destructor runs before the exit
            return
        self.close()


def json_adapter() -> dspy.JSONAdapter:
    """The adapter every entry point runs the program with.

    subtle: the 0.5B parsed 0/12 ChatAdapter outputs and 12/12 JSON ones (llama.cpp compiles the
    JSON schema to a grammar), and JSON spares ChatAdapter's failed first try."""
    return dspy.JSONAdapter()


@contextmanager
def configure_lm(settings: Settings, *, cache: bool = True, callbacks: Sequence = (),
                 announce: bool = True) -> Iterator[LMHandle]:
    """The settings' LM, started and made DSPy's (JSON adapter, usage tracking, `callbacks`) for the
    block, then stopped; `announce` prints which LM it is on stderr."""
    with build_lm(settings, cache=cache) as handle:
        if announce:
            print(f"profile: {handle.description}", file=sys.stderr)
        dspy.configure(lm=handle.lm, adapter=json_adapter(), track_usage=True, callbacks=list(callbacks))
        yield handle


def build_lm(settings: Settings, *, cache: bool = True) -> LMHandle:
    """The LM of `settings.resolved_profile`; `cache` is DSPy's on-disk response cache."""
    if settings.resolved_profile == "local":
        return _local(settings, cache)
    return _api(serving_lm(settings), settings, cache)


def serving_lm(settings: Settings) -> ApiLM | None:
    """The settings' API LM, checked (`program.lm.lm_check`); None for the local profile. Cheap: commands
    call it before their long work, so a bad LM setting ends in one line before an index build."""
    if settings.resolved_profile == "local":
        return None
    return api_lm(settings.resolved_profile, settings.lm_api_base, SERVING, _keys(settings))


def teacher_lm(settings: Settings, model: str) -> ApiLM | None:
    """The teacher `model`, checked as `serving_lm` checks the serving LM; None for a bundled local model."""
    if model in GGUF_SPECS:
        return None
    return api_lm(model, settings.teacher_api_base, TEACHER, _keys(settings))


def build_teacher(settings: Settings, model: str) -> LMHandle:
    """A stronger LM that teaches the serving one: a bundled local model by name, or any model string
    `dspy.LM` takes (its API base: GATEDRAG_TEACHER_API_BASE)."""
    if (api := teacher_lm(settings, model)) is None:
        return _local(settings.model_copy(update={"local_model": model}), cache=True)
    handle = _api(api, settings, cache=True)
    return LMHandle(handle.lm, handle.profile, f"teacher {handle.description}")


def _local(settings: Settings, cache: bool) -> LMHandle:
    server = LocalServer(assemble_gguf(settings.local_model, settings.model_cache))
    try:
        _declare_llamacpp()
        # subtle: DSPy's cache key ignores api_base, so the model id must name the weights;
        # with one id for both sizes, a 1.5B run would be served the 0.5B's cached answers.
        # logprobs: the acceptance model weighs how sure the reader was of its short answer
        lm = dspy.LM(f"{LLAMACPP}/{settings.local_model}", api_base=f"{server.base_url}/v1", api_key="sk-local",
                     temperature=0, max_tokens=settings.lm_max_tokens, cache=cache, logprobs=True)
    except BaseException:
        server.close()
        raise
    description = f"local {settings.local_model} (llama.cpp at {server.base_url}, {settings.lm_max_tokens} max tokens)"
    return LMHandle(lm, "local", description, server)


def _api(api: ApiLM, settings: Settings, cache: bool) -> LMHandle:
    # subtle: a server the user runs (an API base) is asked as the local LM is, greedy and bounded, since
    # llama-server's default is to sample until the context is full. A provider's own API gets no
    # max_tokens/temperature: OpenAI's reasoning models refuse max_tokens < 16000 and temperature != 1
    sampling = {"temperature": 0, "max_tokens": settings.lm_max_tokens} if api.api_base else {}
    connection = {k: v for k, v in (("api_base", api.api_base), ("api_key", api.api_key)) if v is not None}
    lm = dspy.LM(api.model, cache=cache, **connection, **sampling)
    return LMHandle(lm, api.model, f"{api.model} via DSPy at {api.where}", None)


def _keys(settings: Settings) -> dict[str, str]:
    """The provider keys the settings hold (from the environment or .env), by variable."""
    return {"OPENAI_API_KEY": settings.openai_api_key.get_secret_value()} if settings.openai_api_key else {}


def _declare_llamacpp() -> None:
    """Declare llama.cpp's server to DSPy's native engine as a chat provider that honours
    `response_format: json_schema` (llama.cpp compiles the schema to a grammar).

    Under the plain `openai/` prefix DSPy knows nothing of an unknown model id, assumes no
    structured output, and JSONAdapter then only asks for JSON in words. Registering the
    same declaration again is a no-op; the base URL here is a placeholder, each LM's
    `api_base` names the real port.
    """
    # deferred: DSPy's provider registry loads only for the local profile, which declares a model in it
    from dspy.lm15 import (
        AccessPolicy,
        EndpointSupport,
        ModelSupport,
        OpenAIChatCompat,
        ProviderDefinition,
        register_provider,
    )

    access = AccessPolicy(provider=LLAMACPP, supports=EndpointSupport(complete=True, stream=True, models=True),
                          auth_modes=("bearer",), base_url="http://127.0.0.1:8080/v1")
    compat = OpenAIChatCompat(instruction_role="system", max_tokens_field="max_tokens", stream_usage="include",
                              thinking_format="none", tool_result_name="omit", strict_tools="omit",
                              cache_control="none", json_schema="send")
    register_provider(ProviderDefinition.chat(access, compat=compat, placeholder_key="sk-local",
                                              note="llama.cpp server (xllamacpp, in-process)"),
                      supports=ModelSupport(response_schema=True))
