"""Every pattern run over fetched or ingested text, fed 5 MB of its worst case, ends (no timed
assertion: a pattern that backtracks would hold this test for minutes, as the markdown link pattern
held 37 s on 5 MB of "[a](" and the GIL with it). Each case is the input its shape reads longest:
a run of what it opens on, with what would close it missing."""

from __future__ import annotations

import pytest

from program.retrieval.links import _MARKDOWN_HEADING, _MARKDOWN_LINK
from program.retrieval.readers.html import _INLINE_ESCAPE, _PERMALINK_TEXT, _SEPARATOR
from program.retrieval.readers.mdx import _ESM, _TAG, without_comments
from program.retrieval.readers.notebook import _BACKTICKS, _INLINE_IMAGE
from program.retrieval.sections.blocks import _CODE_MARK, _RECORD, FENCE
from program.retrieval.sections.code_source import _GO_PATH, _WORD, _WORDS
from program.retrieval.sections.markdown import (
    _ANCHORS,
    _BREAK,
    _EMPTY_ANCHOR,
    _FRONT_MATTER,
    _FRONT_TITLE,
    _INLINE_LINK,
    _LINK_TARGET,
    _MARKS,
    _META,
    _SETEXT,
)
from program.retrieval.sections.rst import _ADORNMENT, _DIRECTIVE, _OBJECT, _ROLE

MB5 = 5 * 2**20


def run_of(piece: str, tail: str = "") -> str:
    return piece * (MB5 // len(piece)) + tail


CASES = {
    "markdown link [a](": (_MARKDOWN_LINK.findall, run_of("[a](")),
    "markdown link [a](b": (_MARKDOWN_LINK.findall, "[a](" + run_of("b")),
    "markdown link [[[": (_MARKDOWN_LINK.findall, run_of("[")),
    "markdown link [a]((": (_MARKDOWN_LINK.findall, run_of("[a](((")),
    "markdown heading": (_MARKDOWN_HEADING.match, "#" + run_of(" ", "x")),
    "inline link [a](": (_INLINE_LINK.findall, run_of("[a](")),
    "inline link ![a]([": (_INLINE_LINK.findall, run_of("![a]([a]")),
    "inline link title": (_INLINE_LINK.findall, run_of('[a](b "' + "c" * 200)),
    "empty anchor": (_EMPTY_ANCHOR.findall, run_of("<a " + "x" * 299)),
    "front matter": (_FRONT_MATTER.match, "---\ntitle: a\n" + run_of("--- \t \n")),
    "front title": (_FRONT_TITLE.search, "title: a" + run_of(" ", "b")),
    "front title lines": (_FRONT_TITLE.search, run_of("title: a   b\n")),
    "meta": (_META.match, run_of("a: b\n  c\n", "x")),
    "break": (_BREAK.fullmatch, run_of("- ", "x")),
    "setext": (_SETEXT.fullmatch, run_of("=", "x")),
    "link target": (_LINK_TARGET.fullmatch, "[" + run_of("a")),
    "anchors and marks": (_MARKS.findall, run_of("*`¶")),
    "anchor glyphs": (_ANCHORS.findall, run_of("¶🔗")),
    "mdx comment": (without_comments, run_of("{/*")),
    "mdx comments": (without_comments, run_of("{/**/}")),
    "mdx tag": (_TAG.sub, run_of("<a {x ")),
    "mdx tag braces": (_TAG.sub, "<a " + run_of("{")),
    "mdx esm": (_ESM.match, run_of("import")),
    "notebook image": (_INLINE_IMAGE.sub, run_of("![")),
    "notebook img tag": (_INLINE_IMAGE.sub, run_of("<img src=")),
    "notebook image data": (_INLINE_IMAGE.sub, run_of("![a](data:")),
    "notebook img src": (_INLINE_IMAGE.sub, "<img " + run_of("src='data:")),
    "notebook images": (_INLINE_IMAGE.sub, run_of("![a](data:x)<img src='data:y'>")),
    "backticks": (_BACKTICKS.findall, run_of("`")),
    "rst adornment": (_ADORNMENT.match, run_of("=", "x")),
    "rst role": (_ROLE.sub, run_of(":a:`")),
    "rst role words": (_ROLE.sub, run_of(":" + "a" * 50)),
    "rst object": (_OBJECT.match, ".. py:function:: " + run_of("a")),
    "rst directive": (_DIRECTIVE.sub, run_of(".. note:: a\n  :b: c\n")),
    "rst directive spaces": (_DIRECTIVE.sub, run_of(" ", "x")),
    "html escape": (_INLINE_ESCAPE.sub, run_of("\\")),
    "html permalink": (_PERMALINK_TEXT.match, run_of("#")),
    "html separator": (_SEPARATOR.split, run_of(" | ")),
    "fence": (FENCE.match, run_of(" ", "`")),
    "code mark": (_CODE_MARK.split, run_of("\\`")),
    "record": (_RECORD.match, run_of(" \t", "x")),
    "go import path": (_GO_PATH.findall, run_of('"' + "a" * 600)),
    "code words": (_WORDS.findall, run_of("a$1 ")),
    "code names": (_WORD.findall, run_of("$a_ ")),
}


@pytest.mark.parametrize("name", CASES)
def test_each_scanner_reads_5_mb_of_its_worst_case(name):
    scan, text = CASES[name]
    assert len(text) >= MB5 - 1000
    if scan.__name__ == "sub":
        scan("", text)
    else:
        scan(text)
