"""Breadth expansion from a seed URL: score the links the collection's pages hold but nobody has
followed yet, then fetch and index the best few.

A candidate is any link target no page of the collection is from, plus the parent paths of the seed
URL. Its score is the design's weighted sum, each weight a threshold the optimizer can tune:

    w_path × url_path_relevance + w_title × title_relevance + w_description × description_relevance
    + w_in_degree × in_degree + w_depth × depth_freshness

- url_path_relevance: the share of the question's terms in the URL's path words;
- title_relevance and description_relevance: the dense cosine (at least 0) of the question to the
  link's anchor text and to the heading the link sits under, the best over every page linking there
  (a directory listing's bare file name must not hide the words another page links it with);
- in_degree: how many of the collection's pages link there, over the most any candidate has;
- depth_freshness: 1 / (1 + hops from the seed), a page linked from the seed being 1 hop away.

Fetching goes through `ingest` (its public-address and size checks, `GATEDRAG_FETCH_ALLOW_HOSTS`),
several pages at once. The seed page, and each round as a whole, have one deadline: `fetch_deadline_s`,
or the seconds the caller gives (the loop gives part of the question's time left); a page not fetched
by then fails with its reason. Each link text is embedded once per expander (`EMBEDDED_TEXTS` kept):
a later round embeds only the texts it has not seen, where it had embedded every candidate again
(on a self-linking site, 3,710 candidates and 18 s a round). This module decides nothing: how many pages, and whether to expand at all,
is the gate's (`program.gate`).
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote, urlsplit, urlunsplit

import numpy as np
from pydantic import BaseModel, Field

from program.base.errors import IngestError
from program.base.settings import Settings
from program.contract.result import ExpansionStep
from program.retrieval.ingest import ingest
from program.retrieval.links import Link
from program.retrieval.retriever import HybridSearch
from program.retrieval.stored_url import stored_url
from program.thresholds import Thresholds

_PATH_WORD = re.compile(r"[a-z0-9]+")
FETCHERS = 4  # pages fetched at once
EMBEDDED_TEXTS = 10_000  # link texts whose vectors an expander keeps (384 float32 each: about 15 MB)


class Candidate(BaseModel):
    url: str
    anchor: str = ""  # the anchor text that scored best
    description: str = ""
    anchors: dict[str, str] = Field({}, exclude=True)  # every distinct anchor text pages link here with -> the page
    descriptions: list[str] = Field([], exclude=True)
    parent: str = ""  # the first page found linking here ("" for a parent path of the seed)
    in_degree: int = 0
    depth: int = 1
    score: float = 0.0


class BreadthExpander:
    """Seed, score and fetch for one collection; `search` lends its store and dense model."""

    def __init__(self, settings: Settings, search: HybridSearch):
        self.settings, self.search = settings, search
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()  # link text -> its vector, oldest first
        self._vectors_lock = threading.Lock()

    def __deepcopy__(self, memo) -> BreadthExpander:
        return self  # it shares the search's store and models

    def seed(self, url: str, seconds: float | None = None) -> ExpansionStep:
        """The seed page ingested (again, if it changed) within `seconds`: the root of the traversal. The
        step names the page without its credentials (`stored_url`), as the index does."""
        error = self._try(url, self._deadline(seconds))
        return ExpansionStep(round=0, url=stored_url(url), status="failed" if error else "seed", reason=error)

    def candidates(self, question: str, terms: list[str], seed: str, depths: dict[str, int],
                   t: Thresholds, failed: frozenset[str] = frozenset()) -> list[Candidate]:
        """Every link target not yet in the collection, best first. `depths`: hops from the seed of
        the pages this traversal fetched (the seed is 0); `failed`: the URLs it could not fetch."""
        pages, held = self._pages()
        found = gather(pages, held | failed, depths, seed)
        return ranked(found, self._cosines(question, found), terms, depths, t)

    def _cosines(self, question: str, candidates: list[Candidate]) -> dict[str, float]:
        """The question's dense cosine to every text the candidates are scored on."""
        flat = list(dict.fromkeys(text for c in candidates for text in scored_texts(c)))
        if not flat:
            return {}
        with self._vectors_lock:
            new = [text for text in flat if text not in self._vectors]
        vectors = np.array(self.search.embed([question, *new]), dtype=np.float32)
        with self._vectors_lock:
            known = {text: self._vectors[text] for text in flat if text in self._vectors}
            for text, vector in zip(new, vectors[1:], strict=True):
                self._vectors[text] = known[text] = vector
            while len(self._vectors) > EMBEDDED_TEXTS:
                self._vectors.popitem(last=False)
        return {text: float(known[text] @ vectors[0]) for text in flat}

    def fetch(self, urls: list[str], seconds: float | None = None) -> dict[str, str]:
        """Each URL fetched and indexed, several at once, all within `seconds`: url -> "" when it was, else why not."""
        deadline = self._deadline(seconds)
        with ThreadPoolExecutor(max_workers=FETCHERS) as pool:
            return dict(zip(urls, pool.map(lambda url: self._try(url, deadline), urls), strict=True))

    def _deadline(self, seconds: float | None) -> float:
        """The time.monotonic() by which a fetch ends: `seconds` from now, at most `fetch_deadline_s`."""
        return time.monotonic() + min(self.settings.fetch_deadline_s, math.inf if seconds is None else seconds)

    def _try(self, url: str, deadline: float) -> str:
        try:
            self._ingest(url, deadline)
        except IngestError as error:
            return str(error)
        return ""

    def _ingest(self, url: str, deadline: float) -> None:
        report = ingest([url], self.settings, collection=self.search.collection, store=self.search.store,
                        embedder=self.search.embedder, deadline=deadline)
        if report.errors:
            raise IngestError(report.errors[0])

    def _pages(self) -> tuple[dict[str, list[Link]], set[str]]:
        """(page url -> its links, every url the collection holds), from one payload scan."""
        pages, held = {}, set()
        for _, payload in self.search.store.payloads(self.search.collection, ["url", "links"]):
            held.add(payload.get("url", ""))
            if payload.get("links"):
                pages[payload["url"]] = [Link(**link) for link in payload["links"]]
        return pages, held


