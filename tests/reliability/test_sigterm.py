"""SIGTERM ends a run like Ctrl-C: a real subprocess running a tiny eval is sent SIGTERM mid-question,
and its MLflow run must end KILLED (not RUNNING), with the finished question kept for the resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mlflow import MlflowClient

from optimize.eval.records import RecordLog
from optimize.eval.tracking import RUN_ID_FILE, tracking_uri
from optimize.sigterm import interrupt_on_sigterm
from program.base.command_line import INTERRUPTED

ROOT = Path(__file__).resolve().parents[2]


def wait_for(condition, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "the child never got there"
        time.sleep(0.05)


def test_sigterm_mid_eval_ends_the_mlflow_run_killed_and_keeps_the_finished_question(settings, tmp_path):
    folder = tmp_path / "run"
    errors = tmp_path / "stderr.txt"  # a file, not a pipe: a full pipe nobody reads would block the child
    with errors.open("wb") as stderr:
        child = subprocess.Popen([sys.executable, "-m", "tests.reliability.eval_child", str(folder), str(settings.data_dir)],
                                 cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        # q1 is in the log and the run id written: the child is now inside q2's minute-long sleep
        wait_for(lambda: (folder / RUN_ID_FILE).exists() and len(RecordLog(folder / "results.jsonl").read()) == 1, 90)
        child.send_signal(signal.SIGTERM)
        code = child.wait(timeout=60)  # generous bounds: a loaded 2-core machine imports slowly
    finally:
        child.kill()
    assert code == INTERRUPTED, errors.read_text()
    run = MlflowClient(tracking_uri(settings)).get_run((folder / RUN_ID_FILE).read_text())
    assert run.info.status == "KILLED"
    assert [r.qid for r in RecordLog(folder / "results.jsonl").read()] == ["q1"]


@pytest.fixture
def restored_handlers():
    before, hook = signal.getsignal(signal.SIGTERM), sys.unraisablehook
    yield
    signal.signal(signal.SIGTERM, before)
    sys.unraisablehook = hook


def test_the_first_sigterm_interrupts_and_a_second_is_ignored(restored_handlers):
    interrupt_on_sigterm()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # the handler runs between bytecodes; this sleep is where it raises
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN  # cleanup cannot be cut short by a repeat


class StoppedWhileFinalized:
    """Receives SIGTERM inside its finalizer, as a run did inside SQLAlchemy's weakref callbacks."""

    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        sum(range(1000))  # the handler runs here, and Python drops its raise


def test_a_sigterm_whose_interrupt_a_finalizer_dropped_is_delivered_again(restored_handlers):
    interrupt_on_sigterm()
    with pytest.raises(KeyboardInterrupt):
        StoppedWhileFinalized()  # finalized at once
        time.sleep(1)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
