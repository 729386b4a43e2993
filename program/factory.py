"""Build a ready GatedRAG from settings: the index search, the web backend and the thresholds.

It opens stores and backends but starts no LM; `program.lm.lm_profiles` does that.
"""

from __future__ import annotations

from pathlib import Path

from program.loop import GatedRAG
from program.retrieval.open_store import open_store
from program.retrieval.retriever import HybridSearch
from program.retrieval.store import Store
from program.retrieval.web_search import WebSearch, build_web_search
from program.settings import Settings


def build_program(settings: Settings, program_path: Path | None = None, overrides: dict | None = None,
                  program_class: type[GatedRAG] = GatedRAG) -> GatedRAG:
    """The loop over the settings' index and web backend; a compiled program's prompts, demos
    and thresholds are loaded from `program_path`, then `overrides` (CLI flags) win.
    A missing index raises `program.retrieval.store.CollectionMissingError`, naming how to build it."""
    store = open_store(settings)
    store.require(settings.collection)
    rag = program_class(HybridSearch.from_settings(settings, "index"), web=_web(settings, store))
    if program_path:
        rag.load(program_path)
    rag.thresholds = rag.thresholds.model_copy(update=overrides or {})
    return rag


def _web(settings: Settings, store: Store) -> WebSearch | None:
    if settings.resolved_web_backend == "none":
        return None  # the web is switched off: the gate never picks search_web
    if settings.resolved_web_backend == "tavily":
        return build_web_search(settings)
    if not store.exists(settings.resolved_web_collection):
        return None  # no offline web corpus: the gate never picks search_web
    return build_web_search(settings, HybridSearch.from_settings(settings, "web"))
