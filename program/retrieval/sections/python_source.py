"""Python source sections from its syntax tree (`ast`): one per top-level function or class.

A function is one block, docstring and all, however long. A class is its header (with its
docstring and attributes) then one block per method, so an oversized class is cut between
methods. Decorators stay with what they decorate; other top-level statements (imports,
constants) form the module's own section. The module docstring is not a section: see
`module_summary`, which readers put in the document's title.
This module does not import or run the code.
"""

from __future__ import annotations

import ast

from program.retrieval.sections import Section, Span

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def python_sections(text: str) -> list[Section]:
    """Raises SyntaxError when the text does not parse."""
    tree = ast.parse(text)
    body = tree.body[1:] if ast.get_docstring(tree) is not None else tree.body
    span = _Spans(text)
    sections, loose = [], []
    for node in body:
        if isinstance(node, _DEFS):
            sections.append(Section([_label(node)], _def_blocks(node, span)))
        else:
            loose.append(span(node))
    return ([Section([], loose)] if loose else []) + sections


def module_summary(text: str) -> str:
    """The first line of the module docstring, or ''; raises SyntaxError when the text does not parse."""
    doc = ast.get_docstring(ast.parse(text))
    return doc.strip().split("\n", 1)[0] if doc else ""


def _def_blocks(node: ast.AST, span: _Spans) -> list[Span]:
    """A function whole; a class as its header, then each method with what follows it up to the next."""
    methods = [child for child in node.body if isinstance(child, _DEFS)] if isinstance(node, ast.ClassDef) else []
    if not methods:
        return [span(node)]
    cuts = [span(node)[0], *[span(method)[0] for method in methods], span(node)[1]]
    return [span.trimmed(start, end) for start, end in zip(cuts, cuts[1:])]


class _Spans:
    """Character spans of nodes. subtle: ast's column offsets count UTF-8 bytes, so spans end at
    line ends instead (a def or class always ends its last line)."""

    def __init__(self, text: str):
        self.text, self.starts, offset = text, [], 0
        for line in text.splitlines(keepends=True):
            self.starts.append(offset)
            offset += len(line)
        self.starts.append(offset)

    def __call__(self, node: ast.AST) -> Span:
        first = min([node.lineno, *[d.lineno for d in getattr(node, "decorator_list", [])]])
        return self.trimmed(self.starts[first - 1], self.starts[node.end_lineno])

    def trimmed(self, start: int, end: int) -> Span:
        return start, start + len(self.text[start:end].rstrip())


def _label(node: ast.AST) -> str:
    kind = "class" if isinstance(node, ast.ClassDef) else "def"
    return f"{kind} {node.name}"
