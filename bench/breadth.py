"""Breadth expansion from a seed page against the guide ingested in full, on the AWS documentation.

    python bench/breadth.py [--limit 20] [--out FOLDER]

The AWS guides are served from a temporary folder on 127.0.0.1 (their Markdown cross-links are the
site's links, served as text/markdown), with that host allowed (`GATEDRAG_FETCH_ALLOW_HOSTS`). For the
first `--limit` dev questions, each in turn:
- seed: a fresh collection; the program gets the question and the guide's `index.md` as its seed URL,
  and ingests only the seed and the links the gate follows;
- full: the `aws_docs` collection (`python -m program index --corpus aws_docs` first), no seed.
Both run the local LM with the web off. The table gives, per question and in total: whether a page the
question's label names was in the evidence (evidence recall), pages ingested for the question (the seed
and the pages fetched, against the guide's page count), the gate's breadth rounds and the seconds. Last,
each seeded traversal is replayed offline as `python -m optimize links` replays it, and the bench counts
the questions whose replay fetched the same pages in every round the loop took.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


import program  # noqa: E402,F401  (offline env vars first)
from optimize.eval.aws_docs import load_aws_docs  # noqa: E402
from optimize.links.questions import link_questions, seed_path  # noqa: E402
from optimize.links.seeds import AWS_SEED  # noqa: E402
from optimize.links.site import read_site  # noqa: E402
from optimize.links.traversal import traverse  # noqa: E402
from program.assembly.factory import build_program  # noqa: E402
from program.base.settings import Settings  # noqa: E402
from program.lm.lm_profiles import configure_lm  # noqa: E402
from program.retrieval.aws_corpus import aws_file, unpack_guides  # noqa: E402
from program.retrieval.embeddings import load_embedder  # noqa: E402
from program.thresholds import Thresholds  # noqa: E402


def main() -> None:
    args = _args()
    settings = Settings(web_backend="none")
    questions = load_aws_docs(aws_file(settings, "QA_true.csv"), "dev")[:args.limit]
    rows = []
    with tempfile.TemporaryDirectory() as folder, configure_lm(settings, cache=False, announce=False):
        documents = unpack_guides(settings, Path(folder))
        site = _serve(documents)
        full = build_program(settings.model_copy(update={"collection": "aws_docs"}))
        for i, example in enumerate(questions, 1):
            guide = example.gold_sources[0].split("/")[0]
            seeded_settings = settings.model_copy(update={
                "data_dir": Path(folder) / "data", "collection": f"seed{i:02d}", "fetch_allow_hosts": ["127.0.0.1"]})
            seeded = build_program(seeded_settings, seeded=True)
            row = {"qid": example.qid, "question": example.question, "guide": guide,
                   "guide_pages": len(list((documents / guide / "doc_source").glob("*.md")))}
            row["seed"] = _run(seeded, example, url=f"{site}/{seed_path(AWS_SEED, example)}")
            row["full"] = _run(full, example)
            rows.append(row)
            print(f"{i:>2}. seed recall {row['seed']['recall']:.0f}, {row['seed']['pages']} pages | full recall "
                  f"{row['full']['recall']:.0f}, {row['guide_pages']} pages | {example.question[:60]}", flush=True)
        _replay(rows, questions, documents, site, settings)
    _report(rows, args.out)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--out", type=Path, default=ROOT / ".gatedrag" / "bench-breadth")
    return parser.parse_args()


def _serve(root: Path) -> str:
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _run(rag, example, url: str | None = None) -> dict:
    started = time.perf_counter()
    result = rag(question=example.question, url=url).result
    gold = example.gold_sources[0]
    found = any(p.url.endswith(gold) or p.origin.endswith(gold) for p in result.evidence)
    resources = result.trace.resources
    return {"recall": float(found), "pages": (1 + resources.pages_fetched) if url else 0,
            "breadth_rounds": resources.breadth_rounds, "seconds": round(time.perf_counter() - started, 1),
            "short_answer": result.short_answer, "traversal": [s.model_dump() for s in result.expansion_steps]}


def _replay(rows: list[dict], questions, documents: Path, served: str, settings: Settings) -> None:
    """Each seeded traversal replayed offline, as `python -m optimize links` replays it, under the
    same thresholds: per row, whether the replay fetched the same pages in every round the loop took
    (None when the loop took none)."""
    site = read_site(documents, settings.ingest_max_bytes)
    linked = link_questions(site, questions, AWS_SEED, load_embedder(settings).dense)
    for row, question in zip(rows, linked, strict=True):
        walk = traverse(site, question.seed, question.cosines, question.terms, question.gold, Thresholds())
        real: dict[int, set[str]] = {}
        for step in row["seed"]["traversal"]:
            if step["round"] >= 1 and step["status"] in ("fetched", "failed"):
                real.setdefault(step["round"], set()).add(step["url"].replace(served + "/", site.base_url))
        replayed = {n: set(urls) for n, urls in enumerate(walk.rounds, 1)}
        row["replay_same"] = all(real[n] == replayed.get(n) for n in real) if real else None


def _report(rows: list[dict], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "rows.json").write_text(json.dumps(rows, indent=1))
    n = len(rows)
    mean = lambda mode, key: sum(r[mode][key] for r in rows) / n  # noqa: E731
    print(f"\n{n} AWS dev questions")
    print("| system | evidence recall | pages ingested per question | breadth rounds | mean seconds |")
    print("|---|---|---|---|---|")
    print(f"| seed page + expand_breadth | {mean('seed', 'recall'):.2f} | {mean('seed', 'pages'):.1f} | "
          f"{mean('seed', 'breadth_rounds'):.2f} | {mean('seed', 'seconds'):.1f} |")
    print(f"| guide ingested in full | {mean('full', 'recall'):.2f} | "
          f"{sum(r['guide_pages'] for r in rows) / n:.0f} (up front) | – | {mean('full', 'seconds'):.1f} |")
    expanded = [r["replay_same"] for r in rows if r["replay_same"] is not None]
    print(f"offline replay (python -m optimize links): the same pages in every round the loop took on "
          f"{sum(expanded)} of the {len(expanded)} questions it expanded")
    print(f"rows: {out / 'rows.json'}")


if __name__ == "__main__":
    main()
