"""A tiny corpus, its labelled questions, and its embedded store in a folder of the caller's: what the checks
that need a real store or dataset use, never the project's `.gatedrag`."""

from __future__ import annotations

import json
from pathlib import Path

from program.base.settings import Settings
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.ingest import ingest

COLLECTION = "faults"
PAGES = {
    "valves.md": "# Relief valves\n\nA relief valve opens when the pressure passes its set point.\n",
    "pumps.md": "# Pumps\n\nA centrifugal pump moves fluid by turning a rotor.\n",
    "seals.md": "# Seals\n\nA mechanical seal keeps the fluid inside the pump housing.\n",
}
QUESTIONS = [{"id": "q1", "question": "When does a relief valve open?", "answer": "when the pressure passes its set point"},
             {"id": "q2", "question": "What keeps the fluid inside the pump?", "answer": "a mechanical seal"}]


def write_pages(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def write_questions(path: Path) -> Path:
    path.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    return path


def build_store(data_dir: Path, pages: Path) -> Path:
    """Ingest `pages` into `COLLECTION` under `data_dir`, then let go of the folder; returns the shard folder."""
    settings = Settings(_env_file=None, data_dir=data_dir, collection=COLLECTION)
    store = EdgeStore(settings.qdrant_path)
    try:
        ingest([pages], settings, store=store, embedder=load_embedder(settings))
    finally:
        store.close()
    return settings.qdrant_path / COLLECTION
