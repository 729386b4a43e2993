"""Code files that were quadratic to chunk, each read and chunked as ingest does in a child process
(`_ingest_child`; the embedding aside, as in the `redos` family: it is the model's time): TypeScript
of 1,200 imports and 1,200 functions, the same at 3,000, and a 400 KB Rust function with one `{` a line
and no members to cut between.

Figures: each file's seconds and memory growth (bar: within 5 s, under 100 MB), and the Rust file's
longest chunk (bar: at most the chunk cap).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from fault_checks.figure import Figure
from fault_checks.hostile_fetch import INGEST_MB, ingested
from program.retrieval.chunking import MAX_CHARS


def typescript(count: int) -> str:
    return "".join(f"import {{ name{i} }} from './mod{i}';\n" for i in range(count)) + "\n" + "".join(
        f"export function f{i}(x: number): number {{\n  return name{i}(x) + 1;\n}}\n\n" for i in range(count))


FILES = {"ts-1200.ts": typescript(1200), "ts-3000.ts": typescript(3000),
         "one-fn.rs": "fn huge() {\n" + "    {\n" * 66_000 + "}\n"}


def run(quick: bool) -> list[Figure]:
    figures = []
    with tempfile.TemporaryDirectory() as folder:
        for name, text in FILES.items():
            (Path(folder) / name).write_text(text)
            done = ingested(str(Path(folder) / name), folder, "chunk")
            figures.append(Figure("code", f"{name} ({len(text) // 1000} KB): {done['seconds']:.1f} s, "
                                          f"+{done['growth_mb']:.0f} MB, {done['chunks']} chunks {done['error']}",
                                  f"within 5 s, under {INGEST_MB} MB", not done["error"] and done["seconds"] <= 5
                                  and done["growth_mb"] < INGEST_MB))
            if name.endswith(".rs"):
                figures.append(Figure("code", f"{name}: longest chunk {done['longest']:,} characters",
                                      f"<= {MAX_CHARS}", 0 < done["longest"] <= MAX_CHARS))
    return figures
