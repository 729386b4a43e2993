"""Parallel eval against a served LM: `optimize eval --workers N`, its wall time and its answers.

    python bench/parallel_eval.py [--limit 6] [--llamacpp] [--fake-latency 2.0] [--fake-workers 1,2,4,8]

1. `--llamacpp`: the bundled 0.5B on llama.cpp with 2 slots (greedy decoding), started afresh for each
   run in a process of its own (so no run is served the other's cached prompts) and reached as a user's
   server is (GATEDRAG_LM=openai/<name>, GATEDRAG_LM_API_BASE). `optimize eval --workers 1`, then `--workers 2`, on the first
   `--limit` AWS docs questions (the gated system, no web): the wall time of each, and how many answers
   are the same, question for question.
2. A fake OpenAI-compatible endpoint that answers every call after `--fake-latency` seconds with a valid
   output for the signature asked (its output fields read from the prompt): questions a second at each
   of `--fake-workers`, against 1 worker. That is what an LM serving every request at once (a hosted
   API) gives; the arithmetic for a real server is in docs/scaling.md.
The questions' gold pages are ingested first into a collection of their own (a few dozen chunks), so
nothing else need be indexed. The machine may be shared: compare ratios.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIELD = re.compile(r"^\d+\. `(\w+)` \((.+)\):", re.M)


def main() -> None:
    args = _args()
    with tempfile.TemporaryDirectory() as folder:
        questions = _aws_questions(Path(folder), args.limit)
        if args.llamacpp:
            _llamacpp(Path(folder), questions, args.limit)
        if args.fake_workers:
            _fake(Path(folder), questions, args.limit, args.fake_latency, [int(n) for n in args.fake_workers.split(",")])


def _aws_questions(folder: Path, limit: int) -> Path:
    """The first `limit` AWS docs questions as a labelled file, their gold pages ingested into collection `mini`
    of `folder`/data: what the evals run on."""
    import csv
    import tarfile

    from program.base.settings import Settings
    from program.retrieval.aws_corpus import QUESTIONS, TARBALL, aws_file, gold_page, member_page
    from program.retrieval.ingest import ingest
    from program.retrieval.open_store import open_store

    settings = Settings(_env_file=None, data_dir=folder / "data")
    with aws_file(settings, QUESTIONS).open(encoding="utf-8-sig", newline="") as rows:
        asked = list(csv.DictReader(rows))[:limit]
    gold = {gold_page(row["Document_True"]) for row in asked}
    with tarfile.open(aws_file(settings, TARBALL)) as archive:
        pages = [m for m in archive.getmembers() if m.isfile() and member_page(m.name) in gold]
        archive.extractall(folder / "pages", members=pages, filter="data")
    print(ingest([folder / "pages"], settings, collection="mini").summary(), flush=True)
    open_store(settings).close()  # the evals open it in processes of their own
    questions = folder / "questions.jsonl"
    questions.write_text("".join(json.dumps({"id": f"aws{i}", "question": row["Question"].strip(),
                                             "answer": row["Answer_True"], "gold_sources": [gold_page(row["Document_True"])]})
                                 + "\n" for i, row in enumerate(asked)))
    return questions


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=6, help="the first N AWS docs questions (default 6)")
    parser.add_argument("--llamacpp", action="store_true", help="part 1: the bundled llama.cpp with 2 slots")
    parser.add_argument("--fake-latency", type=float, default=2.0, help="seconds per fake LM call (default 2)")
    parser.add_argument("--fake-workers", default="1,2,4,8", help="empty: skip part 2")
    return parser.parse_args()


def _llamacpp(folder: Path, questions: Path, limit: int) -> None:
    runs = {}
    for workers in (1, 2):
        with _served_llamacpp() as url:
            runs[workers] = _eval(folder, f"llamacpp{workers}", questions, url, "qwen2.5-coder-0.5b", workers)
    same = sum(runs[1]["answers"][q] == runs[2]["answers"].get(q) for q in runs[1]["answers"])
    print(f"llama.cpp, 2 slots, {limit} AWS questions (gated): --workers 1 {runs[1]['seconds']:.0f} s, "
          f"--workers 2 {runs[2]['seconds']:.0f} s ({runs[1]['seconds'] / runs[2]['seconds']:.2f}x); "
          f"{same} of {len(runs[1]['answers'])} answers the same")
    for qid, answer in runs[1]["answers"].items():
        if answer != runs[2]["answers"].get(qid):
            print(f"  {qid}: {answer!r} | {runs[2]['answers'].get(qid)!r}")


class _served_llamacpp:
    """The bundled model's llama.cpp server with 2 slots, in a process of its own, for one block: its URL."""

    def __enter__(self) -> str:
        context = multiprocessing.get_context("spawn")
        self.stop, (ours, theirs) = context.Event(), context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, self.stop), daemon=True)
        self.process.start()
        return ours.recv()

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.process.join(timeout=30)


