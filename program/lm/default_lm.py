"""The LM a program falls back to when none is configured: the settings' profile, started once.

A program loaded on its own (by `mlflow.dspy.load_model`, or pickled into an MLflow model)
carries no LM: a saved LM would hold an API key or the address of a llama.cpp server that is
gone. Such a program asks here on its first call, and the LM lives until the process exits.
"""

from __future__ import annotations

import atexit
import threading

import dspy

from program.base.settings import Settings
from program.lm.lm_profiles import build_lm

_lock = threading.Lock()
_handle = None


def default_lm(settings: Settings) -> dspy.BaseLM:
    """The LM of `settings`' profile, started on the first call; later calls share it."""
    global _handle
    with _lock:
        if _handle is None:
            _handle = build_lm(settings)
            atexit.register(_handle.close)
        return _handle.lm
