"""program/serving/safe_json.py: what UTF-8 and JSON cannot carry is replaced, and errors drop their input."""

import json

from program.serving.safe_json import SafeJSONResponse, public_error, scrub


def test_scrub_replaces_lone_surrogates_and_non_finite_floats_everywhere():
    odd = {"k\ud800": ["\udfff", float("inf"), (float("nan"), 1.5)], 2: "fine ✓"}
    assert scrub(odd) == {"k\ufffd": ["\ufffd", None, [None, 1.5]], 2: "fine ✓"}


def test_a_response_encodes_plain_content_unchanged_and_odd_content_safely():
    assert json.loads(SafeJSONResponse({"a": "é ✓", "n": 1.5}).body) == {"a": "é ✓", "n": 1.5}
    assert json.loads(SafeJSONResponse({"a": "x\ud800", "n": float("-inf")}).body) == {"a": "x\ufffd", "n": None}


def test_a_validation_error_keeps_its_place_and_message_but_not_the_input():
    error = {"type": "string_too_long", "loc": ("body", "question"), "msg": "String should have at most 2000 characters",
             "input": "secret\ud800" * 300, "ctx": {"max_length": 2000, "error": ValueError("bad")}}
    assert public_error(error) == {"type": "string_too_long", "loc": ["body", "question"],
                                   "msg": "String should have at most 2000 characters",
                                   "ctx": {"max_length": 2000, "error": "bad"}}
