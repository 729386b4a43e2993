"""Build the bundled domains' collections: `python -m program index --corpus hotpotqa|aws_docs`.

HotpotQA: its paragraphs into the collection, the held-out ones and the distractor pages into
its offline web corpus (`program.retrieval.indexing.build_indexes`). AWS docs: the guides'
tarball through the same `ingest` a user's own documents take, the pages held out to the web
(`program.retrieval.aws_corpus.web_pages`) excluded from the collection and ingested alone into
its web corpus. Both prune, so a changed split leaves no page in two places.
This module chooses what goes where; reading and indexing are `ingest`'s and `indexing`'s.
"""

from __future__ import annotations

from typing import Literal

from program.base.settings import Settings
from program.retrieval.aws_corpus import TARBALL, aws_file, web_pages
from program.retrieval.indexing import build_indexes
from program.retrieval.ingest import ingest

Corpus = Literal["hotpotqa", "aws_docs"]
CORPORA: tuple[Corpus, ...] = ("hotpotqa", "aws_docs")


def build_corpus(corpus: Corpus, settings: Settings, progress: bool = True) -> list[str]:
    """Build (or bring up to date) the corpus's collection and its web corpus; one summary line each."""
    if corpus == "hotpotqa":
        return [f"{name}: {stats.model_dump()}" for name, stats in build_indexes(settings, progress=progress).items()]
    tarball, web = aws_file(settings, TARBALL), sorted(web_pages(settings))
    local = ingest([tarball], settings, include=["*.md"], exclude=web, prune=True, progress=progress)
    online = ingest([tarball], settings, collection=settings.resolved_web_collection, include=web, prune=True,
                    progress=progress)
    return [local.summary(), online.summary()]
