"""program/retrieval/store.py: the collection schema and one embedded client per path."""

from qdrant_client import QdrantClient, models

from program.settings import Settings
from program.retrieval.store import DENSE, SPARSE, ensure_collection, open_client


def test_collection_has_a_cosine_dense_vector_and_an_idf_sparse_vector():
    client = QdrantClient(":memory:")
    ensure_collection(client, "c")
    ensure_collection(client, "c")  # a second call keeps the existing collection
    params = client.get_collection("c").config.params
    assert params.vectors[DENSE].size == 384
    assert params.vectors[DENSE].distance == models.Distance.COSINE
    assert params.sparse_vectors[SPARSE].modifier == models.Modifier.IDF


def test_embedded_client_is_shared_per_path(tmp_path):
    settings = Settings(data_dir=tmp_path)
    client = open_client(settings)
    assert open_client(Settings(data_dir=tmp_path)) is client
    assert (tmp_path / "qdrant").is_dir()
    client.close()
