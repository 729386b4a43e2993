"""Record what each LM call of a real run was asked and answered, for the replay.

A DSPy callback: after every LM call it appends one JSON line (the messages, the raw completion and
the call's prompt and completion tokens) to its JSONL file, redacted like the eval's records. A
call cancelled at the question's time limit is recorded too, with no output: replayed, it ends the
question at the same point, as the real run ended (an eval's real runs have a time limit;
unrecorded, such a question replayed on past it and took other actions). One LM serves one request
at a time here, so the LM's last history entry is the call that just ended. A torn last line (a
kill mid-append) is skipped when read. This module records; `optimize.replay.replay_lm` reads.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

from dspy.utils.callback import BaseCallback
from pydantic import BaseModel, ValidationError

from program.base.redaction import redact


class Call(BaseModel):
    messages: list[dict[str, str]]
    output: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cancelled: bool = False  # cut off at the question's time limit: it never answered


class LMRecorder(BaseCallback):
    def __init__(self, path: Path):
        self.path = path
        self._started: dict[str, tuple[object, list]] = {}
        self._lock = threading.Lock()

    def on_lm_start(self, call_id, instance, inputs):
        self._started[call_id] = instance, inputs.get("messages") or []

    def on_lm_end(self, call_id, outputs, exception=None):
        lm, asked = self._started.pop(call_id, (None, []))
        if isinstance(exception, asyncio.CancelledError):  # the deadline cancels the call's task
            self._write(Call(messages=_plain(asked), output="", cancelled=True))
            return
        history = getattr(lm, "history", None)
        if exception is not None or not history or not outputs:
            return
        entry, usage = history[-1], history[-1].get("usage") or {}
        output = outputs[0]["text"] if isinstance(outputs[0], dict) else str(outputs[0])
        self._write(Call(messages=_plain(entry.get("messages") or []), output=output,
                         prompt_tokens=usage.get("prompt_tokens") or usage.get("input_tokens") or 0,
                         completion_tokens=usage.get("completion_tokens") or usage.get("output_tokens") or 0))

    def _write(self, call: Call) -> None:
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(redact(call.model_dump_json()) + "\n")


def _plain(messages: list) -> list[dict[str, str]]:
    return [{"role": m.get("role", ""), "content": str(m.get("content", ""))} for m in messages]


def read_calls(path: Path) -> list[Call]:
    calls = []
    if not path.exists():
        return calls
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            calls.append(Call.model_validate_json(line))
        except (ValidationError, json.JSONDecodeError):
            continue  # a torn last line
    return calls
