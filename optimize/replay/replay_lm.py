"""A fake LM that answers each call as the recorded real run did.

A call asked exactly as recorded gets the recorded completion and token counts. A call the
recording lacks (other thresholds showed the LM other evidence) gets a stand-in: the completion
recorded for the same predictor (its system prompt) and the same question whose prompt shares
the most words with this one, that is, the verdict given on the closest evidence set, with its
citations renumbered to where the same passages stand in this prompt's evidence. Its prompt
tokens are estimated from its length. With no recording of that predictor for that question the
reply is empty, which the loop treats as an unreadable output, as it would a real one. How often
each case happens is counted, and the job measures the replay's fidelity against real runs
rather than assuming it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field

import dspy
from dspy.clients.engines.dummy_engine import AsyncDummyEngine, DummyEngine
from dspy.lm15 import Message, Response, TextPart, Usage
from dspy.utils.dummies import DummyLM

from optimize.replay.recorder import Call
from program.evidence import approx_tokens, terms

_QUESTION = re.compile(r"\[\[ ## question ## \]\]\n(.*?)(?:\n\n\[\[ ## |\n\nRespond with |\Z)", re.S)
_PASSAGE = re.compile(r"^\[(\d+)\] [^«\n]*«([^:\n]{1,300}):", re.M)  # an evidence line: its number and title
_CITE = re.compile(r"\[(\d+)\]")


@dataclass
class Recording:
    """The recorded calls, indexed for exact and closest look-ups."""
    exact: dict[str, Call] = field(default_factory=dict)
    by_question: dict[tuple[str, str], list[tuple[frozenset[str], Call]]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, calls: list[Call]) -> Recording:
        recording = cls()
        for call in calls:
            recording.exact.setdefault(_key(call.messages), call)
            recording.by_question[_asked(call.messages)].append((terms(_last_user(call.messages)), call))
        return recording

    def reply(self, messages: list[dict]) -> tuple[Call | None, str]:
        """The call to replay and how it was found: `exact`, `closest` or `missing`."""
        if (call := self.exact.get(_key(messages))) is not None:
            return call, "exact"
        candidates = self.by_question.get(_asked(messages))
        if not candidates:
            return None, "missing"
        words = terms(_last_user(messages))
        _, call = max(candidates, key=lambda c: len(c[0] & words) / (len(c[0] | words) or 1))
        return call, "closest"


class ReplayLM(DummyLM):
    def __init__(self, recording: Recording):
        super().__init__([], adapter=dspy.JSONAdapter())
        self.recording = recording
        self.found: dict[str, int] = defaultdict(int)
        self._engine_spec = _ReplayEngine(self)
        self._async_engine_spec = AsyncDummyEngine(self._engine_spec)


class _ReplayEngine(DummyEngine):
    def _complete_messages(self, messages):
        call, how = self.owner.recording.reply(messages)
        self.owner.found[how] += 1
        prompt = call.prompt_tokens if how == "exact" else sum(approx_tokens(m["content"]) for m in messages)
        completion = call.completion_tokens if call is not None else 0
        output = "" if call is None else call.output if how == "exact" else renumbered(call, messages)
        return Response(id=None, model="replay", message=Message.assistant([TextPart(output)]),
                        finish_reason="stop",
                        usage=Usage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion))


def renumbered(call: Call, messages: list[dict]) -> str:
    """The recorded output with each [n] pointing where its passage (by title) stands in `messages`' evidence."""
    before = {n: title for n, title in _PASSAGE.findall(_last_user(call.messages))}
    now = {title: n for n, title in reversed(_PASSAGE.findall(_last_user(messages)))}

    def moved(m: re.Match) -> str:
        title = before.get(m.group(1))
        return f"[{now[title]}]" if title in now else m.group()

    return _CITE.sub(moved, call.output)


def _key(messages: list[dict]) -> str:
    plain = [[m.get("role", ""), str(m.get("content", ""))] for m in messages]
    return hashlib.sha256(json.dumps(plain).encode()).hexdigest()


def _asked(messages: list[dict]) -> tuple[str, str]:
    """(the predictor's system prompt, the question it was asked)."""
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    found = _QUESTION.search(_last_user(messages))
    return hashlib.sha256(system.encode()).hexdigest(), found.group(1).strip() if found else ""


def _last_user(messages: list[dict]) -> str:
    return next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
