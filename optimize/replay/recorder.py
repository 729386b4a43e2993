"""Record what each LM call of a real run was asked and answered, for the replay.

A DSPy callback: after every LM call it appends one JSON line (the messages, the raw completion
and the call's prompt and completion tokens) to its JSONL file, redacted like the eval's
records. One LM serves one request at a time here, so the LM's last history entry is the call
that just ended. A torn last line (a kill mid-append) is skipped when read. This module records;
`optimize.replay.replay_lm` reads.
"""

from __future__ import annotations

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


class LMRecorder(BaseCallback):
    def __init__(self, path: Path):
        self.path = path
        self._started: dict[str, object] = {}
        self._lock = threading.Lock()

    def on_lm_start(self, call_id, instance, inputs):
        self._started[call_id] = instance

    def on_lm_end(self, call_id, outputs, exception=None):
        lm = self._started.pop(call_id, None)
        history = getattr(lm, "history", None)
        if exception is not None or not history or not outputs:
            return
        entry, usage = history[-1], history[-1].get("usage") or {}
        output = outputs[0]["text"] if isinstance(outputs[0], dict) else str(outputs[0])
        call = Call(messages=[{"role": m.get("role", ""), "content": str(m.get("content", ""))}
                              for m in entry.get("messages") or []], output=output,
                    prompt_tokens=usage.get("prompt_tokens") or usage.get("input_tokens") or 0,
                    completion_tokens=usage.get("completion_tokens") or usage.get("output_tokens") or 0)
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(redact(call.model_dump_json()) + "\n")


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
