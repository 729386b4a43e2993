"""Kills: SIGKILL or SIGTERM at random points of an eval and of the optimize job, each resumed until it finishes.

The runs are `tests.reliability.kill_child` (a fake LM, non-ASCII questions and ids). Each mode
first runs once unkilled: the reference for how long its work takes and which records its results
files hold. Then episodes: a fresh run folder is started, killed (the signal drawn by lot) after a
random share of the work it has left, started again (a resume), killed again, ... until a run
finishes, and its results files are checked against the reference. The first kill of each mode
may land in the creation of its MLflow store. 50 kill points in all, half in each mode
(`--quick`: 5). Figures: resumes that succeed (bar 100%), records lost or duplicated (bar 0),
MLflow runs left RUNNING in the end (bar 0); SIGTERM's exit codes are shown (130: the Ctrl-C
path; one that came after the work, as the interpreter was exiting, says so).
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mlflow import MlflowClient

from fault_checks.figure import Figure
from optimize.eval.tracking import tracking_uri
from program.base.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SEED = 7
SIGNALS = (signal.SIGKILL, signal.SIGTERM)


@dataclass
class Tally:
    kills: int = 0
    sigterm_exits: Counter = field(default_factory=Counter)  # exit code (and whether the work was done) -> SIGTERMs
    resumes: int = 0
    resumed_ok: int = 0
    lost: int = 0
    duplicated: int = 0
    running: int = 0
    episodes: int = 0
    failures: list[str] = field(default_factory=list)


def run(quick: bool) -> list[Figure]:
    rng, points = random.Random(SEED), 5 if quick else 50
    with tempfile.TemporaryDirectory() as folder:
        modes = {"eval": points - points // 2, "optimize": points // 2}
        tallies = {mode: _campaign(mode, n, rng, Path(folder) / mode) for mode, n in modes.items()}
    return _figures(tallies)


def _figures(tallies: dict[str, Tally]) -> list[Figure]:
    total = lambda name: sum(getattr(t, name) for t in tallies.values())  # noqa: E731
    failures = [f"{mode}: {f}" for mode, t in tallies.items() for f in t.failures]
    per_mode = "; ".join(f"{mode} {t.kills} kills over {t.episodes} runs" for mode, t in tallies.items())
    exits = sum((t.sigterm_exits for t in tallies.values()), Counter())  # 130: the Ctrl-C path
    ok = not failures and total("resumed_ok") == total("resumes") > 0
    return [Figure("kills", f"{total('resumed_ok')}/{total('resumes')} resumes succeeded ({per_mode}; "
                            f"SIGTERM exit codes {dict(sorted(exits.items()))})"
                            + (f"; failures: {' | '.join(failures)[:300]}" if failures else ""), "100%", ok),
            Figure("kills", f"{total('lost')} records lost, {total('duplicated')} duplicated", "0",
                   total("lost") + total("duplicated") == 0 and not failures),
            Figure("kills", f"{total('running')} MLflow runs left RUNNING", "0", total("running") == 0)]


def _campaign(mode: str, points: int, rng: random.Random, root: Path) -> Tally:
    # subtle: the reference has a store of its own, so the first kill can also cut MLflow's store creation
    data, tally = root / "data", Tally()
    outcome, _, seconds = _start(mode, root / "reference", root / "reference-data", None, signal.SIGKILL)
    if outcome != "finished":
        tally.failures.append(f"the unkilled reference run {outcome}")
        return tally
    reference = _Reference(root / "reference", seconds)
    while tally.kills < points and not tally.failures:
        _episode(mode, root / f"run{tally.episodes}", data, reference, points, rng, tally)
        tally.episodes += 1
    tally.running = _running_runs(data)
    return tally


def _episode(mode, folder, data, reference, points, rng, tally: Tally) -> None:
    """Start, kill and resume one run folder until a run of it finishes; then check its records."""
    resumed = False
    while True:
        # the work left, judged by the progress (at least a tenth of it: a resumed run still writes its reports)
        left = reference.seconds * max(0.1, 1 - _progress(folder) / reference.progress)
        delay, sig = (rng.uniform(0, left) if tally.kills < points else None), rng.choice(SIGNALS)
        outcome, code, _ = _start(mode, folder, data, delay, sig)
        tally.resumes += resumed
        tally.resumed_ok += resumed and outcome != "crashed"
        if outcome == "crashed":
            tally.failures.append(f"{folder.name}: exit {code}")
            return
        if outcome == "finished":
            lost, duplicated = reference.compare(folder)
            tally.lost, tally.duplicated = tally.lost + lost, tally.duplicated + duplicated
            return
        tally.kills += 1
        if sig == signal.SIGTERM:
            tally.sigterm_exits[str(code) if outcome == "killed" else f"{code} after the work"] += 1
        resumed = True


def _start(mode: str, folder: Path, data: Path, kill_after: float | None, sig: int) -> tuple[str, int, float]:
    """Run the child once: ("killed", code) if `sig` was sent after `kill_after` s of work ("killed
    late" if its work was done, and it was exiting), else ("finished", 0) or ("crashed", code); and
    the seconds of work it did (its imports not counted)."""
    child = subprocess.Popen([sys.executable, "-m", "tests.reliability.kill_child", mode, str(folder), str(data)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    child.stdout.readline()  # "started": imports are done, the work begins
    started = time.monotonic()
    if kill_after is None:
        child.stdout.readline()  # "done": the work is over, the interpreter's exit is not work
        worked = time.monotonic() - started
        code = child.wait(timeout=600)
        return ("finished" if code == 0 else "crashed"), code, worked
    try:
        code = child.wait(timeout=kill_after)
    except subprocess.TimeoutExpired:
        child.send_signal(sig)
        code, seconds = child.wait(timeout=600), time.monotonic() - started
        return ("killed late" if b"done" in child.stdout.read() else "killed"), code, seconds
    return ("finished" if code == 0 else "crashed"), code, time.monotonic() - started


@dataclass
class _Reference:
    """An unkilled run: its work's duration, its progress when done, and the records of its results files."""
    folder: Path
    seconds: float

    def __post_init__(self):
        self.progress = _progress(self.folder)
        # subtle: the LM recordings the threshold replay reads are a cache keyed by prompt, not
        # records: a question cut mid-run is recorded again on resume, which costs nothing
        self.files = {p.relative_to(self.folder): _keys(p) for p in self.folder.rglob("*.jsonl")
                      if p.parent.name != "recordings"}

    def compare(self, folder: Path) -> tuple[int, int]:
        """Records of the reference missing from `folder`'s results files, and records written twice."""
        lost = duplicated = 0
        for relative, expected in self.files.items():
            found = _keys(folder / relative)
            duplicated += len(found) - len(set(found))
            lost += len(set(expected) - set(found))
        return lost, duplicated


def _keys(path: Path) -> list[tuple[str, str]]:
    """(system, qid) of each finished line of a results log, in order; a torn last line is not finished."""
    if not path.exists():
        return []
    keys = []
    for line in filter(None, path.read_bytes().split(b"\n")[:-1]):
        try:
            record = json.loads(line)
        except ValueError:  # a damaged line is dropped on resume: its record shows up as lost, if not re-run
            continue
        keys.append((record["system"], record["qid"]))
    return keys


def _progress(folder: Path) -> int:
    """Finished results lines and state files: how far a run folder has got."""
    if not folder.exists():
        return 0
    return sum(p.read_bytes().count(b"\n") for p in folder.rglob("*.jsonl")) + len(list(folder.rglob("*.json")))


def _running_runs(data: Path) -> int:
    client = MlflowClient(tracking_uri(Settings(_env_file=None, data_dir=data, mlflow_tracking_uri=None)))
    experiments = [e.experiment_id for e in client.search_experiments()]
    return len(client.search_runs(experiments, filter_string="attributes.status = 'RUNNING'")) if experiments else 0
