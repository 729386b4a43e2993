"""One session's recent turns as the loop reads them: each turn's question, its standalone form,
short answer and topics, and the rules every store keeps (at most N turns, forgotten after an idle spell).

`Conversation` is a snapshot: the stores hand one out and take `Turn`s back. Topics are what a turn's
standalone question asks about ("What is St. Jude Medical?": "St. Jude Medical") and the named
entities of the question and its short answer (`program.decomposition.named_entities`).
Session ids are checked here, once for every surface: they name files in the file store.
This module stores nothing and decides nothing about follow-ups (`program.sessions.follow_up` does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, Field

from program.decomposition import named_entities

SESSION_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
MAX_TOPICS = 4  # names shown to the rewrite, latest first: each costs prompt tokens
TRANSCRIPT_TURNS = 2  # earlier turns shown to the rewrite
# "What is X?", "Who was X?" of a name X: X whole, where the entity finder would split "St. Jude Medical"
# subtle: the subject's trailing spaces and "?"s are stripped in code: a lazy `([^?]*?)\s*\?*\s*$`
# backtracked cubically ("What is A", 1,990 spaces, "x": 13.5 s, and /healthz waited behind it)
_DEFINITION = re.compile(r"\s*(?i:who|what)\s+(?i:is|are|was|were)\s+(?:(?i:the)\s+)?([A-Z0-9][^?]*)\??")


def check_session_id(session_id: str) -> str:
    if not re.fullmatch(SESSION_ID, session_id):
        raise ValueError(f"session id {session_id[:80]!r}: use 1 to 64 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit")
    return session_id


class Turn(BaseModel):
    question: str = Field(description="as asked")
    standalone: str = Field(description="the question the loop answered: the rewrite of a follow-up, else as asked")
    short_answer: str = ""
    topics: list[str] = Field([], description="what the standalone question asks about, then its answer's names")
    at: float = Field(0.0, description="when it was recorded, seconds since the epoch (the store's clock)")

    @classmethod
    def of(cls, question: str, standalone: str, short_answer: str) -> Turn:
        subject = [m.group(1).rstrip()] if (m := _DEFINITION.fullmatch(standalone.rstrip(" ?\t\n"))) else []
        names = [n for n in named_entities(standalone) if not any(n in s for s in subject)]
        topics = list(dict.fromkeys(subject + names + named_entities(short_answer)))
        return cls(question=question, standalone=standalone, short_answer=short_answer, topics=topics)


@dataclass(frozen=True)
class Conversation:
    turns: tuple[Turn, ...] = ()  # oldest first
    idle_s: float = 0.0  # seconds since the last turn

    def topics(self) -> list[str]:
        """The names the conversation is about, the latest turn's first."""
        names = [t for turn in reversed(self.turns) for t in turn.topics]
        return list(dict.fromkeys(names))[:MAX_TOPICS]

    def main_entity(self) -> str:
        """What a pronoun most likely points to: the last question's first topic, else its answer's."""
        # subtle: the question's topic first: after "What is Carrefour?" the answer's first name
        # may be "French", while "it" is what was asked about
        return self.turns[-1].topics[0] if self.turns and self.turns[-1].topics else ""

    def transcript(self) -> str:
        lines = [f"Q: {t.standalone}\nA: {t.short_answer or '(no answer)'}" for t in self.turns[-TRANSCRIPT_TURNS:]]
        return "\n".join(lines)


def recent(turns: list[Turn], now: float, keep: int, idle_s: float) -> list[Turn]:
    """The turns a session still holds: none once it sat idle past `idle_s`, else the last `keep`."""
    if not turns or now - turns[-1].at > idle_s:
        return []
    return turns[-keep:]


class Sessions(Protocol):
    """A session store: `program.sessions.memory_store` or `program.sessions.file_store`."""

    def recall(self, session_id: str) -> Conversation: ...

    def record(self, session_id: str, turn: Turn) -> None: ...
