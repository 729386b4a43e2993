"""Searches that remember their answers, so a replayed trial pays for no retrieval it has seen.

A threshold trial asks mostly the same queries as the run it replays; the index and the
offline web do not change between trials, so the same query gets the same hits. Everything
else a search offers (its label, titles, exclusions) passes through to the wrapped one.
"""

from __future__ import annotations

from typing import Any


class MemoSearch:
    def __init__(self, search: Any):
        self._search, self._hits, self._vectors, self._neighbours = search, {}, {}, {}

    def __call__(self, query: str, k: int):
        if (query, k) not in self._hits:
            self._hits[query, k] = self._search(query, k)
        return self._hits[query, k]

    def __deepcopy__(self, memo) -> MemoSearch:
        return self  # a program's copy for a trial shares what was already searched

    def __getattr__(self, name: str):
        """The wrapped search's attribute, remembered for `embed` and `neighbours`; an attribute the
        wrapped search lacks is lacking here too (the loop checks for both)."""
        if name.startswith("__"):
            raise AttributeError(name)
        found = getattr(self._search, name)
        return {"embed": self._embed, "neighbours": self._neighbours_of}.get(name, found)

    def _embed(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._search.embed(missing)))
        return [self._vectors[t] for t in texts]

    def _neighbours_of(self, passage, radius: int = 1):
        key = (passage.chunk_id, radius)
        if key not in self._neighbours:
            self._neighbours[key] = self._search.neighbours(passage, radius)
        return self._neighbours[key]


class MemoWeb:
    """The web backend's searches remembered by query and size; the time left does not change the hits offline."""

    def __init__(self, web: Any):
        self._web, self._results = web, {}

    def search(self, query: str, max_results: int, seconds_left: float | None = None):
        if (query, max_results) not in self._results:
            self._results[query, max_results] = self._web.search(query, max_results=max_results, seconds_left=seconds_left)
        return self._results[query, max_results]

    def __deepcopy__(self, memo) -> MemoWeb:
        return self

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._web, name)
