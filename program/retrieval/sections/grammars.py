"""The tree-sitter grammars the project parses with, from their PyPI packages, by language name.

Chunking reads TypeScript, JavaScript, Rust and Go source through them, and the code check parses an
answer's blocks in those languages and shell. A grammar whose package is missing is None: the caller
then treats the text as plain (chunking) or unchecked (code check). No grammar is downloaded.
"""

from __future__ import annotations

import importlib
from functools import cache

import tree_sitter

# language -> (PyPI grammar module, its function returning the language pointer)
_GRAMMARS = {"javascript": ("tree_sitter_javascript", "language"),
             "typescript": ("tree_sitter_typescript", "language_typescript"),
             "tsx": ("tree_sitter_typescript", "language_tsx"),
             "rust": ("tree_sitter_rust", "language"), "go": ("tree_sitter_go", "language"),
             "bash": ("tree_sitter_bash", "language")}


@cache
def grammar(language: str) -> tree_sitter.Language | None:
    """The tree-sitter language named `language`, or None where none is known or installed."""
    module, function = _GRAMMARS.get(language, (None, None))
    if module is None:
        return None
    try:
        return tree_sitter.Language(getattr(importlib.import_module(module), function)())
    except ImportError:
        return None


def parse(language: str, text: str) -> tree_sitter.Tree | None:
    """`text`'s syntax tree in `language`; None where the grammar is missing. Never raises on bad syntax:
    tree-sitter marks what it could not parse with ERROR and MISSING nodes."""
    language_grammar = grammar(language)
    return None if language_grammar is None else tree_sitter.Parser(language_grammar).parse(text.encode())
