"""A fake LM that answers each call as the recorded real run did.

A call asked exactly as recorded gets the recorded completion and token counts; one the real run
had cut off at its time limit raises `DeadlineExceeded` again, so the question ends there as it did
(`cancelled`). A call the recording lacks (other thresholds showed the LM other evidence) gets a
stand-in: the completion recorded for the same predictor (its system prompt) and the same question
whose prompt shares the most words with this one, that is, the verdict given on the closest
evidence set, with its citations renumbered to where the same passages stand in this prompt's
evidence. Its prompt tokens are estimated from its length. With no recording of that predictor for
that question the reply is empty, which the loop treats as an unreadable output, as it would a real
one. How often each case happens is counted, and the job measures the replay's fidelity against
real runs rather than assuming it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

import dspy
from dspy.clients.engines.dummy_engine import AsyncDummyEngine, DummyEngine
from dspy.lm15 import Message, Response, TextPart, Usage
from dspy.utils.dummies import DummyLM

from optimize.replay.recorder import Call
from program.evidence import approx_tokens, terms
from program.lm.deadline import DeadlineExceeded

_QUESTION = re.compile(r"\[\[ ## question ## \]\]\n(.*?)(?:\n\n\[\[ ## |\n\nRespond with |\Z)", re.S)
_PASSAGE = re.compile(r"^\[(\d+)\] [^«\n]*«([^:\n]{1,300}):", re.M)  # an evidence line: its number and title
_CITE = re.compile(r"\[(\d+)\]")


STAND_INS = ("closest", "missing")  # how `Recording.reply` answers a call it has no record of


class Reply(NamedTuple):
    how: str  # exact, cancelled, or one of STAND_INS
    output: str
    prompt_tokens: int
    completion_tokens: int


def stood_in(found: dict[str, int]) -> float:
    """The share of the replies counted in `found` (how each was found) that were stand-ins."""
    return sum(found.get(how, 0) for how in STAND_INS) / (sum(found.values()) or 1)


@dataclass
class Recording:
    """The recorded calls, indexed for exact and closest look-ups."""
    exact: dict[str, Call] = field(default_factory=dict)
    by_question: dict[tuple[str, str], list[tuple[frozenset[str], Call]]] = field(default_factory=lambda: defaultdict(list))
    answers: dict[str, Reply] = field(default_factory=dict)  # each prompt's key to its reply, once found

    @classmethod
    def of(cls, calls: list[Call]) -> Recording:
        recording = cls()
        for call in calls:
            key = _key(call.messages)
            if key not in recording.exact or recording.exact[key].cancelled:  # an answer beats a cut-off
                recording.exact[key] = call
            if not call.cancelled:  # it said nothing to stand in with
                recording.by_question[_asked(call.messages)].append((terms(_last_user(call.messages)), call))
        return recording

    def answer(self, messages: list[dict]) -> Reply:
        """What the replay answers `messages`, found once per distinct prompt: a trial asks most
        prompts another trial asked already."""
        key = _key(messages)
        if key not in self.answers:
            call, how = self.reply(messages)
            as_recorded = how in ("exact", "cancelled")
            prompt = call.prompt_tokens if as_recorded else sum(approx_tokens(m["content"]) for m in messages)
            output = "" if call is None else call.output if as_recorded else renumbered(call, messages)
            self.answers[key] = Reply(how, output, prompt, call.completion_tokens if call is not None else 0)
        return self.answers[key]

    def reply(self, messages: list[dict]) -> tuple[Call | None, str]:
        """The call to replay and how it was found: `exact`, `cancelled`, `closest` or `missing`."""
        if (call := self.exact.get(_key(messages))) is not None:
            return call, "cancelled" if call.cancelled else "exact"
        candidates = self.by_question.get(_asked(messages))
        if not candidates:
            return None, "missing"
        words = terms(_last_user(messages))
        _, call = max(candidates, key=lambda c: len(c[0] & words) / (len(c[0] | words) or 1))
        return call, "closest"


_SYSTEM_MESSAGES: dict[tuple[type, type], str] = {}  # (adapter class, signature) -> its system message


def remembering(adapter) -> object:
    """A shallow copy of `adapter` that builds each signature's system message once, for every
    replay in the process: a replay formats the same few predictors' prompts thousands of times,
    and the system message, which depends on the adapter and the signature only, was most of it."""
    remembered, build = copy.copy(adapter), adapter.format_system_message

    def format_system_message(signature) -> str:
        key = (type(adapter), signature)
        if key not in _SYSTEM_MESSAGES:
            _SYSTEM_MESSAGES[key] = build(signature)
        return _SYSTEM_MESSAGES[key]

    remembered.format_system_message = format_system_message
    return remembered


class ReplayLM(DummyLM):
    def __init__(self, recording: Recording):
        super().__init__([], adapter=dspy.JSONAdapter())
        self.recording = recording
        self.found: dict[str, int] = defaultdict(int)
        self._engine_spec = _ReplayEngine(self)
        self._async_engine_spec = AsyncDummyEngine(self._engine_spec)

    def __call__(self, prompt=None, *, messages=None, **kwargs):
        self._stop_if_cut_off(messages)
        return super().__call__(prompt, messages=messages, **kwargs)

    async def acall(self, prompt=None, *, messages=None, **kwargs):
        self._stop_if_cut_off(messages)
        return await super().acall(prompt, messages=messages, **kwargs)

    def _stop_if_cut_off(self, messages: list[dict] | None) -> None:
        """The real run's deadline, where it struck: raised here, in front of DSPy's engine, which would
        wrap it as an unexpected LM error and end the loop as a crash instead of out of time."""
        if messages and self.recording.answer(messages).how == "cancelled":
            self.found["cancelled"] += 1
            raise DeadlineExceeded("the recorded run's call was cut off here at the question's time limit")


class _ReplayEngine(DummyEngine):
    def _complete_messages(self, messages):
        reply = self.owner.recording.answer(messages)
        self.owner.found[reply.how] += 1
        return Response(id=None, model="replay", message=Message.assistant([TextPart(reply.output)]),
                        finish_reason="stop", usage=Usage(input_tokens=reply.prompt_tokens,
                                                          output_tokens=reply.completion_tokens,
                                                          total_tokens=reply.prompt_tokens + reply.completion_tokens))


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
