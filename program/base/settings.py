"""All gatedrag settings in one place, read from the environment (and `.env`).

The env names users already know are kept as they are: OPENAI_API_KEY, TAVILY_API_KEY,
QDRANT_URL, MLFLOW_TRACKING_URI, COHERE_API_KEY (or CO_API_KEY), CO_API_URL. Everything else is prefixed GATEDRAG_.
The LM is `GATEDRAG_LM` (`GATEDRAG_PROFILE` is its older name): `local`, or any model string `dspy.LM` takes;
another provider's key (ANTHROPIC_API_KEY, ...) is read by `program.lm.lm_check`, where LiteLLM would read it. Secrets are
`SecretStr`, so they never print in logs, traces or MLflow params, and their values are handed
to `program.base.redaction`, which removes them from error text wherever it leaves the process.
This module does not start models or open stores; see `program.lm.lm_profiles` and `program.retrieval.open_store`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from program.base.redaction import remember

MAX_QUESTION_CHARS = 2000  # a question longer than this is refused by every entry point
PROJECT_ROOT = Path(__file__).resolve().parents[2]

LocalModel = Literal["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]
DEFAULT_LOCAL_MODEL: LocalModel = "qwen2.5-coder-0.5b"


def _user_cache() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def _env(name: str) -> AliasChoices:
    return AliasChoices(name, name.lower())


class Settings(BaseSettings):
    # subtle: a refused value may be a secret (a malformed token or key), so errors never quote it.
    # populate_by_name: code and flags set `profile=` although its env names (GATEDRAG_LM, GATEDRAG_PROFILE) are
    # aliases; it also lets GATEDRAG_<FIELD> set the other aliased fields, a harmless second name
    model_config = SettingsConfigDict(env_prefix="GATEDRAG_", env_file=".env", extra="ignore",
                                      hide_input_in_errors=True, populate_by_name=True)

    data_dir: Path = Field(PROJECT_ROOT / ".gatedrag", description="indexes, web cache, runs")
    # subtle: models are shared by every data folder, so a new data folder does not re-assemble the GGUF
    model_cache: Path = Field(default_factory=lambda: _user_cache() / "gatedrag" / "models",
                              description="assembled model files, and the empty MLflow store new ones are copied from "
                              "(default: $XDG_CACHE_HOME or ~/.cache, /gatedrag/models)")
    shared_data: Path = Field(PROJECT_ROOT.parent / "shared" / "data", description="labelled sets")

    # LM
    profile: str | None = Field(None, validation_alias=AliasChoices(
        "GATEDRAG_LM", "gatedrag_lm", "GATEDRAG_PROFILE", "gatedrag_profile"), description="the LM: local (the bundled "
        "model, on llama.cpp in this process), or provider/model as dspy.LM takes it (openai/gpt-4o-mini, "
        "ollama_chat/qwen2.5:7b, hosted_vllm/..., anthropic/...); openai alone is openai/<openai_model>. "
        "Default: openai if OPENAI_API_KEY is set, else local")
    lm_api_base: str | None = Field(None, description="the API base of a provider/model LM (a llama-server, Ollama, "
                                    "vLLM or LM Studio address, or a proxy); default: the provider's own")
    teacher_api_base: str | None = Field(None, description="the API base of a provider/model teacher "
                                         "(--teacher-model); default: the provider's own")
    local_model: LocalModel = DEFAULT_LOCAL_MODEL
    openai_model: str = Field("gpt-4o-mini", description="the model of the openai profile")
    openai_api_key: SecretStr | None = Field(None, validation_alias=_env("OPENAI_API_KEY"))
    lm_max_tokens: int = 512

    # Retrieval
    qdrant_url: str | None = Field(None, validation_alias=_env("QDRANT_URL"))
    qdrant_api_key: SecretStr | None = Field(None, validation_alias=_env("QDRANT_API_KEY"))
    collection: str = "hotpotqa"
    web_collection: str | None = Field(None, description="the offline web corpus of `collection` (default: "
                                       "<collection>_web); a collection never searches another's corpus unless named here")
    reranker: Literal["none", "embedding", "cross-encoder", "cohere"] = Field(
        "none", description="re-scores the candidate pool before the gate reads it (program/retrieval/rerankers.py); "
        "the gate's thresholds are in its units, so fit them per reranker")
    reranker_model: str | None = Field(None, description="the cross-encoder (from the model cache) or the hosted "
                                       "model; default Xenova/ms-marco-MiniLM-L-6-v2, or rerank-v3.5 for cohere")
    cohere_api_key: SecretStr | None = Field(None, validation_alias=AliasChoices(
        "COHERE_API_KEY", "cohere_api_key", "CO_API_KEY", "co_api_key"))
    co_api_url: str | None = Field(None, validation_alias=_env("CO_API_URL"),
                                        description="Cohere's API address (default: its public one)")

    # Web search
    tavily_api_key: SecretStr | None = Field(None, validation_alias=_env("TAVILY_API_KEY"))
    web_backend: Literal["tavily", "offline", "none"] | None = Field(
        None, description="default: tavily if TAVILY_API_KEY is set; none: the loop never searches the web")
    tavily_api_base_url: str | None = None
    tavily_search_depth: Literal["basic", "advanced"] = "basic"
    tavily_max_results: int = 5
    tavily_include_domains: list[str] = []
    tavily_exclude_domains: list[str] = []
    tavily_timeout_s: float = 20.0
    web_cache_ttl_s: int = 24 * 3600

    # Serving (python -m program serve / mcp)
    system: Literal["gated", "learned", "single_pass", "fixed_hops"] = Field(
        "gated", description="what `ask`, the HTTP service, the MCP server and an MLflow model answer with: the gated "
        "loop, the loop whose acceptance model gives or withholds each answer (learned), or a baseline (`program.baselines`) where `optimize eval` finds it gives more right answers a minute")
    serve_host: str = Field("127.0.0.1", description="the HTTP service binds here; 0.0.0.0 exposes it to the network")
    serve_port: int = Field(8000, ge=0, le=65535)
    serve_timeout_s: float = Field(60.0, gt=0, description="soft per-request limit, queueing included: past it the "
                                   "loop returns its draft, or retrieval only if it never got the LM, with a warning")
    serve_lm_slots: int | None = Field(None, ge=1, description="requests running the loop at once; default 1 for the "
                                       "local LM (one llama.cpp slot: more would only interleave), 4 otherwise")
    serve_max_pending: int = Field(64, ge=1, description="requests admitted at once, running or queued; more get 503")
    serve_max_body_bytes: int = Field(64 * 1024, ge=1024)
    ingest_max_bytes: int = Field(5 * 2**20, ge=1024, description="largest file or web page `ingest` accepts")
    ingest_archive_max_members: int = Field(20_000, ge=1, description="most files one archive may hold "
                                            "(the AWS guides' archive holds 2,797)")
    ingest_archive_max_bytes: int = Field(512 * 2**20, ge=1024, description="most bytes `ingest` reads from one "
                                          "archive's files, as declared and as read (the AWS guides': 20 MB)")
    ray_address: str | None = Field(None, description="`ingest --ray` embeds on this Ray cluster (ray://host:10001, or "
                                    "host:6379 from a node of it); unset: RAY_ADDRESS, else a Ray started on this "
                                    "machine for the run. Setting it makes the CLI's `ingest` use Ray")
    ray_actors: int | None = Field(None, ge=1, description="embedding actors of `ingest --ray`, one CPU each "
                                   "(default: one per CPU of the cluster)")
    ingest_timeout_s: float = Field(20.0, gt=0, description="longest wait for one connect or read when `ingest` "
                                    "fetches a URL")
    fetch_deadline_s: float = Field(30.0, gt=0, description="the whole fetch of one page (every redirect and the "
                                    "whole body) or one breadth round; inside a question also at most half its "
                                    "time left. Past it the page is dropped with a warning")
    fetch_allow_hosts: list[str] = Field([], description="host names, or host:port, that `ingest` and breadth "
                                         "expansion may fetch although they are local or private, and without the "
                                         "online web backend: for internal documentation hosts only")
    serve_ingest: bool = Field(False, description="allow POST /ingest on the HTTP service")
    ingest_roots: list[Path] = Field([], description="folders whose files the HTTP service and the MCP server may "
                                     "ingest; empty: no files, only URLs (the CLI is not confined)")
    api_token: SecretStr | None = Field(None, description="when set, every HTTP route but /healthz and /readyz "
                                        "needs `Authorization: Bearer <token>`; unset: no auth (the default bind is "
                                        "loopback)")
    allowed_hosts: list[str] = Field([], description="Host header values the HTTP service answers, `*.example.com` "
                                     "or `*` for any; empty: loopback names when it binds a loopback address (this "
                                     "blocks DNS rebinding), any host otherwise")
    rate_limit_per_minute: int | None = Field(None, ge=1, description="requests a minute per client IP, in bursts of "
                                              "as many; off by default: the local LM serves one request at a time and "
                                              "serve_max_pending already bounds the queue, and behind a proxy every "
                                              "caller shares one IP")

    # Sessions (follow-up questions)
    session_turns: int = Field(5, ge=1, le=50, description="turns a session keeps; a follow-up reads them")
    session_idle_s: float = Field(600.0, gt=0, description="a session with no new turn for this long is forgotten")
    session_max: int = Field(1000, ge=1, description="sessions kept at once; past it the least recently used is dropped")
    session_store: Literal["memory", "file"] = Field("memory", description="memory: this process only (the server's "
                                                     "default); file: under <data_dir>/sessions, shared by processes "
                                                     "(`ask --session` always uses it)")

    # Tracking
    mlflow_tracking_uri: str | None = Field(None, validation_alias=_env("MLFLOW_TRACKING_URI"))

    def model_post_init(self, context: Any, /) -> None:
        # every key any Settings holds, whichever field it came from, is redacted from then on
        remember(*(value.get_secret_value() for value in self.__dict__.values() if isinstance(value, SecretStr)))

    @field_validator("api_token")
    @classmethod
    def _sendable_token(cls, token: SecretStr | None) -> SecretStr | None:
        # subtle: an empty value (`GATEDRAG_API_TOKEN=$UNSET`) would be a token anyone can send, and
        # one a client cannot put in a header would lock everyone out
        if token is not None and not re.fullmatch(r"[!-~]+", token.get_secret_value()):
            raise ValueError("GATEDRAG_API_TOKEN must be printable ASCII without spaces; unset it to turn auth off")
        return token

    @field_validator("allowed_hosts")
    @classmethod
    def _host_patterns(cls, hosts: list[str]) -> list[str]:
        for host in hosts:
            if "*" in host[1:] or (host.startswith("*") and host != "*" and not host.startswith("*.")):
                raise ValueError(f"allowed host {host!r}: a wildcard is `*` or `*.example.com`")
        return hosts

    @property
    def resolved_profile(self) -> str:
        """`local`, or the model string `dspy.LM` is given (`openai` alone: `openai/<openai_model>`)."""
        profile = self.profile or ("openai" if self.openai_api_key else "local")
        if profile != "openai":
            return profile
        return self.openai_model if "/" in self.openai_model else f"openai/{self.openai_model}"

    @property
    def serving_model(self) -> str:
        """The model that answers, as records name it: the local model's name, or the model string."""
        return self.local_model if self.resolved_profile == "local" else self.resolved_profile

    @property
    def resolved_web_backend(self) -> Literal["tavily", "offline", "none"]:
        if self.web_backend:
            return self.web_backend
        return "tavily" if self.tavily_api_key else "offline"

    @property
    def web_backend_note(self) -> str:
        """Why the web backend is what it is, when the user did not choose it: a key in the
        environment must not switch the answers' sources silently."""
        if self.web_backend is None and self.tavily_api_key:
            return "web: Tavily, because TAVILY_API_KEY is set (GATEDRAG_WEB_BACKEND=offline or none chooses otherwise)"
        return ""

    @property
    def resolved_web_collection(self) -> str:
        return self.web_collection or f"{self.collection}_web"

    @property
    def qdrant_path(self) -> Path:
        """The embedded store: one Qdrant Edge shard folder per collection."""
        return self.data_dir / "qdrant-edge"

    @property
    def legacy_qdrant_path(self) -> Path:
        """Where gatedrag's older qdrant-client local-mode store lived; no longer read."""
        return self.data_dir / "qdrant"

    @property
    def sessions_path(self) -> Path:
        return self.data_dir / "sessions"

    @property
    def hotpotqa_dir(self) -> Path:
        return self.shared_data / "hotpotqa"
