"""URL ingest against the corpus of URLs aimed at local, private and reserved addresses (`tests.reliability.url_corpus`).

Each URL is fetched by the real `fetch_page` on a sealed network (`tests.reliability.network`):
every socket connect is recorded, one public address is served from 127.0.0.1, and DNS answers
from the corpus's names. Figures: sockets opened to non-public addresses (bar 0) and URLs not
refused (bar 0). `--quick` changes nothing: the corpus takes seconds.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from fault_checks.figure import Figure
from program.base.errors import IngestError
from program.base.settings import Settings
from program.retrieval.fetch import fetch_page
from tests.reliability.network import Resolver, sealed_network
from tests.reliability.url_corpus import CORPUS, NAMES


def run(quick: bool) -> list[Figure]:
    private, fetched = [], []
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(_env_file=None, data_dir=Path(folder), web_backend="tavily", tavily_api_key="tvly-fake")
        for url in CORPUS:
            with pytest.MonkeyPatch.context() as patch, sealed_network(patch) as network:
                try:
                    fetch_page(url, settings, resolve=Resolver(NAMES))
                    fetched.append(url)
                except IngestError:
                    pass  # refused: what every URL here must be
            private += network.private_connects()
    return [Figure("urls", f"{len(private)} sockets to non-public addresses over {len(CORPUS)} URLs", "0", not private),
            Figure("urls", f"{len(fetched)} of {len(CORPUS)} URLs fetched instead of refused"
                           + (f" (first: {fetched[0]})" if fetched else ""), "0", not fetched)]
