"""Retrieval: the vector store, embeddings, chunking and ingest, hybrid search and the web backends."""
