"""Hostile `/answer` bodies, seeded: the named odd ones, bodies built from the request model's JSON Schema,
and byte-level mutations of those. Shared by tests/reliability/test_http.py and bench/fault_checks/fuzz.py.

`schema_body` fills each property of `AnswerRequest`'s schema with a valid value for its type, a
value just past one of its bounds, or an odd value (lone surrogates, NUL, infinities, deep lists);
`mutate` then flips, inserts (NUL, invalid UTF-8, escaped surrogates, brackets), cuts, truncates,
nests the body thousands deep or pads it across the 64 KiB cap. Not a test module.
"""

from __future__ import annotations

import json
import random

from program.serving.answerer import AnswerRequest
from tests.program.fake_engine import QUESTION


def body_of(size: int) -> str:
    """A valid-JSON /answer body of exactly `size` bytes (its known_context too long)."""
    empty = json.dumps({"question": QUESTION, "known_context": ""})
    return json.dumps({"question": QUESTION, "known_context": "k" * (size - len(empty))})


ODD_BODIES = {
    "lone surrogate": ('{"question": "\\ud800"}', 422),
    "lone surrogate, reversed pair": ('{"question": "\\udc00\\ud800"}', 422),
    "lone surrogate in an unknown key": ('{"question": "q", "\\ud800": 1}', 422),
    "lone surrogate in an unknown field": ('{"question": "q", "x": "\\udfff"}', 422),
    "lone surrogate in a hint": ('{"question": "q", "constraints": "\\ud800"}', 422),
    "raw NUL": (b'{"question": "a\x00b"}', 422),
    "infinity": ('{"question": 1e999}', 422),
    "NaN in an unknown field": ('{"question": "q", "x": NaN}', 422),
    "a 5000-digit integer": ('{"question": "q", "expansion_budget": ' + "9" * 5000 + "}", 400),
    "invalid UTF-8": (b'{"question": "\xff\xfe"}', 400),
    "CESU-8 surrogate bytes": (b'{"question": "\xed\xa0\x80"}', 422),
    "nested past the parser": ('{"question": ' + "[" * 20_000 + "]" * 20_000 + "}", 400),
    "nested in an unknown field": ('{"question": "q", "x": ' + "[" * 900 + "]" * 900 + "}", 422),
    "nested past the body cap": ("[" * 70_000 + "]" * 70_000, 413),
    "a bad collection name": ('{"question": "q", "collection": "../../etc"}', 422),
    "64 KiB - 1": (body_of(64 * 1024 - 1), 422),
    "64 KiB": (body_of(64 * 1024), 422),
    "64 KiB + 1": (body_of(64 * 1024 + 1), 413),
}

ODD_STRINGS = ["", " ", "\ud800", "\udfff\ud800", "a\x00b", "é ✓ 😀", "\u202e", "null", "../x", "hotpotqa"]
ODD_VALUES = [None, True, -1, 0, 3, 11, 2**70, 1.5, float("inf"), float("nan"), [], {}, [[["deep"]]], {"a": {"b": 1}}]
INSERTS = [b"\x00", b"\xff", b"\xed\xa0\x80", b"\\ud800", b'"', b"\\", b"{", b"]", b",", b"[" * 500, b"1e999"]
PROPERTIES = AnswerRequest.model_json_schema()["properties"]


def schema_body(rng: random.Random) -> bytes:
    """A body with some of the request's properties (and maybe one unknown), each valid, off by one, or odd."""
    body = {"question": QUESTION} if rng.random() < 0.7 else {}
    for name in rng.sample([*PROPERTIES, "x"], rng.randint(0, 3)):
        kind = rng.random()
        if name == "x" or kind < 0.3:
            body[name] = rng.choice(ODD_STRINGS + ODD_VALUES)
        else:
            body[name] = _typed(rng, PROPERTIES[name], past_a_bound=kind < 0.5)
    return json.dumps(body).encode()  # ensure_ascii: a lone surrogate goes as its \u escape


def _typed(rng: random.Random, schema: dict, past_a_bound: bool):
    """A value of the schema's (first non-null) type: within its bounds, or just past one of them."""
    schema = next((s for s in schema.get("anyOf", [schema]) if s.get("type") != "null"), schema)
    if "enum" in schema:
        return rng.choice(schema["enum"]) if not past_a_bound else rng.choice(schema["enum"]).upper()
    if schema.get("type") == "integer":
        low, high = schema.get("minimum", -5), schema.get("maximum", 5)
        return rng.choice([low - 1, high + 1]) if past_a_bound else rng.randint(low, high)
    if schema.get("type") == "boolean":
        return rng.random() < 0.5 if not past_a_bound else rng.choice(["true", 1])
    longest = schema.get("maxLength", 100)
    return "q" * (longest + 1) if past_a_bound else QUESTION[:rng.randint(1, min(longest, len(QUESTION)))]


def mutate(rng: random.Random, body: bytes) -> bytes:
    """One byte-level mutation: a flip, an insertion, a cut, a truncation, deep wrapping or padding."""
    at = rng.randrange(len(body) + 1)
    match rng.randrange(6):
        case 0 if body:
            return body[:at - 1] + bytes([rng.randrange(256)]) + body[at:] if at else body
        case 1:
            return body[:at] + rng.choice(INSERTS) + body[at:]
        case 2:
            return body[:at] + body[at + rng.randint(1, 20):]
        case 3:
            return body[:at]
        case 4:
            depth = rng.choice([10, 900, 5000])
            return b"[" * depth + body + b"]" * depth
        case _:
            return body[:-1] + b', "known_context": "' + b"k" * rng.randint(60_000, 70_000) + b'"}'


def fuzzed(rng: random.Random, n: int) -> list[bytes]:
    """`n` bodies: schema bodies, 60% of them then mutated."""
    bodies = [schema_body(rng) for _ in range(n)]
    return [mutate(rng, b) if rng.random() < 0.6 else b for b in bodies]


def chunks(body: bytes, size: int = 8192):
    """The body as a generator of `size`-byte pieces: httpx sends it with chunked transfer encoding."""
    return (body[i:i + size] for i in range(0, max(len(body), 1), size))
