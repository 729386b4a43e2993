"""SIGTERM ends an eval or optimize run the way Ctrl-C does.

A supervisor (systemd, Docker, Kubernetes, a job scheduler) stops a process with SIGTERM, whose
default action kills it at once: the MLflow run is left RUNNING and nothing says how to resume.
`interrupt_on_sigterm()` turns SIGTERM into `KeyboardInterrupt` in the main thread, so the run
takes the Ctrl-C path: the MLflow run ends KILLED and the command prints how to resume.
This module does not handle SIGKILL (nothing can); the durable files make that resumable.
"""

from __future__ import annotations

import signal


def interrupt_on_sigterm() -> None:
    """From now on, the first SIGTERM raises KeyboardInterrupt in the main thread. Call from the main thread."""
    signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum, frame) -> None:
    # subtle: supervisors often repeat SIGTERM; a second one must not cut short the cleanup the
    # first started (marking the MLflow run KILLED), so later ones are ignored. SIGKILL still ends it.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt("SIGTERM")
