"""program/base/errors.py: how an error reads when a command line prints it."""

from __future__ import annotations

import argparse

import pytest
from pydantic import BaseModel, Field, ValidationError

from program.base.command_line import run_command
from program.base.errors import first_problem, one_line


class Budget(BaseModel):
    max_iterations: int = Field(ge=1)
    name: str


def problem(**values) -> ValidationError:
    with pytest.raises(ValidationError) as error:
        Budget(**values)
    return error.value


def test_a_validation_error_names_its_first_field_and_never_the_input():
    assert first_problem(problem(max_iterations=-5, name="x")) == "max_iterations: input should be greater than or equal to 1"
    assert first_problem(problem(max_iterations="sk-secret")).endswith("(and 1 more)")
    assert "sk-secret" not in one_line(problem(max_iterations="sk-secret"))
    assert first_problem(problem(max_iterations=1)) == "name: missing"


@pytest.mark.parametrize("error, code, says", [
    (TimeoutError("llama.cpp server at http://127.0.0.1:5 not healthy after 120s"), 1, "not healthy after 120s"),
    (PermissionError(13, "Permission denied", "/data/q.jsonl"), 1, "Permission denied: '/data/q.jsonl'"),
    (ValueError("first line\n  second line"), 1, "error: first line second line"),
])
def test_the_command_line_prints_each_as_one_line_and_exits_1(capsys, restore_logging, error, code, says):
    def fail(args):
        raise error

    assert run_command(argparse.Namespace(run=fail)) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and says in err
