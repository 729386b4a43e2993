"""Sessions in this process's memory: the server's store, and a program's default.

At most `turns` turns a session, forgotten after `idle_s` seconds without a new turn, and at
most `max_sessions` sessions: past it the least recently used is dropped, so memory stays
bounded however many ids callers invent. Thread-safe. A deep copy (optimizers copy programs)
shares the store, as it shares the search. This module does not write files; see
`program.sessions.file_store`.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Callable

from program.sessions.conversation import Conversation, Turn, check_session_id, recent

Clock = Callable[[], float]


class SessionStore:
    def __init__(self, turns: int = 5, idle_s: float = 600.0, max_sessions: int = 1000, clock: Clock = time.time):
        self.turns, self.idle_s, self.max_sessions, self.clock = turns, idle_s, max_sessions, clock
        self._sessions: OrderedDict[str, list[Turn]] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings) -> SessionStore:
        return cls(settings.session_turns, settings.session_idle_s, settings.session_max)

    def recall(self, session_id: str) -> Conversation:
        check_session_id(session_id)
        now = self.clock()
        with self._lock:
            turns = recent(self._sessions.get(session_id, []), now, self.turns, self.idle_s)
            if not turns:
                self._sessions.pop(session_id, None)  # expired: forgotten now, not at the next turn
        return Conversation(tuple(turns), now - turns[-1].at if turns else 0.0)

    def record(self, session_id: str, turn: Turn) -> None:
        check_session_id(session_id)
        now = self.clock()
        with self._lock:
            kept = recent(self._sessions.pop(session_id, []), now, self.turns - 1, self.idle_s)
            self._sessions[session_id] = [*kept, turn.model_copy(update={"at": now})]  # last: most recently used
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)

    def __len__(self) -> int:
        return len(self._sessions)

    def __deepcopy__(self, memo) -> SessionStore:
        return self
