"""The session store the settings name: in this process's memory (the default), or files under
`<data dir>/sessions` shared by processes (`GATEDRAG_SESSION_STORE=file`). It opens nothing else."""

from __future__ import annotations

from program.base.settings import Settings
from program.sessions.conversation import Sessions
from program.sessions.file_store import FileSessionStore
from program.sessions.memory_store import SessionStore


def open_sessions(settings: Settings) -> Sessions:
    if settings.session_store == "file":
        return FileSessionStore.from_settings(settings)
    return SessionStore.from_settings(settings)
