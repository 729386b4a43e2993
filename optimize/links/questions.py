"""Labelled questions as the link search replays them: each with its seed page on the site, its
gold sources, the terms its URL paths are matched against, and its dense cosines to link texts.

`seed` is a path in the site folder; `{top}` in it stands for the first folder of the question's
first gold source, so that a site of several guides seeds each question at its own guide.
"""

from __future__ import annotations

import numpy as np

from optimize.links.link_search import LinkQuestion
from optimize.links.site import Site
from optimize.links.traversal import Cosines, TextVectors
from program.decomposition import named_entities
from program.retrieval.embeddings import EMBED_BATCH
from program.signals import link_terms

TOP = "{top}"


def link_questions(site: Site, examples: list, seed: str, dense) -> list[LinkQuestion]:
    """`examples` (with `gold_sources`) as link questions; `dense`: fastembed's dense model, which
    embeds each link text once for all of them. A seed that is not a page of the site is a ValueError."""
    texts = TextVectors(lambda batch: list(dense.embed(batch, batch_size=EMBED_BATCH)))
    vectors = np.array(list(dense.embed([e.question for e in examples], batch_size=EMBED_BATCH)))
    return [LinkQuestion(qid=e.qid, question=e.question, seed=seed_url(site, seed, e), gold=list(e.gold_sources),
                         cosines=Cosines(vector, texts), terms=link_terms(e.question, named_entities(e.question)))
            for e, vector in zip(examples, vectors, strict=True)]


def seed_url(site: Site, seed: str, example) -> str:
    path = seed_path(seed, example)
    if site.url(path) not in site.pages:
        raise ValueError(f"the seed {path!r} of question {example.qid} is not a page of the site")
    return site.url(path)


def seed_path(seed: str, example) -> str:
    """The example's seed page in the site folder: `seed` with `{top}` filled in."""
    top = example.gold_sources[0].strip("/").split("/")[0]
    return seed.replace(TOP, top)  # subtle: not str.format, which would read a user's {0.__class__}
