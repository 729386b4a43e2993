"""Sessions in files, one JSON file per session under `<data dir>/sessions/`: what `python -m program
ask --session ID` uses, so a shell loop of separate processes keeps one conversation.

The same rules as the memory store: at most `turns` turns, forgotten after `idle_s` seconds without
a new turn (the file is deleted when read expired), and at most `max_sessions` files, the least
recently written deleted first (by file time, set from the store's clock). A record reads, adds
and writes under a lock file of its session (`filelock`), so writers in other threads and
processes never lose each other's turns; each write goes to a temporary file of its own and is
renamed, so a reader never sees half of one. A file that does not parse reads as an empty session
(with a lock held by every writer, only a hand edit can leave one). This module keeps no state in memory.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

from filelock import FileLock

from program.sessions.conversation import Conversation, Turn, check_session_id, recent
from program.sessions.memory_store import Clock

SUFFIX = ".json"
LOCK = ".lock"  # beside each session file: `.ID.json.lock`


class FileSessionStore:
    def __init__(self, folder: Path, turns: int = 5, idle_s: float = 600.0, max_sessions: int = 1000,
                 clock: Clock = time.time):
        self.folder, self.turns, self.idle_s, self.max_sessions, self.clock = folder, turns, idle_s, max_sessions, clock

    @classmethod
    def from_settings(cls, settings) -> FileSessionStore:
        return cls(settings.sessions_path, settings.session_turns, settings.session_idle_s, settings.session_max)

    def recall(self, session_id: str) -> Conversation:
        path, now = self._path(session_id), self.clock()
        stored = _read(path)
        turns = recent(stored, now, self.turns, self.idle_s)
        if stored and not turns:
            path.unlink(missing_ok=True)  # expired: forgotten now, not at the next turn
        return Conversation(tuple(turns), now - turns[-1].at if turns else 0.0)

    def record(self, session_id: str, turn: Turn) -> None:
        path = self._path(session_id)
        self.folder.mkdir(parents=True, exist_ok=True)
        # subtle: read, add and write are one step: 6 threads x 150 records without the lock left 13 of 900 turns
        with FileLock(path.with_name(f".{path.name}{LOCK}")):
            now = self.clock()
            kept = recent(_read(path), now, self.turns - 1, self.idle_s)
            _write(path, [*kept, turn.model_copy(update={"at": now})])
            os.utime(path, (now, now))  # subtle: eviction reads the store's clock, as expiry does
        self._evict()

    def _path(self, session_id: str) -> Path:
        return self.folder / f"{check_session_id(session_id)}{SUFFIX}"

    def _evict(self) -> None:
        files = sorted(self.folder.glob(f"*{SUFFIX}"), key=_mtime)
        for old in files[:max(0, len(files) - self.max_sessions)]:
            old.unlink(missing_ok=True)
            old.with_name(f".{old.name}{LOCK}").unlink(missing_ok=True)  # the least recently written: no writer now

    def __deepcopy__(self, memo) -> FileSessionStore:
        return self


def _write(path: Path, turns: list[Turn]) -> None:
    """A temporary file of this write's own (per process and thread), renamed over the session's."""
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False,
                                     encoding="utf-8") as tmp:
        tmp.write(json.dumps([t.model_dump() for t in turns]))
    os.replace(tmp.name, path)


def _read(path: Path) -> list[Turn]:
    try:
        return [Turn.model_validate(t) for t in json.loads(path.read_text(encoding="utf-8"))]
    except OSError:  # none yet, or unreadable: the session starts afresh, and a failed write says so
        return []
    except (ValueError, TypeError):  # torn or hand-edited (a ValidationError is a ValueError): start afresh
        return []


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:  # deleted by another process since the listing
        return 0.0
