"""Embed changed chunks on a Ray Data actor pool: what `python -m program ingest ... --ray [ADDRESS]` writes with.

`RayWriter` is an `program.retrieval.indexing.Writer`: indexing decides what to write and cuts the same
batches it embeds in process; here each batch goes, pickled, to a pool of actors (`map_batches` over
`_Embedding`, which loads the embedder once per actor). With the embedded store (Qdrant Edge: one process
at a time) the actors hand the points back and this process writes them; with QDRANT_URL each actor
writes its batches to the server itself and hands back only counts.
Faults: an actor that dies is restarted and its batches run again (Ray Data's default for actor pools),
and a batch handed back twice is written once. A killed ingest resumes as an in-process one does:
indexing skips every chunk the store already holds with its hash, and point ids come from the chunk, so
nothing is written twice.
Memory: every batch of a run is handed to Ray at once (`ray.data.from_items`), so this process holds the
run's changed chunks, pickled, beside the documents ingest already holds; Ray keeps them in its object store.
Secrets: an actor reads its own settings (model cache, QDRANT_API_KEY) from its node's environment; only the
collection and the server's URL are sent, never a key.
This module does not read files or decide what changed; see `program.retrieval.ingest` and `indexing`.
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Iterable, Iterator

from program.base.errors import MissingExtraError
from program.base.settings import Settings
from program.retrieval.embeddings import VERSION, load_embedder
from program.retrieval.indexing import Batch, points
from program.retrieval.open_store import open_store
from program.retrieval.store import Store

INSTALL = "ingest --ray needs Ray: pip install -e '.[scale]' (or pip install 'ray[data]')"


def ray_writer(settings: Settings) -> RayWriter:
    """Connect to the Ray cluster at `settings.ray_address` (None: Ray's own default, RAY_ADDRESS or a Ray
    started on this machine for the run). Raises MissingExtraError, in one line, when Ray is not installed."""
    try:
        import ray
        from ray.data import DataContext
    except ImportError:
        raise MissingExtraError(INSTALL) from None
    # ingest's own bar counts the chunks written; Ray's progress lines and notices would only repeat it
    ray.init(address=settings.ray_address, ignore_reinit_error=True, logging_level=logging.ERROR)
    logging.getLogger("ray.data").setLevel(logging.ERROR)
    context = DataContext.get_current()
    context.enable_progress_bars = False
    # subtle: the engine's BM25 IDF is kept per segment, and segments follow the order points are written;
    # batches written in ingest's order give the index an in-process ingest gives, search for search
    context.execution_options.preserve_order = True
    return RayWriter(settings.ray_actors or max(1, int(ray.cluster_resources().get("CPU", 1))), settings.qdrant_url)


class RayWriter:
    version = VERSION  # the actors' embedder's

    def __init__(self, actors: int, qdrant_url: str | None):
        self.actors, self.qdrant_url = actors, qdrant_url  # with a URL, the actors write to that server

    def __call__(self, store: Store, collection: str, batches: Iterable[Batch]) -> Iterator[tuple[int, int]]:
        import ray  # deferred: only a Ray run imports it, and `ray_writer` checked it is there

        rows = [{"index": index, "batch": pickle.dumps(batch)} for index, batch in enumerate(batches)]
        if not rows:
            return
        # one batch a block: the actors share the work evenly, and an actor that dies loses one batch's
        embedded = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
            _Embedding, fn_constructor_kwargs={"collection": collection, "qdrant_url": self.qdrant_url}, batch_size=1,
            compute=ray.data.ActorPoolStrategy(size=min(self.actors, len(rows))), num_cpus=1)
        del rows  # Ray holds them now
        done: set[int] = set()
        handed_back = iter(embedded.iter_batches(batch_size=None, batch_format="numpy"))  # a generator: closable
        try:
            for out in handed_back:
                for index, blob, fresh, reused in zip(out["index"], out["points"], out["embedded"], out["reused"],
                                                      strict=True):
                    if index in done:  # subtle: a task retried after its actor died may hand a batch back again
                        continue
                    done.add(index)
                    if written := pickle.loads(blob):
                        store.upsert(collection, written)
                    yield int(fresh), int(reused)
        finally:
            # subtle: a run that stops early (an error writing) must free the pool's CPUs now: a next run
            # in this process would otherwise wait for them for ever
            handed_back.close()


class _Embedding:
    """One actor of the pool: the embedder loaded once, then batch after batch embedded (and, with a server
    store, written)."""

    def __init__(self, collection: str, qdrant_url: str | None):
        settings = Settings().model_copy(update={"qdrant_url": qdrant_url})
        self.collection, self.embedder = collection, load_embedder(settings)
        self.store = open_store(settings) if qdrant_url else None  # never the embedded store: the driver holds it

    def __call__(self, rows: dict) -> dict[str, list]:
        out: dict[str, list] = {"index": [], "points": [], "embedded": [], "reused": []}
        for index, blob in zip(rows["index"], rows["batch"], strict=True):
            batch: Batch = pickle.loads(blob)
            written = points(self.embedder, batch)
            if self.store is not None:
                self.store.upsert(self.collection, written)
                written = []
            out["index"].append(int(index))
            out["points"].append(pickle.dumps(written))
            out["embedded"].append(len(batch.items) - len(batch.kept))
            out["reused"].append(len(batch.kept))
        return out
