"""Writes docs/results.md from the newest run folder of each kind; with `--run`, makes the runs first.

    python bench/results.py                       # rewrite docs/results.md from the run folders there are
    python bench/results.py --run missing         # run every kind that has no finished run, then rewrite
    python bench/results.py --run corpora job     # run these kinds again (see KINDS), then rewrite

A run of a kind goes into `<data dir>/results/<kind>/<UTC time>/`: `stamp.json` (the date, the
git commit, the core count, the LM and the exact commands), `output.txt` (what the commands
printed) and what they write (an eval's `run/summary.json`, the gold-reader bench's records).
The page reads the newest finished folder of each kind; a kind with none is shown with the
command that makes it, never with a figure. An unfinished folder (a run killed midway) is
resumed by the next `--run` of its kind, as eval resumes its own. The commands run with this
checkout's code and the configured LM (`GATEDRAG_LM` and the rest); nothing else runs them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(1, str(ROOT))  # subtle: this checkout's code, not whichever one the venv was installed from

from bench import result_page  # noqa: E402
from program.base.settings import Settings  # noqa: E402

OUT = ROOT / "docs" / "results.md"


@dataclass(frozen=True)
class Kind:
    name: str
    commands: tuple[tuple[str, ...], ...]  # argv after `python`; {shared}, {data} and {folder} are filled in

    def argv(self, shared: Path, folder: Path, data: Path = Path(".gatedrag")) -> list[list[str]]:
        return [[arg.format(shared=shared, folder=folder, data=data) for arg in command] for command in self.commands]


def _eval(*args: str) -> tuple[str, ...]:
    return ("-m", "optimize", "eval", *args, "--systems", "gated,learned,single_pass", "--out", "{folder}/run")


def _ingest(corpus: str) -> tuple[str, ...]:
    return ("-m", "program", "ingest", f"{{shared}}/{corpus}/corpus.json", "--collection", corpus)


def _labelled(corpus: str) -> tuple[str, ...]:
    return _eval("--dataset", f"{{shared}}/{corpus}/questions.jsonl", "--collection", corpus, "--split", "dev",
                 "--limit", "40", "--web", "none")


# the sufficiency model's training states, one table per labelled corpus
_STATES = {"hotpotqa": "hotpotqa", "musique": "{shared}/musique/questions.jsonl",
           "clapnq": "{shared}/clapnq/questions.jsonl", "aws_docs": "aws_docs"}

# the learned release's leave-one-corpus-out runs: each corpus's dev questions (HotpotQA's outside smoke)
# the folds' sizes: HotpotQA's first 130 dev questions hold 100 outside the smoke set, which
# bench/loco_release.py leaves out
_RELEASE = {"hotpotqa": ("--split", "dev", "--web", "none", "--limit", "130"),
            "musique": ("--dataset", "{shared}/musique/questions.jsonl", "--collection", "musique", "--split", "dev",
                        "--web", "none", "--limit", "40"),
            "clapnq": ("--dataset", "{shared}/clapnq/questions.jsonl", "--collection", "clapnq", "--split", "dev",
                       "--web", "none", "--limit", "150"),
            "aws_docs": ("--dataset", "aws_docs", "--split", "dev", "--web", "none", "--limit", "50")}


def _release_eval(corpus: str, *args: str) -> tuple[str, ...]:
    return ("-m", "optimize", "eval", *args, "--systems", "gated,learned,single_pass", "--out", f"{{folder}}/{corpus}")


def _loco_release(*args: str) -> tuple[str, ...]:
    return ("bench/loco_release.py", *(f"{c}={{folder}}/{c}" for c in _RELEASE), *args)


KINDS = {kind.name: kind for kind in (
    Kind("corpus-hotpotqa", (("-m", "program", "index"), _eval("--split", "smoke", "--web", "offline"))),
    Kind("corpus-musique", (_ingest("musique"), _labelled("musique"))),
    Kind("corpus-clapnq", (_ingest("clapnq"), _labelled("clapnq"))),
    Kind("corpus-aws_docs", (("-m", "program", "index", "--corpus", "aws_docs"),
                             _eval("--dataset", "aws_docs", "--split", "dev", "--web", "none"))),
    Kind("job", (("-m", "optimize"),)),
    Kind("job-clapnq", (_ingest("clapnq"), ("-m", "optimize", "--dataset", "{shared}/clapnq/questions.jsonl",
                                                "--collection", "clapnq", "--max-wrong-rate", "0.2"))),
    Kind("gold_reader", (_ingest("musique"), ("bench/gold_reader.py", "--dataset", "{shared}/musique/questions.jsonl",
                         "--collection", "musique", "--split", "dev", "--limit", "40",
                         "--out", "{folder}/gold_reader.jsonl"))),
    Kind("loco", (("-m", "program", "index"), ("-m", "program", "index", "--corpus", "aws_docs"),
                  _ingest("musique"), _ingest("clapnq"),
                  *(("-m", "optimize", "record-states", "--dataset", dataset, "--collection", name)
                    for name, dataset in _STATES.items()),
                  ("bench/loco.py", *(f"{{data}}/states/{name}.jsonl" for name in _STATES), "--out", "{folder}/loco"))),
    Kind("loco_release", (("-m", "program", "index"), ("-m", "program", "index", "--corpus", "aws_docs"),
                          _ingest("musique"), _ingest("clapnq"),
                          *(_release_eval(corpus, *args) for corpus, args in _RELEASE.items()),
                          _loco_release("--out", "{folder}/loco_release"),
                          _loco_release("--max-wrong-rate", "0.2", "--out", "{folder}/loco_release_risk"))),
    Kind("ingest_ray", (("bench/ingest.py", "--no-hotpotqa", "--aws", "--ray", "local"),)),
    Kind("parallel_eval", (("bench/parallel_eval.py", "--limit", "24", "--llamacpp", "--fake-latency", "2",
                            "--fake-workers", "1,2,4,8"),)),
    Kind("retrieval", (("bench/retrieval.py",),)),
    Kind("ingest", (("bench/ingest.py",),)),
)}
GROUPS = {"corpora": [name for name in KINDS if name.startswith("corpus-")]}


def folders(results: Path, kind: str) -> list[Path]:
    """The kind's run folders, newest first (their names are UTC times)."""
    return sorted((p for p in (results / kind).glob("*") if (p / "stamp.json").is_file()), reverse=True)


