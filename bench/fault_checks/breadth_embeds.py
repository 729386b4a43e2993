"""Breadth rounds over a self-linking site: the same 500 candidate links scored for three questions in a row.

Figure: link texts embedded by the second and third rounds (bar: 0; each text is embedded once per expander).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from fault_checks.figure import Figure
from program.base.settings import Settings
from program.retrieval.breadth import BreadthExpander
from program.retrieval.chunking import Document
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.ingest import ingest
from program.retrieval.links import Link
from program.retrieval.retriever import HybridSearch
from program.thresholds import Thresholds

SEED = "http://docs.example/guide/index.html"


def run(quick: bool) -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder:
        config = Settings(_env_file=None, data_dir=Path(folder), collection="site")
        store = EdgeStore(Path(folder) / "store")
        search = HybridSearch(store, "site", embedder=load_embedder(config))
        links = [Link(url=f"http://docs.example/guide/p{i}.html", anchor=f"part {i} of the guide") for i in range(500)]
        ingest([Document(doc_id="seed", title="Guide", text="# Guide\n\nThe parts.", url=SEED, links=links)], config,
               store=store, embedder=search.embedder)
        expander, embedded = BreadthExpander(config, search), []
        embed = search.embed
        search.embed = lambda texts: embedded.append(len(texts) - 1) or embed(texts)
        for question in ("How do I start?", "Where are the valves?", "What oil?"):
            expander.candidates(question, ["guide"], SEED, {SEED: 0}, Thresholds())
        store.close()
    return [Figure("breadth", f"link texts embedded per round: {embedded}", "later rounds 0",
                   embedded[0] > 0 and embedded[1:] == [0, 0])]