def gather(pages: dict[str, list[Link]], done: set[str], depths: dict[str, int], seed: str) -> list[Candidate]:
    """Every link target of `pages`, and every parent path of the seed, that is not in `done` (held,
    or already tried and failed: a page that failed once would only spend another fetch)."""
    found = _gathered(pages, done, depths)
    for url in _parents(seed):
        if url in done:
            continue
        # subtle: a parent path some page links keeps that page's anchors; it is one hop from the seed
        parent = found.setdefault(url, Candidate(url=url))
        if parent.depth > 1:
            parent.depth, parent.parent = 1, ""
    return list(found.values())


def scored_texts(candidate: Candidate) -> list[str]:
    """The texts a candidate's title and description relevance are read from."""
    return list(dict.fromkeys([*_title_texts(candidate), *_description_texts(candidate)]))


def ranked(candidates: list[Candidate], cosines: dict[str, float], terms: list[str], depths: dict[str, int],
           t: Thresholds) -> list[Candidate]:
    """The candidates scored with the link formula, best first. `cosines`: the question's dense
    cosine to each of `scored_texts`; pure, so a traversal can be replayed offline under other weights."""
    if not candidates:
        return []
    most_linked = max(c.in_degree for c in candidates) or 1
    for candidate in candidates:
        title, anchor = max((cosines[text], text) for text in _title_texts(candidate))
        description, heading = max((cosines[text], text) for text in _description_texts(candidate))
        if anchor in candidate.anchors:
            candidate.anchor = anchor
            # subtle: the tree shows the page whose link scored, when it is as close to the seed as any
            if depths.get(candidate.anchors[anchor], 1) + 1 == candidate.depth:
                candidate.parent = candidate.anchors[anchor]
        candidate.description = heading if candidate.descriptions else candidate.description
        candidate.score = round(
            t.link_path_weight * _path_relevance(candidate.url, terms) + t.link_title_weight * max(float(title), 0.0)
            + t.link_description_weight * max(float(description), 0.0)
            + t.link_in_degree_weight * candidate.in_degree / most_linked
            + t.link_depth_weight / (1 + candidate.depth), 4)
    return sorted(candidates, key=lambda c: (-c.score, c.url))


def _title_texts(candidate: Candidate) -> list[str]:
    return list(candidate.anchors) or [_path_words_text(candidate.url)]


def _description_texts(candidate: Candidate) -> list[str]:
    return candidate.descriptions or list(candidate.anchors) or ["-"]


def _gathered(pages: dict[str, list[Link]], held: set[str], depths: dict[str, int]) -> dict[str, Candidate]:
    found: dict[str, Candidate] = {}
    for page, links in sorted(pages.items()):
        for link in links:
            if link.url in held:
                continue
            candidate = found.setdefault(link.url, Candidate(url=link.url, anchor=link.anchor,
                                                             description=link.description, parent=page,
                                                             depth=depths.get(page, 1) + 1))
            candidate.in_degree += 1
            if link.anchor:
                candidate.anchors.setdefault(link.anchor, page)
            if link.description and link.description not in candidate.descriptions:
                candidate.descriptions.append(link.description)
            if (depth := depths.get(page, 1) + 1) < candidate.depth:  # closer to the seed from this page
                candidate.depth, candidate.parent = depth, page
    return found


def _parents(seed: str) -> list[str]:
    """The seed's parent paths: /a/b/c.html gives /a/b/ and /a/."""
    parts = urlsplit(seed)
    folders = [segment for segment in parts.path.split("/") if segment][:-1]
    return [urlunsplit((parts.scheme, parts.netloc, "/" + "/".join(folders[:n]) + ("/" if n else ""), "", ""))
            for n in range(len(folders), 0, -1)]


def _path_words(url: str) -> set[str]:
    return set(_PATH_WORD.findall(unquote(urlsplit(url).path).lower()))


def _path_words_text(url: str) -> str:
    return " ".join(sorted(_path_words(url))) or url


def _path_relevance(url: str, terms: list[str]) -> float:
    wanted = {term.lower() for term in terms}
    return len(wanted & _path_words(url)) / len(wanted) if wanted else 0.0
