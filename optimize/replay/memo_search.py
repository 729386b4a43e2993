"""Searches that remember their answers, so a replayed trial pays for no retrieval it has seen.

A threshold trial asks mostly the same queries as the run it replays; the index and the
offline web do not change between trials, so the same query gets the same hits. Everything
else a search offers (its label, titles, exclusions) passes through to the wrapped one.

In a forked replay worker (`optimize.replay.workers`) a memo never searches itself: a forked
index or embedder is not safe to use, so what it lacks is asked of the job's memo instead
(`redirect`), which searches, remembers and answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Ask = Callable[..., Any]  # (method name, *args) -> what the wrapped object's method returns


class _Memo:
    _wrapped: Any
    _remote: Ask | None = None

    def redirect(self, remote: Ask) -> None:
        """From now on, ask what this memo lacks of `remote` rather than of the wrapped object."""
        self._remote = remote

    def _ask(self, method: str, *args):
        if self._remote is not None:
            return self._remote(method, *args)
        return getattr(self._wrapped, method)(*args)

    def __deepcopy__(self, memo):
        return self  # a program's copy for a trial shares what was already searched


class MemoSearch(_Memo):
    """`depth`: how many hits a query is searched for at least, so that trials cutting at any
    `candidates_k` up to it read the one search (a search's top k is the head of its top k + n:
    it fetches past its cut and breaks ties itself)."""

    def __init__(self, search: Any, depth: int = 0):
        self._wrapped, self._depth, self._hits, self._vectors, self._neighbours = search, depth, {}, {}, {}

    def __call__(self, query: str, k: int):
        searched, hits = self._hits.get(query, (0, []))
        if searched < k:
            searched = max(k, self._depth)
            hits = self._ask("__call__", query, searched)
            self._hits[query] = searched, hits
        return hits[:k]

    def __getattr__(self, name: str):
        """The wrapped search's attribute, remembered for `embed` and `neighbours`; an attribute the
        wrapped search lacks is lacking here too (the loop checks for both)."""
        if name.startswith("__") or name == "_wrapped":
            raise AttributeError(name)
        found = getattr(self._wrapped, name)
        return {"embed": self._embed, "neighbours": self._neighbours_of}.get(name, found)

    def _embed(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._ask("embed", missing)))
        return [self._vectors[t] for t in texts]

    def _neighbours_of(self, passage, radius: int = 1):
        key = (passage.chunk_id, radius)
        if key not in self._neighbours:
            self._neighbours[key] = self._ask("neighbours", passage, radius)
        return self._neighbours[key]


class MemoWeb(_Memo):
    """The web backend's searches remembered by query and size; the time left does not change the hits offline."""

    def __init__(self, web: Any):
        self._wrapped, self._results = web, {}

    def search(self, query: str, max_results: int, seconds_left: float | None = None):
        if (query, max_results) not in self._results:
            self._results[query, max_results] = self._ask("search", query, max_results, seconds_left)
        return self._results[query, max_results]

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "_wrapped":
            raise AttributeError(name)
        return getattr(self._wrapped, name)
