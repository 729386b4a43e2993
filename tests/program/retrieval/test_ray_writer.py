"""program/retrieval/ray_writer.py: ingest on a Ray actor pool writes what ingest in process writes.

The Ray tests start a local Ray (2 CPUs, on this machine) and stop it; they take half a minute, so
they are marked `ray` and run only when Ray is installed and GATEDRAG_TEST_RAY=1. The test of `--ray`
without Ray installed always runs.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from program.base.settings import Settings
from program.cli import main
from program.retrieval.edge_store import EdgeStore
from program.retrieval.ingest import ingest

PAGES = 300  # a page is one chunk: five batches, so an actor can die with batches still to come


@pytest.fixture
def corpus(tmp_path) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(PAGES):
        (root / f"page{i:03}.md").write_text(f"# Page {i}\n\nPage {i} says the widget{i} turns gear{i % 7}.\n")
    return root


def test_ray_without_ray_installed_ends_in_one_line_and_changes_nothing(corpus, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    assert main(["ingest", str(corpus), "--ray", "--data-dir", str(tmp_path / "data"), "--no-progress"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "error: ingest --ray needs Ray: pip install -e '.[scale]' (or pip install 'ray[data]')"
    assert not (tmp_path / "data").exists()


ray_only = pytest.mark.skipif(os.environ.get("GATEDRAG_TEST_RAY") != "1", reason="set GATEDRAG_TEST_RAY=1 to run")


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    # subtle: the workers must import this tree's `program`, not an installed one
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": str(Path(__file__).resolve().parents[3])}})
    yield ray
    ray.shutdown()


def in_process(corpus: Path, tmp_path: Path, name: str) -> dict[str, dict]:
    settings = Settings(_env_file=None, data_dir=tmp_path / name, collection="c")
    store = EdgeStore(tmp_path / name / "store")
    ingest([corpus], settings, store=store)
    return held(store)


def held(store) -> dict[str, dict]:
    return dict(store.payloads("c", ["doc_id", "text_hash", "text"]))


def on_ray(corpus: Path, store, tmp_path: Path, writer, **options):
    settings = Settings(_env_file=None, data_dir=tmp_path, collection="c")
    return ingest([corpus], settings, store=store, writer=writer, **options)


def actor_pids() -> list[int]:
    """The processes of the pool's actors (Linux: read from /proc)."""
    pids = []
    for folder in Path("/proc").glob("[0-9]*"):
        try:
            if b"MapWorker" in (folder / "cmdline").read_bytes():
                pids.append(int(folder.name))
        except OSError:
            continue
    return pids


class KillingAnActor:
    """A writer that kills one actor of the pool (SIGKILL) once the first batch is written."""

    def __init__(self, inner):
        self.inner, self.version, self.killed = inner, inner.version, []

    def __call__(self, store, collection, batches):
        for counts in self.inner(store, collection, batches):
            if not self.killed and (pids := actor_pids()):
                os.kill(pids[0], signal.SIGKILL)
                self.killed.append(pids[0])
            yield counts


@pytest.mark.ray
@ray_only
def test_two_actors_write_the_same_points_as_in_process_then_skip_and_prune_as_it_does(corpus, tmp_path, local_ray):
    from program.retrieval.ray_writer import RayWriter

    expected = in_process(corpus, tmp_path, "in_process")
    store = EdgeStore(tmp_path / "ray" / "store")
    report = on_ray(corpus, store, tmp_path / "ray", RayWriter(2, None), progress=False)
    assert report.embedded == PAGES and held(store) == expected
    (corpus / "page000.md").unlink()
    (corpus / "page001.md").write_bytes(b"\xff\xfe not UTF-8")
    again = on_ray(corpus, store, tmp_path / "ray", RayWriter(2, None), progress=False, prune=True)
    assert (again.embedded, again.deleted, len(again.errors)) == (0, 1, 1)  # the bad file is kept, not pruned
    assert set(held(store)) == set(expected) - {pid for pid, p in expected.items() if "widget0 " in p["text"]}


@pytest.mark.ray
@ray_only
def test_an_actor_killed_mid_run_loses_and_duplicates_no_chunk(corpus, tmp_path, local_ray):
    from program.retrieval.ray_writer import RayWriter

    expected = in_process(corpus, tmp_path, "in_process")
    store, writer = EdgeStore(tmp_path / "ray" / "store"), KillingAnActor(RayWriter(1, None))
    report = on_ray(corpus, store, tmp_path / "ray", writer, progress=False)
    assert writer.killed and report.errors == []
    assert held(store) == expected and store.count("c") == PAGES


@pytest.mark.ray
@ray_only
def test_an_ingest_killed_mid_run_resumes_without_duplicates(corpus, tmp_path, local_ray):
    from program.retrieval.ray_writer import RayWriter

    class Killed(Exception):
        pass

    def stopping_after_one_batch(store, collection, batches):
        for counts in RayWriter(2, None)(store, collection, batches):
            yield counts
            raise Killed  # the ingest dies with one batch written

    stopping_after_one_batch.version = RayWriter.version
    expected = in_process(corpus, tmp_path, "in_process")
    store = EdgeStore(tmp_path / "ray" / "store")
    with pytest.raises(Killed):
        on_ray(corpus, store, tmp_path / "ray", stopping_after_one_batch, progress=False)
    written = store.count("c")
    resumed = on_ray(corpus, store, tmp_path / "ray", RayWriter(2, None), progress=False)
    assert 0 < written < PAGES and resumed.embedded == PAGES - written
    assert held(store) == expected and store.count("c") == PAGES