def _serve(pipe, stop) -> None:
    from program.base.settings import Settings
    from program.lm.local_lm import LocalServer, assemble_gguf

    settings = Settings()
    server = LocalServer(assemble_gguf(settings.local_model, settings.model_cache), slots=2)
    pipe.send(f"{server.base_url}/v1")
    stop.wait()
    server.close()


def _fake(folder: Path, questions: Path, limit: int, latency: float, pool: list[int]) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.program.fake_openai import FakeOpenAI

    server = FakeOpenAI(slow_s=latency, content=_valid_output)
    server.mode = "slow"
    try:
        runs = {n: _eval(folder, f"fake{n}", questions, server.api_base, "fake", n) for n in pool}
    finally:
        server.close()
    base = runs[pool[0]]
    print(f"fake endpoint, {latency:g} s a call, {limit} AWS questions (gated), {base['calls'] / limit:.1f} LM calls a question:")
    for n, run in runs.items():
        print(f"  --workers {n}: {run['seconds']:.1f} s in all ({base['seconds'] / run['seconds']:.2f}x); once warm "
              f"{run['steady']:.2f} questions/s ({run['steady'] / base['steady']:.2f}x); answers the same as "
              f"--workers {pool[0]}: {sum(run['answers'][q] == base['answers'][q] for q in base['answers'])} of {limit}")


def _valid_output(body: dict) -> str:
    """A JSON object with every output field the prompt names, each a value of its type."""
    system = next(m["content"] for m in body["messages"] if m["role"] == "system")
    fields = system.split("Your output fields are:", 1)[1].split("All interactions", 1)[0]
    return json.dumps({name: _value(kind) for name, kind in FIELD.findall(fields)})


def _value(kind: str):
    if kind.startswith("Literal["):
        return re.findall(r"'([^']*)'", kind)[0]
    return {"bool": True, "int": 1, "float": 0.5}.get(kind, [] if kind.startswith("list") else {} if kind.startswith(
        "dict") else "fake")


def _eval(folder: Path, name: str, questions: Path, api_base: str, model: str, workers: int) -> dict:
    env = {**os.environ, "GATEDRAG_LM": f"openai/{model}", "GATEDRAG_LM_API_BASE": api_base,
           "MLFLOW_TRACKING_URI": f"sqlite:///{folder / 'mlflow.db'}"}
    out = folder / name
    command = [sys.executable, "-m", "optimize", "eval", "--dataset", str(questions), "--collection", "mini",
               "--web", "none", "--systems", "gated", "--workers", str(workers), "--out",
               str(out), "--data-dir", str(folder / "data"), "--no-progress"]
    # timed from the line the eval prints once its imports are done and its input checked, to its exit;
    # and when each record lands, for the rate once the first questions (which pay the LM client's start) are done
    landed: list[float] = []
    watching = threading.Thread(target=_watch, args=(out / "results.jsonl", landed), daemon=True)
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True) as process:
        watching.start()
        said: list[str] = []
        started = next((time.perf_counter() for line in process.stderr if said.append(line) or line.startswith("run ")),
                       None)
        said += process.stderr.readlines()
    if process.returncode or started is None:
        raise RuntimeError(f"{name}: optimize eval failed (exit {process.returncode}): {''.join(said[-5:])}")
    seconds = time.perf_counter() - started
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    watching.join()
    after = landed[workers - 1:]  # the first `workers` records each paid the warm-up
    steady = (len(after) - 1) / (after[-1] - after[0]) if len(after) > 1 and after[-1] > after[0] else float("nan")
    return {"seconds": seconds, "answers": {r["qid"]: (r.get("result") or {}).get("answer") for r in records},
            "calls": sum(_calls(r) for r in records), "steady": steady}


def _watch(results: Path, landed: list[float]) -> None:
    """The time each line of `results` appears, polled every 0.1 s until the eval writes its report."""
    while not (results.parent / "report.html").exists():
        lines = results.read_text().count("\n") if results.exists() else 0
        landed += [time.perf_counter()] * (lines - len(landed))
        time.sleep(0.1)


def _calls(record: dict) -> int:
    steps = ((record.get("result") or {}).get("trace") or {}).get("steps") or []
    return sum((step.get("lm") or {}).get("calls", 0) for step in steps)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
