"""TypeScript, JavaScript, Rust and Go source sections from its tree-sitter syntax tree.

One section per top-level function, class, interface, type, impl or trait (an `export` keeps its
declaration): the definition with the comments and attributes right above it (its doc comment,
`#[derive]`), and as its context the imports it uses (an import is "used" when a name it binds
appears in the definition as a whole word), up to `max_chars // 4` of them, so a chunk reads on its own.
Each file's import names are indexed once and each definition's words read once: linear in the file
(matching every import against every definition took 112 s for 1,200 of each). A definition over
`max_chars` is cut between the members of its body (methods, fields), the way Python classes are cut
between methods; one with no members to cut between is cut between its lines by chunking. Everything
else at the top (package, imports, constants) forms the module's own section. Text the grammar
cannot parse stays in the module's section. This module does not import or run the code.
"""

from __future__ import annotations

import re
from itertools import accumulate

from program.retrieval.sections import Section, Span
from program.retrieval.sections.grammars import parse

# top-level node types that are one definition each, per grammar family, with the word shown in the heading
_DEFINITIONS = {
    "function_declaration": "function", "generator_function_declaration": "function", "class_declaration": "class",
    "abstract_class_declaration": "class", "interface_declaration": "interface", "type_alias_declaration": "type",
    "enum_declaration": "enum", "module": "namespace", "internal_module": "namespace",
    "function_item": "fn", "struct_item": "struct", "enum_item": "enum", "union_item": "union", "impl_item": "impl",
    "trait_item": "trait", "mod_item": "mod", "macro_definition": "macro", "type_item": "type",
    "method_declaration": "func", "type_declaration": "type"}
_IMPORTS = {"import_statement", "import_declaration", "use_declaration", "extern_crate_declaration"}
_PREFIXES = {"comment", "line_comment", "block_comment", "attribute_item", "decorator"}  # stay with what follows
# `const f = () => ...` is a function in JavaScript and TypeScript
_FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "class", "generator_function"}
_IMPORT_WORDS = {"import", "from", "use", "as", "type", "export", "pub", "crate", "self", "super", "extern", "std"}
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_WORDS = re.compile(r"[\w$]+")  # a definition's whole words: an import's name counts only as one of them
_GO_PATH = re.compile(r'"([^"\n]{1,500}+)"')


