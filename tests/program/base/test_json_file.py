"""program/base/json_file.py: JSON a user gave, with the file and the line in every error."""

from __future__ import annotations

import pytest

from program.base.json_file import MAX_DEPTH, parse_json, read_json, too_deep


class Refused(ValueError):
    pass


@pytest.mark.parametrize("data, says", [
    (b'{\n  "a": 1,\n  "b": \n}', "f.json line 4: not JSON: Expecting value (column 1)"),
    (b'{\n  "a": "\xff"\n}', "f.json line 2: not UTF-8 (byte 0xff)"),
    (b'{\n "a": ' + b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1) + b"}", f"f.json line 2: nested deeper than {MAX_DEPTH}"),
])
def test_each_failure_names_the_file_and_the_line(data, says):
    with pytest.raises(Refused) as error:
        parse_json(data, "f.json", Refused)
    assert str(error.value).startswith(says)


def test_a_line_of_a_jsonl_file_counts_from_its_own_line_number():
    with pytest.raises(Refused, match="q.jsonl line 7: not JSON"):
        parse_json(b'{"question": ', "q.jsonl", Refused, first_line=7)


def test_brackets_inside_strings_do_not_count_and_deep_enough_data_loads():
    assert too_deep('{"a": "' + "[" * 500 + '"}') is None
    nested = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert parse_json(nested.encode(), "f.json", Refused) is not None
    assert too_deep("[" + nested + "]") == 1


def test_a_file_that_cannot_be_read_is_named(tmp_path):
    with pytest.raises(Refused, match=f"{tmp_path / 'none.json'}: cannot be read: No such file"):
        read_json(tmp_path / "none.json", Refused)
