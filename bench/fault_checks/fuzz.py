"""Fuzzed `/answer` bodies against the real HTTP service on 127.0.0.1 (uvicorn, scripted fake LM).

5,000 bodies (`--quick`: 500): the named odd ones (lone surrogates, NUL, deep nesting, 64 KiB - 1,
64 KiB, 64 KiB + 1, ...), then bodies built from the request model's JSON Schema, 60% of them
mutated byte by byte (`tests.reliability.fuzz_bodies`). One in five is sent with chunked transfer
encoding. Figure: HTTP 5xx answers and failed exchanges (bar 0), with the mix of statuses.
"""

from __future__ import annotations

import random
import tempfile
from collections import Counter
from pathlib import Path

import httpx

from fault_checks.figure import Figure
from tests.program.fake_engine import fake_answerer
from tests.program.serving.live_server import serving, settings
from tests.reliability.fuzz_bodies import ODD_BODIES, chunks, fuzzed

SEED = 20


def run(quick: bool) -> list[Figure]:
    rng = random.Random(SEED)
    odd = [b.encode() if isinstance(b, str) else b for b, _ in ODD_BODIES.values()]
    bodies = odd + fuzzed(rng, (500 if quick else 5000) - len(odd))
    with tempfile.TemporaryDirectory() as folder:
        statuses = _post_all(Path(folder), bodies, rng)
    bad = sum(n for status, n in statuses.items() if status == "no answer" or status >= 500)
    mix = ", ".join(f"{status}: {n}" for status, n in sorted(statuses.items(), key=str))
    return [Figure("fuzz", f"{bad} HTTP 5xx or failed exchanges in {len(bodies):,} bodies ({mix})", "0", bad == 0)]


def _post_all(folder: Path, bodies: list[bytes], rng: random.Random) -> Counter:
    config = settings(folder)
    statuses: Counter = Counter()
    with serving(fake_answerer(config), config) as client:
        for body in bodies:
            content = chunks(body) if rng.random() < 0.2 else body
            try:
                response = client.post("/answer", content=content, headers={"Content-Type": "application/json"})
                statuses[response.status_code] += 1
            except httpx.HTTPError:  # the service dropped the connection: as bad as a 500
                statuses["no answer"] += 1
    return statuses
