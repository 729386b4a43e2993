"""The real embedder for the indexing and ingest tests, wrapped to count what it embeds."""

import pytest

from program.base.settings import Settings
from program.retrieval.embeddings import load_embedder


class CountingEmbedder:
    """The real embedder, counting the texts it embeds."""

    def __init__(self, embedder):
        self.embedder, self.version, self.texts, self.sparse_texts = embedder, embedder.version, [], []

    def documents(self, texts):
        self.texts += texts
        return self.embedder.documents(texts)

    def sparse_documents(self, texts):
        self.sparse_texts += texts
        return self.embedder.sparse_documents(texts)


@pytest.fixture(scope="module")
def real_embedder():
    return load_embedder(Settings())


@pytest.fixture
def embedder(real_embedder):
    return CountingEmbedder(real_embedder)
