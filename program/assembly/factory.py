"""Build a ready GatedRAG from settings: the index search, the web backend, the session store, and a compiled
program's prompts, demos and thresholds; `load` (exported as `program.load`) is the same for a saved program.

A compiled program is read and checked by `program.assembly.loading` before any store is opened, so a bad
file fails in one line and changes nothing. Calling the program returns a `dspy.Prediction` whose
`.result` is the loop's own `Result`; `program.contract.answer_response.AnswerResponse.from_prediction`
turns it into the response contract. It opens stores and backends but starts no LM;
`program.lm.lm_profiles` does that.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from program.assembly.loading import apply_state, read_state
from program.base.settings import Settings
from program.baselines import SYSTEMS
from program.loop import GatedRAG
from program.retrieval.breadth import BreadthExpander
from program.retrieval.open_store import open_store
from program.retrieval.retriever import HybridSearch
from program.retrieval.store import Store, StoreError
from program.retrieval.web_search import WebSearch, build_web_search
from program.sessions.open_sessions import open_sessions
from program.thresholds import Thresholds


def build_program(settings: Settings, program_path: str | Path | None = None, overrides: dict | None = None,
                  program_class: type[GatedRAG] = GatedRAG, seeded: bool = False) -> GatedRAG:
    """The loop over the settings' index and web backend; a compiled program's prompts, demos
    and thresholds are loaded from `program_path` (a file, a run folder or an MLflow URI), then
    `overrides` (CLI flags) win. A bad program raises `program.assembly.loading.ProgramLoadError`; a store
    that is missing, locked, corrupt or unreachable a `program.retrieval.store.StoreError`: each names
    the file, folder or URL. `seeded`: the question comes with a seed URL, whose ingest may create the collection."""
    state = read_state(program_path) if program_path else None
    store = open_store(settings)
    if not seeded:
        _require(store, settings.collection)
    search = HybridSearch.from_settings(settings, "index")
    rag = program_class(search, web=_web(settings, store), sessions=open_sessions(settings),
                        breadth=BreadthExpander(settings, search))
    if state is not None:
        apply_state(rag, state, str(program_path), settings.serving_model)
    rag.thresholds = _with_overrides(rag.thresholds, overrides or {})
    return rag


def build_served(settings: Settings, program_path: str | Path | None = None, overrides: dict | None = None,
                 seeded: bool = False) -> GatedRAG:
    """What answers when the program is asked or served: the system the settings name (`system`),
    the gated loop unless a baseline was chosen, built as `build_program` builds the loop."""
    return build_program(settings, program_path, overrides, program_class=SYSTEMS[settings.system], seeded=seeded)


def load(source: str | Path, settings: Settings | None = None, search=None, web=None) -> GatedRAG:
    """A ready GatedRAG from a compiled program JSON, a run folder or an MLflow URI; its search and web
    come from `settings`, or are passed in (as tests do)."""
    if search is None:
        return build_program(settings or Settings(), program_path=source)
    return apply_state(GatedRAG(search, web=web), read_state(source), str(source))


def _require(store: Store, collection: str) -> None:
    """The collection is in the store, or the store is closed and the error raised. subtle: a server
    store left open is closed by the interpreter's exit, when its HTTP client can no longer close,
    and qdrant-client then prints a warning under the one-line error."""
    try:
        store.require(collection)
    except StoreError:
        store.close()
        raise


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
