"""Ingest speed and memory, against raw fastembed on the same chunks in the same run.

    python bench/ingest.py [--limit N] [--html DIR] [--html-pages 300]

1. The HotpotQA corpus's chunks (`--limit`: the first N documents), each phase in a child process
   of its own, so each peak RSS is its own:
   - raw fastembed: the dense and BM25 models' `embed` over the chunks' texts, with fastembed's
     defaults, then the way ingest calls it (texts sorted by length in windows, the same batch size);
   - ingest: `index_documents` into a fresh embedded store.
   It prints both throughputs and their ratio (bar: >= 0.70), the ingest's throughput over its first
   and last tenth (bar: within 20%, in characters a second, since the corpus's chunks are not of one
   length; chunks a second too), and each peak RSS (bar for the ingest: < 1.5 GB).
2. With `--html DIR`: the first `--html-pages` HTML pages of DIR (copied to a temporary folder) are
   ingested once, with the time spent reading and parsing, chunking, embedding and writing, then
   ingested again unchanged through the CLI (bar: < 5 s wall), then again under a new chunking
   (`CHUNKING` bumped, as a release that cuts pages another way does): every chunk is written again,
   and those whose text the index holds take their dense vector from it (bar: <= 0.25 of the first
   ingest's time, in the same run).
3. With `--aws --ray ADDRESS`: the AWS guides' first `--aws-pages` markdown pages (default: all 2,757),
   unpacked to a temporary folder, ingested in process and then with `--ray` on the cluster at ADDRESS
   (started beforehand, e.g. `ray start --head --num-cpus 2` with this tree on its PYTHONPATH, and
   RAY_AUTH_MODE=token here when the cluster uses Ray's token authentication, its default) for each
   of `--actors` (default 1,2). Each gives chunks a second and peak RSS: the ingest process's, and each
   actor's (its VmHWM, read every half second while it runs). Then the proof: every collection holds
   the in-process one's chunk ids with the same text hashes, and the first 20 labelled questions'
   top-5 searches give the same chunks in the same order.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import program.retrieval.indexing as indexing
import program.retrieval.ingest as ingest_module
from program.base.settings import Settings
from program.retrieval.chunking import chunk_document
from program.retrieval.corpora import local_documents
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import EMBED_BATCH, load_embedder

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    args = _args()
    if args.hotpotqa:
        _hotpotqa(args.limit)
    if args.html:
        _html(args.html, args.html_pages)
    if args.aws:
        pools = [int(a) for a in args.actors.split(",")]
        if args.ray == "local":
            with _local_head(args.ray_cpus) as address:
                _aws(args.aws_pages, address, pools)
        else:
            _aws(args.aws_pages, args.ray, pools)


def _hotpotqa(limit: int | None) -> None:
    defaults = _in_child(_raw_fastembed, limit, False)
    raw = _in_child(_raw_fastembed, limit, True)
    indexed = _in_child(_ingest_corpus, limit)
    print(f"HotpotQA corpus: {indexed['chunks']} chunks")
    print(f"  raw fastembed, its defaults:              {defaults['rate']:.1f} chunks/s, "
          f"peak RSS {defaults['rss_mb']:.0f} MB")
    print(f"  raw fastembed, sorted as ingest embeds:   {raw['rate']:.1f} chunks/s, peak RSS {raw['rss_mb']:.0f} MB")
    print(f"  ingest (read, chunk, hash, embed, write): {indexed['rate']:.1f} chunks/s, "
          f"peak RSS {indexed['rss_mb']:.0f} MB")
    print(f"  ingest / raw fastembed sorted: {indexed['rate'] / raw['rate']:.2f} (bar >= 0.70); "
          f"/ its defaults: {indexed['rate'] / defaults['rate']:.2f}")
    (first, first_chars), (last, last_chars) = indexed["first_tenth"], indexed["last_tenth"]
    print(f"  first tenth {first:.1f} chunks/s ({first_chars:.0f} characters/s), last tenth {last:.1f} chunks/s "
          f"({last_chars:.0f} characters/s): last / first {last_chars / first_chars:.2f} in characters "
          f"(bar 0.80-1.20), {last / first:.2f} in chunks")
    print(f"  peak RSS bar < 1536 MB: {'met' if indexed['rss_mb'] < 1536 else 'missed'}")


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-hotpotqa", dest="hotpotqa", action="store_false", help="skip part 1")
    parser.add_argument("--limit", type=int, default=None, help="the first N HotpotQA documents (default: all)")
    parser.add_argument("--html", type=Path, help="a folder of HTML pages (a documentation site)")
    parser.add_argument("--html-pages", type=int, default=300)
    parser.add_argument("--aws", action="store_true", help="the AWS guides, in process and with --ray")
    parser.add_argument("--aws-pages", type=int, help="the first N pages of the guides (default: all)")
    parser.add_argument("--ray", metavar="ADDRESS", help="the Ray cluster of --aws (default: Ray's own default; "
                        "'local': a head started on 127.0.0.1 with --ray-cpus CPUs for the run, stopped afterwards)")
    parser.add_argument("--ray-cpus", type=int, default=2, help="the CPUs of --ray local's head (default 2)")
    parser.add_argument("--actors", default="1,2", help="comma-separated pool sizes for --aws (default 1,2)")
    return parser.parse_args()


def _in_child(function, *args) -> dict:
    """`function(*args)` in a fresh process: its result and its own peak RSS."""
    pool = multiprocessing.get_context("spawn").Pool(1)
    try:
        return pool.apply(function, args)
    finally:
        pool.close()  # subtle: not terminate(): a SIGTERM during Ray's exit hooks prints a crash
        pool.join()


def _corpus_texts(limit: int | None):
    documents = local_documents(Settings())[:limit]
    return documents, [indexing.embedded_text(chunk) for document in documents for chunk in chunk_document(document)]


def _raw_fastembed(limit: int | None, as_ingest: bool) -> dict:
    _, texts = _corpus_texts(limit)
    if as_ingest:
        window = indexing.WINDOW
        texts = [text for start in range(0, len(texts), window) for text in sorted(texts[start:start + window], key=len)]
    embedder = load_embedder(Settings())
    options = {"batch_size": EMBED_BATCH} if as_ingest else {}
    started = time.perf_counter()
    list(embedder.dense.embed(texts, **options))
    list(embedder.sparse.embed(texts))
    return {"rate": len(texts) / (time.perf_counter() - started), "rss_mb": _rss_mb()}


def _ingest_corpus(limit: int | None) -> dict:
    documents, texts = _corpus_texts(limit)
    embedder = load_embedder(Settings())
    with tempfile.TemporaryDirectory() as folder:
        store = _TimedStore(EdgeStore(Path(folder) / "store"))
        started = time.perf_counter()
        stats = indexing.index_documents(store, "bench", documents, embedder=embedder, progress=False)
        seconds = time.perf_counter() - started
        store.inner.close()
    marks = [(t - started, n, chars) for t, n, chars in store.marks]
    return {"chunks": stats.chunks, "rate": stats.embedded / seconds, "rss_mb": _rss_mb(),
            "first_tenth": _tenth_rate(marks, 0), "last_tenth": _tenth_rate(marks, 9)}


def _tenth_rate(marks: list[tuple[float, int, int]], tenth: int) -> tuple[float, float]:
    """Chunks and characters a second over one tenth of the chunks written, by their upsert times."""
    total = marks[-1][1]
    low, high = total * tenth // 10, total * (tenth + 1) // 10
    before = [m for m in marks if m[1] <= low] or [(0.0, 0, 0)]
    (t0, n0, c0), (t1, n1, c1) = before[-1], next(m for m in marks if m[1] >= high)
    return (n1 - n0) / (t1 - t0), (c1 - c0) / (t1 - t0)


class _TimedStore:
    """A store that notes when each upsert ends, and how many points and characters of text are written by then."""

    def __init__(self, inner):
        self.inner, self.marks, self.written, self.chars = inner, [], 0, 0

    def upsert(self, collection, points):
        self.inner.upsert(collection, points)
        self.written += len(points)
        self.chars += sum(len(p.payload.get("text", "")) for p in points)
        self.marks.append((time.perf_counter(), self.written, self.chars))

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _html(source: Path, pages: int) -> None:
    files = sorted(p for p in source.rglob("*.html") if p.is_file())[:pages]
    with tempfile.TemporaryDirectory() as folder:
        site, data = Path(folder) / "site", Path(folder) / "data"
        for file in files:
            target = site / file.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target)
        megabytes = sum(f.stat().st_size for f in site.rglob("*.html")) / 2**20
        print(f"HTML folder: {len(files)} pages of {source}, {megabytes:.1f} MB")
        profile = _in_child(_profiled_ingest, str(site), str(data))
        print(f"  first ingest: {profile['chunks']} chunks in {profile['seconds']:.1f} s "
              f"({profile['chunks'] / profile['seconds']:.1f} chunks/s), peak RSS {profile['rss_mb']:.0f} MB")
        for phase, seconds in profile["phases"].items():
            print(f"    {phase:<22} {seconds:7.1f} s  {100 * seconds / profile['seconds']:5.1f}%")
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "program", "ingest", str(site), "--collection", "bench"],
                              cwd=ROOT, env=_env(data), capture_output=True, text=True, check=True)
        wall = time.perf_counter() - started
        print(f"  unchanged re-ingest through the CLI: {wall:.1f} s wall (bar < 5 s): {done.stdout.strip()}")
        again = _in_child(_rechunked_ingest, str(site), str(data))
        ratio = again["seconds"] / profile["seconds"]
        print(f"  re-ingest under a new chunking: {again['seconds']:.1f} s, {ratio:.2f} of the first ingest "
              f"(bar <= 0.25: {'met' if ratio <= 0.25 else 'missed'}): {again['summary']}")


def _profiled_ingest(site: str, data: str) -> dict:
    phases: dict[str, float] = defaultdict(float)
    ingest_module.read = _timed(ingest_module.read, phases, "reading and parsing")
    indexing.chunk_document = _timed(indexing.chunk_document, phases, "chunking")
    indexing.points = _timed(indexing.points, phases, "embedding")
    settings = Settings(_env_file=None, data_dir=Path(data), collection="bench")
    store = ingest_module.open_store(settings)
    store.upsert = _timed(store.upsert, phases, "writing")
    store.finish_bulk = _timed(store.finish_bulk, phases, "writing (optimize)")
    started = time.perf_counter()
    report = ingest_module.ingest([Path(site)], settings, collection="bench", store=store)
    seconds = time.perf_counter() - started
    store.close()
    phases["everything else"] = seconds - sum(phases.values())
    return {"chunks": report.chunks, "seconds": seconds, "phases": dict(phases), "rss_mb": _rss_mb()}


def _rechunked_ingest(site: str, data: str) -> dict:
    for module in (indexing, ingest_module):
        module.CHUNKING += 1
    settings = Settings(_env_file=None, data_dir=Path(data), collection="bench")
    started = time.perf_counter()
    report = ingest_module.ingest([Path(site)], settings, collection="bench")
    return {"seconds": time.perf_counter() - started, "summary": report.summary()}


def _timed(function, phases: dict[str, float], phase: str):
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            phases[phase] += time.perf_counter() - started
    return timed


def _aws(pages: int | None, address: str | None, pools: list[int]) -> None:
    settings = Settings(_env_file=None)
    with tempfile.TemporaryDirectory() as folder:
        site = _aws_site(settings, Path(folder), pages)
        base = _in_child(_aws_ingest, str(site), f"{folder}/in_process", None, None)
        print(f"AWS guides: {len(list(site.rglob('*.md')))} pages, {base['chunks']} chunks", flush=True)
        _print_run("in process", base, base)
        for actors in pools:
            run = _in_child(_aws_ingest, str(site), f"{folder}/ray{actors}", address or "", actors)
            _print_run(f"--ray, {actors} actor(s)", run, base)
        _same_collections(settings, [Path(folder) / name for name in ["in_process", *(f"ray{a}" for a in pools)]])


@contextlib.contextmanager
def _local_head(cpus: int):
    """A Ray head on 127.0.0.1 (`ray start --head`) with this tree on its workers' path, stopped on exit."""
    ray = Path(sys.executable).with_name("ray")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    port = _free_port()
    # Ray 2.60 turns on token authentication where ~/.ray/auth_token exists; head and driver must agree
    os.environ["RAY_AUTH_MODE"] = env["RAY_AUTH_MODE"] = "token"
    subprocess.run([str(ray), "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port),
                    "--num-cpus", str(cpus), "--include-dashboard", "false", "--disable-usage-stats"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    try:
        print(f"Ray head on 127.0.0.1:{port} with {cpus} CPUs (ray start --head)", flush=True)
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([str(ray), "stop"], env=env, check=False, stdout=subprocess.DEVNULL)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _print_run(name: str, run: dict, base: dict) -> None:
    actors = ", ".join(f"{mb:.0f}" for mb in run["actors_mb"]) or "-"
    print(f"  {name:<22} {run['rate']:6.1f} chunks/s ({run['rate'] / base['rate']:.2f}x in process), "
          f"{run['seconds']:.0f} s; peak RSS: ingest {run['rss_mb']:.0f} MB, actors {actors} MB", flush=True)


def _aws_site(settings: Settings, folder: Path, pages: int | None) -> Path:
    """The first `pages` markdown pages of the guides (sorted by path), unpacked under `folder`/site."""
    import tarfile

    from program.retrieval.aws_corpus import TARBALL, aws_file, tarball_pages

    wanted = set(tarball_pages(settings)[:pages])
    with tarfile.open(aws_file(settings, TARBALL)) as archive:
        archive.extractall(folder / "site", members=[m for m in archive.getmembers() if m.name in wanted],
                           filter="data")
    return folder / "site"


def _aws_ingest(site: str, data: str, address: str | None, actors: int | None) -> dict:
    """One ingest of `site` into a fresh data dir: in process (`address` None) or on Ray with `actors`."""
    import threading

    settings = Settings(_env_file=None, data_dir=Path(data), collection="bench", ray_address=address or None,
                        ray_actors=actors)
    writer, peaks, running = None, {}, threading.Event()
    if address is not None:
        from program.retrieval.ray_writer import ray_writer

        writer = ray_writer(settings)
        running.set()
        threading.Thread(target=_watch_actors, args=(peaks, running), daemon=True).start()
    started = time.perf_counter()
    report = ingest_module.ingest([Path(site)], settings, collection="bench", progress=False, writer=writer)
    seconds = time.perf_counter() - started
    running.clear()
    ingest_module.open_store(settings).close()
    return {"chunks": report.chunks, "rate": report.embedded / seconds, "seconds": seconds, "rss_mb": _rss_mb(),
            "actors_mb": sorted(peaks.values())}


def _watch_actors(peaks: dict[int, float], running) -> None:
    """Each embedding actor's peak RSS (its VmHWM), read every half second while `running` is set."""
    while running.is_set():
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                if b"MapWorker" not in (status.parent / "cmdline").read_bytes():
                    continue
                line = next(x for x in status.read_text().splitlines() if x.startswith("VmHWM:"))
            except (OSError, StopIteration):
                continue
            peaks[int(status.parent.name)] = max(peaks.get(int(status.parent.name), 0), int(line.split()[1]) / 1024)
        time.sleep(0.5)


def _same_collections(settings: Settings, data_dirs: list[Path]) -> None:
    """Whether every collection holds the first's chunk ids and text hashes, and answers 20 questions alike."""
    import csv

    from program.retrieval.aws_corpus import QUESTIONS, aws_file
    from program.retrieval.retriever import HybridSearch

    with aws_file(settings, QUESTIONS).open(encoding="utf-8-sig", newline="") as rows:
        questions = [row["Question"] for row in csv.DictReader(rows)][:20]
    embedder, held, found = load_embedder(settings), [], []
    for data in data_dirs:
        store = EdgeStore(data / "qdrant-edge")
        held.append(dict(store.payloads("bench", ["text_hash"])))
        search = HybridSearch(store, "bench", embedder=embedder)
        found.append([[p.chunk_id for p in search(q, 5)] for q in questions])
        store.close()
    for data, ids, hits in zip(data_dirs[1:], held[1:], found[1:]):
        same = sum(a == b for a, b in zip(found[0], hits))
        print(f"  {data.name} against {data_dirs[0].name}: {len(ids)} chunk ids, "
              f"{'the same ids and text hashes' if ids == held[0] else 'DIFFERENT ids or hashes'}; "
              f"{same} of {len(questions)} questions' top 5 the same, in order")


def _env(data: Path) -> dict[str, str]:
    return {**os.environ, "GATEDRAG_DATA_DIR": str(data)}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
