"""Finding an answer's fenced code blocks and parsing each for its language."""

import pytest

from program.answer.code_check import (
    check_block,
    check_code,
    find_blocks,
    replace_block,
    strip_fence,
)

VALID_PY = "import math\nprint(math.pi)"
BROKEN_PY = "def area(r):\n    return 3.14 * r **\n"
BROKEN_JSON = '{\n  "a": 1,\n}'


def fenced(tag: str, code: str) -> str:
    return f"```{tag}\n{code}\n```"


def test_valid_python_parses_and_a_syntax_error_gives_its_line():
    checks = check_code(f"Use it:\n{fenced('python', VALID_PY)}\nThen:\n{fenced('py', BROKEN_PY)}")
    assert [(c.block, c.language, c.status) for c in checks] == [(1, "python", "valid"), (2, "python", "invalid")]
    assert checks[1].line == 2 and checks[1].error == "invalid syntax"


def test_json_is_checked_with_its_error_line():
    valid, broken = check_code(fenced("json", '{"region": "eu-west-1"}') + "\n" + fenced("JSON", BROKEN_JSON))
    assert valid.status == "valid"
    assert (broken.status, broken.line) == ("invalid", 3) and "property name" in broken.error


def test_javascript_and_shell_are_parsed_with_tree_sitter():
    checks = check_code(f"{fenced('js', 'const x = f(1);')}\n{fenced('javascript', 'const x = ;')}\n"
                        f"{fenced('bash', 'ls -l | wc -l')}\n{fenced('sh', 'if [ -f x ]; then echo y')}")
    assert [c.status for c in checks] == ["valid", "invalid", "valid", "invalid"]
    assert checks[1].language == "javascript" and checks[1].line == 1 and checks[1].error == "unexpected '='"


@pytest.mark.parametrize("tag,valid,broken", [
    ("ts", "const n: number = f(1);\ninterface A { b: string }", "function f(a: number { return a }"),
    ("tsx", "const b = <Button label={x} />;", "const b = <Button label={x} ;"),
    ("rust", "fn main() {\n    let v = vec![1, 2];\n}", "fn main() {\n    let v = ;\n}"),
    ("go", "package main\n\nfunc main() { println(1) }", "package main\n\nfunc main() { println(1 }"),
])
def test_typescript_rust_and_go_blocks_are_told_valid_or_broken(tag, valid, broken):
    good, bad = check_code(f"{fenced(tag, valid)}\n{fenced(tag, broken)}")
    assert good.status == "valid"
    assert bad.status == "invalid" and bad.line >= 1 and bad.error


def test_a_rust_or_go_fragment_of_statements_is_checked_inside_a_function_body():
    checks = check_code(f"{fenced('rust', 'let v = vec![1];')}\n{fenced('go', 'fmt.Println(x)')}\n"
                        f"{fenced('go', 'fmt.Println(x')}")
    assert [c.status for c in checks] == ["valid", "valid", "invalid"]


def test_a_language_with_no_parser_or_no_tag_is_unchecked_never_valid():
    checks = check_code(f"{fenced('kotlin', 'fun main( {')}\n{fenced('', 'anything at all')}")
    assert [(c.language, c.status, c.line, c.error) for c in checks] == [("kotlin", "unchecked", None, ""),
                                                                         ("", "unchecked", None, "")]


def test_an_unclosed_block_cut_off_by_the_token_cap_is_still_checked():
    (check,) = check_code("Here:\n```python\nprint('a'")
    assert check.status == "invalid"


def test_text_without_fences_has_no_blocks():
    assert check_code("Python's `print` takes a string [1].") == []


def test_replacing_a_block_keeps_its_tag_and_the_text_around_it():
    text = f"Before.\n{fenced('python', BROKEN_PY)}\nAfter [1]."
    fixed = replace_block(text, find_blocks(text)[0], "def area(r):\n    return 3.14 * r ** 2\n")
    assert fixed == "Before.\n```python\ndef area(r):\n    return 3.14 * r ** 2\n```\nAfter [1]."
    assert [c.status for c in check_code(fixed)] == ["valid"]


def test_an_lm_reply_wrapped_in_a_fence_is_unwrapped():
    assert strip_fence("```python\nx = 1\n```") == "x = 1\n"
    assert strip_fence("x = 1") == "x = 1"
    assert check_block(1, "python", strip_fence("```python\nx = 1\n```")).status == "valid"


@pytest.mark.parametrize("tag, code", [
    ("json", "[" * 1_000),
    ("json", "[" * 100_000),
    ("python", "x = " + "-" * 3_000 + "1"),  # RecursionError in the parser
    ("python", "f" + "(x)" * 3_000),
])
def test_a_block_whose_parse_raises_is_invalid_and_the_answer_stands(tag, code):
    (check,) = check_code(f"Use this [1]:\n```{tag}\n{code}\n```\n")
    assert check.status == "invalid" and check.error
