"""LM profiles: what the local one builds, that secrets stay out of reprs and saved state, and one real local run
(API LMs and their checks: tests/program/lm/test_lm_check.py)."""

from __future__ import annotations

import urllib.request
from typing import Literal

import dspy
import pytest

from optimize.sigterm import Terminated
from program.base.settings import Settings
from program.lm import lm_profiles
from program.lm.lm_profiles import build_lm

SECRET = "sk-test-SECRET0123456789"


def settings(**overrides) -> Settings:
    # explicit, so an OPENAI_API_KEY in the environment cannot change the outcome
    return Settings(_env_file=None, **{"openai_api_key": None, **overrides})


class FakeServer:
    def __init__(self, model_path):
        self.model_path, self.base_url, self.closed, self.emptied = model_path, "http://127.0.0.1:5555", False, 0

    def empty_prompt_cache(self):
        self.emptied += 1

    def close(self):
        self.closed = True


@pytest.fixture
def fake_local(monkeypatch, tmp_path):
    """The local profile without weights or llama.cpp: records the server it started."""
    started = []
    monkeypatch.setattr(lm_profiles, "assemble_gguf", lambda model, cache: tmp_path / f"{model}.gguf")
    monkeypatch.setattr(lm_profiles, "LocalServer", lambda path: started.append(FakeServer(path)) or started[-1])
    return started


def test_local_profile_points_dspy_at_the_server(fake_local, tmp_path):
    handle = build_lm(settings(profile="local", local_model="qwen2.5-coder-1.5b", lm_max_tokens=300, data_dir=tmp_path))
    assert handle.profile == "local" and "qwen2.5-coder-1.5b" in handle.description
    assert fake_local[0].model_path.name == "qwen2.5-coder-1.5b.gguf"
    assert handle.lm.model == "llamacpp/qwen2.5-coder-1.5b"  # names the weights: DSPy's cache key ignores api_base
    assert handle.lm.kwargs["api_base"] == "http://127.0.0.1:5555/v1"
    assert (handle.lm.kwargs["temperature"], handle.lm.kwargs["max_tokens"]) == (0, 300)
    handle.close()
    assert fake_local[0].closed


def test_emptying_the_prompt_cache_restarts_the_local_server_and_is_a_no_op_for_an_api_model(fake_local, tmp_path):
    with build_lm(settings(profile="local", data_dir=tmp_path)) as local:
        local.empty_prompt_cache()
        assert fake_local[0].emptied == 1 and not fake_local[0].closed
    build_lm(settings(profile="openai", openai_api_key=SECRET)).empty_prompt_cache()


def test_local_lm_is_declared_to_honour_json_schema(fake_local, tmp_path):
    # so JSONAdapter sends response_format json_schema, which llama.cpp turns into a grammar
    lm = build_lm(settings(profile="local", data_dir=tmp_path)).lm
    assert lm.supports_response_schema and "response_format" in lm.supported_params


def test_local_profile_stops_the_server_if_the_lm_cannot_be_built(fake_local, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("no")

    monkeypatch.setattr(dspy, "LM", broken)
    with pytest.raises(RuntimeError):
        build_lm(settings(profile="local", data_dir=tmp_path))
    assert fake_local[0].closed


def test_api_key_stays_out_of_repr_and_saved_state():
    handle = build_lm(settings(profile="openai", openai_api_key=SECRET))
    assert SECRET not in repr(handle) and SECRET not in handle.description
    assert SECRET not in str(handle.lm.dump_state())


class Classify(dspy.Signature):
    """Classify the question and extract its key terms."""

    question: str = dspy.InputField()
    about_a_place: bool = dspy.OutputField()
    kind: Literal["person", "place", "thing"] = dspy.OutputField()
    key_terms: list[str] = dspy.OutputField()


@pytest.mark.real_lm
def test_real_local_model_gives_typed_outputs(tmp_path):
    handle = build_lm(settings(profile="local", data_dir=tmp_path, lm_max_tokens=128), cache=False)
    base_url = handle._server.base_url
    with handle, dspy.context(lm=handle.lm, adapter=dspy.JSONAdapter()):
        pred = dspy.Predict(Classify)(question="In which city is the Eiffel Tower?")
    assert isinstance(pred.about_a_place, bool)
    assert pred.kind in ("person", "place", "thing")
    assert isinstance(pred.key_terms, list) and all(isinstance(t, str) for t in pred.key_terms)
    with pytest.raises(OSError):  # closing the handle stopped the server
        urllib.request.urlopen(f"{base_url}/health", timeout=2)


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, Terminated])
def test_ctrl_c_leaves_the_server_running_for_the_exit_and_a_normal_exit_stops_it(fake_local, interrupt):
    # Terminated: the KeyboardInterrupt a SIGTERM raises, which must take the same path
    with pytest.raises(KeyboardInterrupt), build_lm(settings(profile="local")):
        raise interrupt
    with build_lm(settings(profile="local")):
        pass
    interrupted, finished = fake_local
    # stopping would wait on the abandoned request: the process exits with the server up
    assert not interrupted.closed and interrupted in lm_profiles._ABANDONED
    assert finished.closed


def test_configure_lm_makes_the_lm_dspys_with_the_json_adapter_and_usage_tracking_then_stops_it(fake_local, capsys):
    with lm_profiles.configure_lm(settings(profile="local"), cache=False, callbacks=["guard"]) as handle:
        assert dspy.settings.lm is handle.lm and isinstance(dspy.settings.adapter, dspy.JSONAdapter)
        assert dspy.settings.track_usage and dspy.settings.callbacks == ["guard"]
    assert fake_local[0].closed and capsys.readouterr().err.startswith("profile: local")
