"""Code check: find the fenced code blocks of an answer and say whether each one parses.

Python is parsed with `ast`, JSON with `json`; JavaScript, TypeScript, Rust, Go and shell with the
tree-sitter grammars from PyPI. A Rust or Go block of bare statements (`let x = 1;`, `fmt.Println(x)`)
is valid when it parses inside a function body, since answers show fragments. A block in any other
language, or with no language tag, is "unchecked": never reported as valid. This module only parses: it runs no code, calls no LM and decides
nothing about repairs (`program.loop` does).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from functools import partial
from typing import Callable

from program.contract.result import CodeCheck
from program.retrieval.sections.grammars import parse

# an opening ``` (optional tag) at a line start, up to a closing ``` on its own line; an answer
# cut off by its token cap leaves the last block unclosed, so the text's end closes it too
_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\s`]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_LANGUAGES = {"python": "python", "py": "python", "python3": "python", "py3": "python", "json": "json",
              "javascript": "javascript", "js": "javascript", "node": "javascript", "mjs": "javascript",
              "bash": "bash", "sh": "bash", "shell": "bash", "typescript": "typescript", "ts": "typescript",
              "tsx": "tsx", "jsx": "javascript", "rust": "rust", "rs": "rust", "go": "go", "golang": "go"}
# how a fragment of statements is wrapped to parse: a function body
_FRAGMENT = {"rust": "fn fragment() {\n%s\n}", "go": "package fragment\nfunc fragment() {\n%s\n}"}


@dataclass(frozen=True)
class Block:
    """One fenced block: its tag as written, its code, and the span of the whole fence in the text."""

    tag: str
    code: str
    start: int
    end: int


def find_blocks(text: str) -> list[Block]:
    return [Block(m.group(1), m.group(2), m.start(), m.end()) for m in _FENCE.finditer(text)]


def check_code(text: str) -> list[CodeCheck]:
    """Every fenced block of `text`, numbered from 1, with its status and first syntax error."""
    return [check_block(i, block.tag, block.code) for i, block in enumerate(find_blocks(text), 1)]


def check_block(number: int, tag: str, code: str) -> CodeCheck:
    """Block `number`, tagged `tag`: valid, invalid with its first error, or unchecked."""
    language = _LANGUAGES.get(tag.lower(), tag.lower())
    first_error = _checker(language)
    if first_error is None:
        return CodeCheck(block=number, language=language, status="unchecked")
    try:
        error = first_error(code)
    except Exception as failure:  # noqa: BLE001 - the evidence can steer a block: its parse never fails the answer
        # subtle: a json block of 1,000 "[" or deeply nested Python raises RecursionError or MemoryError
        error = 1, f"could not be parsed ({type(failure).__name__})"
    if error is None:
        return CodeCheck(block=number, language=language, status="valid")
    line, message = error
    return CodeCheck(block=number, language=language, status="invalid", line=line, error=message)


def replace_block(text: str, block: Block, code: str) -> str:
    """`text` with `block` rewritten around `code`, its tag kept."""
    body = code.strip("\n")
    return f"{text[:block.start]}```{block.tag}\n{body}\n```{text[block.end:]}"


def strip_fence(code: str) -> str:
    """The code inside one fenced block, if an LM wrapped its code in one; else the code as given."""
    blocks = find_blocks(code.strip())
    return blocks[0].code if len(blocks) == 1 else code


def _checker(language: str) -> Callable[[str], tuple[int, str] | None] | None:
    """The function from code to its first syntax error (line, message) or None; None where there is none."""
    if language == "python":
        return _python_error
    if language == "json":
        return _json_error
    return partial(_tree_sitter_error, language) if parse(language, "") is not None else None


def _python_error(code: str) -> tuple[int, str] | None:
    try:
        ast.parse(code)
    except SyntaxError as error:  # IndentationError is one too
        return error.lineno or 1, error.msg
    return None


def _json_error(code: str) -> tuple[int, str] | None:
    try:
        json.loads(code)
    except json.JSONDecodeError as error:
        return error.lineno, error.msg
    return None


def _tree_sitter_error(language: str, code: str) -> tuple[int, str] | None:
    """The block's first syntax error; a Rust or Go fragment that parses in a function body has none."""
    error = _syntax_error(parse(language, code).root_node)
    if error is None or language not in _FRAGMENT:
        return error
    return None if _syntax_error(parse(language, _FRAGMENT[language] % code).root_node) is None else error


def _syntax_error(root) -> tuple[int, str] | None:
    """The first error under `root` as (line, message)."""
    node = _first_error(root)
    if node is None:
        return None
    text = node.text.decode(errors="replace").split("\n")[0][:40]
    return node.start_point.row + 1, f"missing {node.type}" if node.is_missing else f"unexpected {text!r}"


def _first_error(node):
    """The first ERROR or MISSING node in document order: where the parser gave up."""
    if node.is_error or node.is_missing:
        return node
    for child in node.children:
        if child.has_error or child.is_missing:
            return _first_error(child)
    return None
