"""Slow ingests against the real HTTP service with `GATEDRAG_SERVE_MAX_PENDING=1`: 9 `POST /ingest` of a
page that trickles 8 bytes a second, at once, while another thread polls `/healthz` and `/readyz`.

Figures: the slowest probe meanwhile (bar: within 1 s) and the ingests past the bound that got 503
with Retry-After (bar: all 8).
"""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fault_checks.figure import Figure
from fault_checks.redos import _Probe
from tests.program.fake_engine import fake_answerer
from tests.program.serving.live_server import serving, settings
from tests.reliability.hostile_pages import hostile_host

SLOW = 9


def run(quick: bool) -> list[Figure]:
    with tempfile.TemporaryDirectory() as folder, hostile_host(rate=8) as host:
        config = settings(Path(folder), serve_ingest=True, serve_max_pending=1, fetch_allow_hosts=["127.0.0.1"],
                          fetch_deadline_s=5.0 if quick else 20.0)
        with serving(fake_answerer(config), config) as client, ThreadPoolExecutor(SLOW) as pool:
            probe = _Probe(client)
            answers = list(pool.map(lambda _: client.post("/ingest", json={"sources": [host.url + "/trickle"]}),
                                    range(SLOW)))
            ready = client.get("/readyz").status_code
            probe.stop()
    refused = sum(1 for r in answers if r.status_code == 503 and r.headers.get("retry-after"))
    return [Figure("admission", f"slowest /healthz during {SLOW} slow ingests: {probe.worst:.2f} s over {probe.polls} "
                                f"polls; /readyz {ready}", "within 1 s", probe.worst <= 1.0 and ready == 200),
            Figure("admission", f"{refused} of {SLOW - 1} ingests past serve_max_pending=1 got 503 with Retry-After",
                   f"all {SLOW - 1}", refused == SLOW - 1)]
