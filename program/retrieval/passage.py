"""The unit of evidence: one retrieved chunk, from the local index or from the web."""

from __future__ import annotations

import functools
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field


class Passage(BaseModel):
    chunk_id: str
    doc_id: str
    title: str
    text: str
    url: str = ""
    score: float = 0.0
    source: Literal["index", "web"] = "index"
    # the relevance the gate reads: the dense cosine to the query, or a reranker's calibrated score
    similarity: float | None = None
    chunk_index: int = 0
    doc_chunks: int = 1  # chunks in the passage's document: more than one means it has neighbours
    # where an ingested passage came from (empty for older indexes and the web): its file path,
    # archive member or URL, its heading path, and its [start, end) character offsets in that text
    origin: str = ""
    heading_path: list[str] = []
    start: int = 0
    end: int = 0
    # the dense vector, for the redundancy signal; never serialised into results or traces
    vector: list[float] | None = Field(None, exclude=True, repr=False)

    @property
    def text_key(self) -> str:
        """What two copies of one text share, whatever document holds them: the search and the
        evidence keep one passage per key (a documentation site's print page repeats every chapter)."""
        return " ".join(self.text.split()).lower()[:200]

    @functools.cached_property
    def unit(self) -> np.ndarray | None:
        """The vector scaled to length 1, computed once: the redundancy signal and the MMR order read
        it every round (and every replayed threshold trial)."""
        if self.vector is None:
            return None
        vector = np.asarray(self.vector, dtype=np.float32)
        return vector / max(float(np.linalg.norm(vector)), 1e-9)
