"""Build a ready GatedRAG from settings: the index search, the web backend, the session store and the thresholds.

It opens stores and backends but starts no LM; `program.lm.lm_profiles` does that.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from program.loop import GatedRAG
from program.thresholds import Thresholds
from program.retrieval.open_store import open_store
from program.retrieval.retriever import HybridSearch
from program.retrieval.store import Store
from program.retrieval.web_search import WebSearch, build_web_search
from program.sessions.open_sessions import open_sessions
from program.settings import Settings


def build_program(settings: Settings, program_path: Path | None = None, overrides: dict | None = None,
                  program_class: type[GatedRAG] = GatedRAG) -> GatedRAG:
    """The loop over the settings' index and web backend; a compiled program's prompts, demos
    and thresholds are loaded from `program_path`, then `overrides` (CLI flags) win.
    A missing index raises `program.retrieval.store.CollectionMissingError`, naming how to build it."""
    store = open_store(settings)
    store.require(settings.collection)
    rag = program_class(HybridSearch.from_settings(settings, "index"), web=_web(settings, store),
                        sessions=open_sessions(settings))
    if program_path:
        rag.load(program_path)
    rag.thresholds = _with_overrides(rag.thresholds, overrides or {})
    return rag


def _with_overrides(thresholds: Thresholds, overrides: dict) -> Thresholds:
    """The thresholds with the overrides, validated: `model_copy` would let a budget of -5 run."""
    try:
        return Thresholds.model_validate(thresholds.model_dump() | overrides)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))} {e['input']!r}: {e['msg'].lower()}" for e in error.errors())
        raise ValueError(f"invalid setting: {problems}") from None


def _web(settings: Settings, store: Store) -> WebSearch | None:
    if settings.resolved_web_backend == "none":
        return None  # the web is switched off: the gate never picks search_web
    if settings.resolved_web_backend == "tavily":
        return build_web_search(settings)
    if not store.exists(settings.resolved_web_collection):
        return None  # no offline web corpus: the gate never picks search_web
    return build_web_search(settings, HybridSearch.from_settings(settings, "web"))
