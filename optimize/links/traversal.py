"""One question's breadth expansion from a seed page, replayed offline on a site read from a folder.

The traversal is the loop's when the gate expands every round it may: each round ranks the links of
the pages held so far with the loop's own scoring (`program.retrieval.breadth`: `gather`, then
`ranked`) and fetches the best `breadth_pages`, for `max_breadth_rounds` rounds or until
`max_breadth_pages` are spent. A link off the site is a failed fetch: it spends a page, adds none,
and is not tried again, as in the loop. What it measures is reach: whether, and after how many
pages, a page the question's label names is held. The loop can stop sooner (its signals find the
evidence enough, or a round adds nothing), so the pages counted here are the most it would fetch.
No page is fetched and nothing is embedded here: the question's cosines come in (`Cosines`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import unquote

import numpy as np

from metrics.gold_sources import source_matches
from optimize.links.site import Site
from program.retrieval.breadth import gather, ranked, scored_texts
from program.thresholds import Thresholds


@dataclass
class TextVectors:
    """Dense vectors of link texts, embedded once across every question and trial."""

    embed: Callable[[list[str]], list[list[float]]]
    vectors: dict[str, np.ndarray] = field(default_factory=dict)

    def add(self, texts: list[str]) -> None:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors |= dict(zip(missing, np.array(self.embed(missing)), strict=True))


@dataclass
class Cosines:
    """One question's dense cosine to each link text, computed on first need and kept."""

    question: np.ndarray
    texts: TextVectors
    known: dict[str, float] = field(default_factory=dict)

    def of(self, texts: list[str]) -> dict[str, float]:
        new = [t for t in texts if t not in self.known]
        self.texts.add(new)
        self.known |= {t: float(self.texts.vectors[t] @ self.question) for t in new}
        return self.known


@dataclass(frozen=True)
class Traversal:
    rounds: tuple[tuple[str, ...], ...]  # each round's fetches in rank order, failed ones included
    reached_at: int | None  # pages fetched when a gold page was first held (0: the seed is one); None: never

    @property
    def fetched(self) -> tuple[str, ...]:
        return tuple(url for fetches in self.rounds for url in fetches)

    @property
    def pages_spent(self) -> int:
        """Pages fetched until a gold page was held, or in all when none was."""
        return len(self.fetched) if self.reached_at is None else self.reached_at


def traverse(site: Site, seed: str, cosines: Cosines, terms: list[str], gold: list[str], t: Thresholds) -> Traversal:
    """The pages the loop would fetch from `seed` for a question with these `terms` (`link_terms`)."""
    held = {seed} & set(site.pages)
    depths = {seed: 0}
    rounds: list[tuple[str, ...]] = []
    spent = 0
    reached = 0 if held and _is_gold(seed, gold) else None
    for _ in range(t.max_breadth_rounds):
        left = min(t.breadth_pages, t.max_breadth_pages - spent)
        done = held | {url for fetches in rounds for url in fetches}
        candidates = gather({url: site.pages[url] for url in held}, done, depths, seed) if left > 0 else []
        if not candidates:
            break
        known = cosines.of([text for c in candidates for text in scored_texts(c)])
        chosen = ranked(candidates, known, terms, depths, t)[:left]
        rounds.append(tuple(c.url for c in chosen))
        for candidate in chosen:
            spent += 1
            if candidate.url in site.pages:
                held.add(candidate.url)
                depths[candidate.url] = candidate.depth
                if reached is None and _is_gold(candidate.url, gold):
                    reached = spent
    return Traversal(tuple(rounds), reached)


def _is_gold(url: str, gold: list[str]) -> bool:
    return any(source_matches(g, "", [unquote(url)]) for g in gold)