def code_sections(language: str, text: str, max_chars: int) -> list[Section]:
    """The sections of `text` in `language`; one plain section when its grammar is not installed."""
    tree = parse(language, text)
    if tree is None:
        return [Section([], [(0, len(text.rstrip()))])] if text.strip() else []
    span = _Spans(text)
    nodes = tree.root_node.children
    imports = _Imports([node for node in nodes if node.type in _IMPORTS], span, max_chars // 4)
    loose, sections, pending = [], [], []
    for node in nodes:
        if node.type in _PREFIXES:
            pending.append(node)
            continue
        definition = _definition(node)
        attached = _attached(pending, node)
        loose.extend(span(n) for n in pending if n not in attached)
        pending = []
        if definition is None:
            loose.append(span(node))
            continue
        start = span(attached[0] if attached else node)[0]
        used = imports.used(text[start:span(node)[1]])
        blocks = _def_blocks(definition, start, span(node)[1], span, max_chars)
        sections.append(Section([_label(definition)], blocks, used))
    loose.extend(span(n) for n in pending)
    return ([Section([], loose)] if loose else []) + sections


def _definition(node):
    """The definition `node` is (through an `export` or a `const f = () => ...`), or None."""
    if node.type == "export_statement":
        inner = node.child_by_field_name("declaration") or node.child_by_field_name("value")
        return _definition(inner) and node if inner is not None else None
    if node.type in _DEFINITIONS:
        return node
    if node.type in {"lexical_declaration", "variable_declaration"}:
        values = [d.child_by_field_name("value") for d in node.named_children if d.type == "variable_declarator"]
        return node if any(v is not None and v.type in _FUNCTION_VALUES for v in values) else None
    return None


def _attached(prefixes: list, node) -> list:
    """The comments and attributes directly above `node`, with no blank line between them."""
    attached, row = [], node.start_point.row
    for prefix in reversed(prefixes):
        if prefix.end_point.row < row - 1:
            break
        attached.insert(0, prefix)
        row = prefix.start_point.row
    return attached


class _Imports:
    """A file's imports, indexed once by the names they bind."""

    def __init__(self, nodes: list, span: _Spans, most_chars: int):
        self.spans, self.most_chars = [span(node) for node in nodes], most_chars
        self.by_name: dict[str, list[int]] = {}
        for k, node in enumerate(nodes):
            for name in _bound_names(node):
                self.by_name.setdefault(name, []).append(k)

    def used(self, definition: str) -> tuple[Span, ...]:
        """The imports binding a word of `definition`, in file order, while they fit in `most_chars`."""
        hits = sorted({k for word in set(_WORDS.findall(definition)) for k in self.by_name.get(word, ())})
        kept, room = [], self.most_chars
        for k in hits:
            room -= self.spans[k][1] - self.spans[k][0]
            if room < 0:
                break
            kept.append(self.spans[k])
        return tuple(kept)


def _bound_names(import_node) -> set[str]:
    """The names an import brings in; Go imports a path, and "net/http" binds http."""
    text = import_node.text.decode(errors="replace")
    names = set(_WORD.findall(text)) - _IMPORT_WORDS
    return names | {path.rsplit("/", 1)[-1] for path in _GO_PATH.findall(text)}


def _def_blocks(node, start: int, end: int, span: _Spans, max_chars: int) -> list[Span]:
    """The definition whole when it fits; else its header, then each member of its body up to the next."""
    if end - start <= max_chars:
        return [(start, end)]
    body = _body(node)
    members = [child for child in body.named_children if child.type not in _PREFIXES] if body is not None else []
    if len(members) < 2:
        return [(start, end)]
    cuts = [start, *[span(member)[0] for member in members[1:]], end]
    return [span.trimmed(a, b) for a, b in zip(cuts, cuts[1:])]


def _body(node):
    """The node holding a definition's members: a class body, an impl's declarations, a struct's fields."""
    inner = node.child_by_field_name("declaration") if node.type == "export_statement" else node
    for candidate in (inner, *inner.named_children):
        body = candidate.child_by_field_name("body")
        if body is not None:
            return body
    return None


def _label(node) -> str:
    """The heading of a definition: its kind and name, "impl Display for Point", "func (s *S) Close"."""
    inner = node.child_by_field_name("declaration") if node.type == "export_statement" else node
    if inner.type in {"lexical_declaration", "variable_declaration"}:
        declarator = inner.named_children[0]
        return f"function {_text(declarator.child_by_field_name('name'))}"
    kind = _DEFINITIONS[inner.type]
    if inner.type == "impl_item":
        trait, target = inner.child_by_field_name("trait"), inner.child_by_field_name("type")
        return f"impl {_text(trait)} for {_text(target)}" if trait is not None else f"impl {_text(target)}"
    if inner.type == "method_declaration":
        return f"func {_text(inner.child_by_field_name('receiver'))} {_text(inner.child_by_field_name('name'))}"
    name = inner.child_by_field_name("name")
    if name is None and inner.named_children:  # Go's `type X struct`: the name is in its type_spec
        name = inner.named_children[0].child_by_field_name("name")
    return f"{kind} {_text(name)}".rstrip()


def _text(node) -> str:
    return node.text.decode(errors="replace") if node is not None else ""


class _Spans:
    """Character spans of nodes. subtle: tree-sitter's offsets count UTF-8 bytes; a text with other
    characters maps them through the running byte length of each character."""

    def __init__(self, text: str):
        self.text = text
        data = text.encode()
        self.chars = None if len(data) == len(text) else \
            {byte: char for char, byte in enumerate(accumulate((len(c.encode()) for c in text), initial=0))}

    def __call__(self, node) -> Span:
        return self.trimmed(self._char(node.start_byte), self._char(node.end_byte))

    def trimmed(self, start: int, end: int) -> Span:
        return start, start + len(self.text[start:end].rstrip())

    def _char(self, byte: int) -> int:
        return byte if self.chars is None else self.chars[byte]
