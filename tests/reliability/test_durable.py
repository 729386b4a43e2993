"""State files survive failures: an atomic write that fails midway, or is killed, leaves the old
file whole; a state file cut short (by an older version's in-place write) resumes instead of failing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from optimize.durable import read_state, replacing, write_atomic
from optimize.job.budget import SpendingGuard
from optimize.job.config import Caps
from optimize.job.job import STATE, JobState

ROOT = Path(__file__).resolve().parents[2]
OLD = '{"done": ["prompts"]}'


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temp(tmp_path):
    path = tmp_path / STATE
    path.write_text(OLD)
    with pytest.raises(RuntimeError), replacing(path) as tmp:
        tmp.write_text('{"done": ["prompts", "thr')
        raise RuntimeError("killed mid-write")
    assert path.read_text() == OLD
    assert [p.name for p in tmp_path.iterdir()] == [STATE]


def test_a_write_whose_fsync_fails_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / STATE
    path.write_text(OLD)

    def disk_error(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", disk_error)
    with pytest.raises(OSError):
        write_atomic(path, '{"done": ["prompts", "thresholds"]}')
    assert path.read_text() == OLD
    assert [p.name for p in tmp_path.iterdir()] == [STATE]


def test_a_write_that_succeeds_replaces_the_file_whole(tmp_path):
    path = tmp_path / STATE
    path.write_text(OLD)
    write_atomic(path, '{"done": ["prompts", "thresholds"]}')
    assert JobState.read(tmp_path).done == ["prompts", "thresholds"]
    assert [p.name for p in tmp_path.iterdir()] == [STATE]


def test_an_atomic_write_gives_the_file_the_usual_permissions(tmp_path):
    (tmp_path / "plain.json").write_text("{}")
    write_atomic(tmp_path / "atomic.json", "{}")
    assert (tmp_path / "atomic.json").stat().st_mode == (tmp_path / "plain.json").stat().st_mode


# rewrites the file with two versions of very different sizes, as fast as it can, until killed
WRITER = """
import sys
from pathlib import Path
from optimize.durable import write_atomic
path, n = Path(sys.argv[1]), 0
print("ready", flush=True)
while True:
    n += 1
    write_atomic(path, '{"n": %d, "pad": "%s"}' % (n, "x" * (n % 2) * 200_000))
"""


@pytest.mark.parametrize("after_s", [0.05, 0.2, 0.5])
def test_sigkill_during_a_stream_of_atomic_writes_leaves_a_whole_file(tmp_path, after_s):
    path = tmp_path / "state.json"
    write_atomic(path, '{"n": 0, "pad": ""}')
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], cwd=ROOT, stdout=subprocess.PIPE)
    assert child.stdout.readline() == b"ready\n"
    time.sleep(after_s)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=5)
    state = json.loads(path.read_text())  # a torn file would not parse, or its pad would not match its n
    assert len(state["pad"]) == (state["n"] % 2) * 200_000


def test_a_truncated_job_state_resumes_as_nothing_done_and_says_so(tmp_path, capsys):
    (tmp_path / STATE).write_text('{"done": ["prompts", "thre')  # an in-place write cut by a kill
    state = JobState.read(tmp_path)
    assert state.done == []
    assert f"{tmp_path / STATE} is unreadable" in capsys.readouterr().err
    state.finish("prompts", tmp_path)
    assert JobState.read(tmp_path).done == ["prompts"]


def test_a_truncated_spending_ledger_counts_from_zero_and_says_so(tmp_path, capsys):
    ledger = tmp_path / "spent.json"
    ledger.write_text('{"calls": 41, "prompt_tok')
    assert SpendingGuard(Caps(), "dummy", ledger=ledger).calls == 0
    assert "spent.json is unreadable" in capsys.readouterr().err


def test_read_state_of_a_missing_file_is_none_and_silent(tmp_path, capsys):
    assert read_state(tmp_path / STATE, JobState) is None
    assert capsys.readouterr().err == ""
