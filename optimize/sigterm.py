"""SIGTERM ends an eval or optimize run the way Ctrl-C does.

A supervisor (systemd, Docker, Kubernetes, a job scheduler) stops a process with SIGTERM, whose
default action kills it at once: the MLflow run is left RUNNING and nothing says how to resume.
`interrupt_on_sigterm()` turns SIGTERM into `KeyboardInterrupt` in the main thread, so the run
takes the Ctrl-C path: the MLflow run ends KILLED and the command prints how to resume.
This module does not handle SIGKILL (nothing can); the durable files make that resumable.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading

REDELIVER_S = 0.05  # long enough for the finalizer that dropped the interrupt to have returned


class Terminated(KeyboardInterrupt):
    """The KeyboardInterrupt a SIGTERM raises."""


def interrupt_on_sigterm() -> None:
    """From now on, the first SIGTERM raises KeyboardInterrupt in the main thread. Call from the main thread."""
    signal.signal(signal.SIGTERM, _interrupt)
    sys.unraisablehook = _redelivering(sys.unraisablehook)


def _interrupt(signum, frame) -> None:
    # subtle: supervisors often repeat SIGTERM; a second one must not cut short the cleanup the
    # first started (marking the MLflow run KILLED), so later ones are ignored. SIGKILL still ends it.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated("SIGTERM")


def _redelivering(previous):
    """An unraisable hook that delivers a dropped SIGTERM interrupt again and passes on the rest.

    subtle: a signal handler runs wherever the main thread is; when that is a finalizer or a weakref
    callback (SQLAlchemy's run during garbage collection), Python prints the raise and drops it, and
    with later SIGTERMs ignored the run went on as if never stopped. It is sent again from another
    thread a moment later, once the finalizer has returned (a raise inside this hook would be dropped too)."""
    def hook(unraisable) -> None:
        if not isinstance(unraisable.exc_value, Terminated):
            previous(unraisable)
            return
        signal.signal(signal.SIGTERM, _interrupt)
        threading.Timer(REDELIVER_S, _thread.interrupt_main, args=(signal.SIGTERM,)).start()
    return hook
