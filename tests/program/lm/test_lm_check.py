"""program/lm/lm_check.py through `build_lm` and `build_teacher`: an API LM at a fake OpenAI server on 127.0.0.1
is built as the settings say, and each bad setting (unknown provider, missing key, unreachable or malformed
API base) is one `LMSettingsError` naming the variable, raised before anything starts; keys never show."""

from __future__ import annotations

import socket
import uuid

import pytest

from program.base.redaction import MARKER, redact
from program.base.settings import Settings
from program.lm.lm_check import NO_KEY, LMSettingsError
from program.lm.lm_profiles import build_lm, build_teacher

KEY = "canary-anthropic-5e4d3c2b1a"


def settings(**overrides) -> Settings:
    return Settings(_env_file=None, **{"openai_api_key": None, **overrides})


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)


def test_a_model_string_at_an_api_base_is_asked_greedy_and_bounded_with_no_key_needed(server):
    with build_lm(settings(profile="openai/fake", lm_api_base=server.api_base, lm_max_tokens=64), cache=False) as handle:
        assert handle.lm("hi") == ['{"answer": "Paris"}']
    assert handle.description == f"openai/fake via DSPy at {server.api_base}"
    assert handle.lm.kwargs["api_key"] == NO_KEY
    body = server.bodies[-1]
    limit = body.get("max_completion_tokens", body.get("max_tokens"))  # DSPy's native engine sends OpenAI's new name
    assert (body["model"], body["temperature"], limit) == ("fake", 0, 64)


def test_the_openai_profile_is_openai_slash_its_model_with_the_settings_key():
    handle = build_lm(settings(profile="openai", openai_model="gpt-4o-mini", openai_api_key="sk-test-0123456789abcdef"))
    assert (handle.profile, handle.lm.model) == ("openai/gpt-4o-mini", "openai/gpt-4o-mini")
    assert handle.lm.kwargs["api_key"] == "sk-test-0123456789abcdef" and handle.lm.kwargs["temperature"] is None


def test_a_provider_key_is_read_from_its_variable_and_redacted_from_then_on(monkeypatch, server):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    handle = build_lm(settings(profile="anthropic/claude-3-5-haiku-latest"))
    assert handle.lm.kwargs["api_key"] == KEY and "api_base" not in handle.lm.kwargs
    assert KEY not in repr(handle) + handle.description + str(handle.lm.dump_state())
    assert redact(f"rejected {KEY}") == f"rejected {MARKER}"


@pytest.mark.parametrize("model", ["nosuch/model", "gpt4", "openai/", "/x"])
def test_an_unknown_provider_or_a_model_without_one_names_gatedrag_lm(model):
    with pytest.raises(LMSettingsError, match=r"^GATEDRAG_LM '[^']*': (unknown provider|not provider/model)"):
        build_lm(settings(profile=model))


@pytest.mark.parametrize(("model", "variable"), [("anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY"),
                                                 ("openai/gpt-4o-mini", "OPENAI_API_KEY"),
                                                 ("bedrock/anthropic.claude-v2", "AWS_ACCESS_KEY_ID")])
def test_a_missing_key_names_its_variable(model, variable):
    with pytest.raises(LMSettingsError, match=f"^{variable} is not set, and GATEDRAG_LM {model} needs it"):
        build_lm(settings(profile=model))


def test_a_provider_with_a_placeholder_key_needs_none():
    assert build_lm(settings(profile="ollama_chat/qwen2.5:7b")).lm.model == "ollama_chat/qwen2.5:7b"


def test_an_unreachable_api_base_names_its_variable_and_shows_no_credentials(closed_port):
    base = f"http://user:pw-secret@127.0.0.1:{closed_port}/v1?key=q-secret"
    with pytest.raises(LMSettingsError) as error:
        build_lm(settings(profile="openai/local", lm_api_base=base))
    message = str(error.value)
    assert message.startswith(f"GATEDRAG_LM_API_BASE http://127.0.0.1:{closed_port}/v1: nothing answers at "
                              f"127.0.0.1:{closed_port}")
    assert "secret" not in message and "\n" not in message


@pytest.mark.parametrize("base", ["127.0.0.1:8080/v1", "ftp://127.0.0.1/v1", "http://127.0.0.1:port/v1", "http:///v1"])
def test_an_api_base_that_is_not_an_http_url_names_its_variable(base):
    with pytest.raises(LMSettingsError, match="^GATEDRAG_LM_API_BASE .*not an http\\(s\\) URL"):
        build_lm(settings(profile="openai/local", lm_api_base=base))


def test_the_teacher_takes_any_model_string_at_its_own_api_base(server, closed_port):
    student = settings(profile="openai/student", lm_api_base=f"http://127.0.0.1:{closed_port}/v1",
                       teacher_api_base=server.api_base)
    with build_teacher(student, "openai/teacher") as teacher:
        assert teacher.lm.model == "openai/teacher" and teacher.description.startswith("teacher openai/teacher")
        teacher.lm(f"hi {uuid.uuid4()}")  # a teacher reads DSPy's cache: a new prompt reaches the server
    assert server.bodies[-1]["model"] == "teacher"
    with pytest.raises(LMSettingsError, match="^--teacher-model 'nosuch/x': unknown provider"):
        build_teacher(student, "nosuch/x")
    with pytest.raises(LMSettingsError, match="^ANTHROPIC_API_KEY is not set, and --teacher-model anthropic/c needs"):
        build_teacher(settings(), "anthropic/c")