def stamp(folder: Path) -> dict:
    return json.loads((folder / "stamp.json").read_text(encoding="utf-8"))


def newest_finished(results: Path, kind: str) -> Path | None:
    return next((f for f in folders(results, kind) if stamp(f).get("exit") == 0), None)


def shown(argv: list[str]) -> str:
    """A command as a user types it from the project root: `python`, and paths relative to the root."""
    return " ".join(["python", *(os.path.relpath(a, ROOT) if a.startswith("/") else a for a in argv)])


def run(kind: Kind, results: Path, settings: Settings) -> int:
    """Run a kind's commands into a new folder, or into its newest one if that never finished."""
    newest = next(iter(folders(results, kind.name)), None)
    folder = newest if newest and "exit" not in stamp(newest) else \
        results / kind.name / datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    folder.mkdir(parents=True, exist_ok=True)
    commands = kind.argv(settings.shared_data, folder, settings.data_dir)
    about = {"kind": kind.name, "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "commit": _commit(), "cores": os.cpu_count(), "lm": _lm(settings), "commands": [shown(c) for c in commands]}
    (folder / "stamp.json").write_text(json.dumps(about, indent=1), encoding="utf-8")
    with open(folder / "output.txt", "w", encoding="utf-8") as output:
        for argv in commands:
            code = _tee([sys.executable, *argv], output)
            if code:
                break
    about |= {"finished": datetime.now(timezone.utc).isoformat(timespec="seconds"), "exit": code}
    (folder / "stamp.json").write_text(json.dumps(about, indent=1), encoding="utf-8")
    return code


def _tee(argv: list[str], output) -> int:
    """Run a command from the project root, its stdout shown and kept; its stderr (progress bars) only shown."""
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, text=True) as process:
        for line in process.stdout:
            print(line, end="", flush=True)
            output.write(line)
    return process.returncode


def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return (git("rev-parse", "--short", "HEAD") or "unknown") + (" (with uncommitted changes)" if dirty else "")


def _lm(settings: Settings) -> str:
    return f"{settings.resolved_profile}: {settings.serving_model}"


def chosen(names: list[str], results: Path) -> list[str]:
    """The kinds `--run` names: kinds, groups, `missing` (no finished run) or `all`."""
    if "all" in names:
        return list(KINDS)
    if "missing" in names:
        return [k for k in KINDS if newest_finished(results, k) is None]
    unknown = [n for n in names if n not in KINDS and n not in GROUPS]
    if unknown:
        raise SystemExit(f"error: unknown kind {unknown[0]!r}; choose from {', '.join([*KINDS, *GROUPS, 'missing', 'all'])}")
    return list(dict.fromkeys(k for n in names for k in GROUPS.get(n, [n])))


def main() -> int:
    args = _parser().parse_args()
    settings = Settings()
    results = settings.data_dir / "results"
    failed = [name for name in chosen(args.run or [], results) if run(KINDS[name], results, settings)]
    newest = {name: newest_finished(results, name) for name in KINDS}
    args.out.write_text(result_page.page(newest, {k: kind.argv(settings.shared_data, Path("<folder>")) for k, kind
                                               in KINDS.items()}, shown), encoding="utf-8")
    print(f"wrote {args.out}" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", nargs="+", metavar="KIND", help=f"run these first: {', '.join(KINDS)}, "
                        "corpora (the four corpus-*), missing (each with no finished run) or all")
    parser.add_argument("--out", type=Path, default=OUT, help="the page to write (default docs/results.md)")
    return parser


if __name__ == "__main__":
    sys.exit(main())
