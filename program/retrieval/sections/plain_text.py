"""Plain-text sections: cut where a manual written as text marks its headings, with lines of one character.

Text has no heading syntax of its own, but manuals written as text mark their sections in two ways:
- a heading underlined by a line at least as long ("Updates since v2.38" over "---------"), as
  Git's release notes and reStructuredText do;
- a rule across the page over a short line, as Vim's help files do ("=====…" over
  "2. Defining autocommands  *autocmd-define*").
Levels follow the order in which the styles first appear, as in reStructuredText. A section's first
block is its heading's line; the rules over and under it belong to no block, so no chunk shows them
(the 0.5B gave "Notes =====" as a short answer). Blocks are blank-line-separated paragraphs; this
module does not pack them into chunks (see `program.retrieval.chunking`).
"""

from __future__ import annotations

import re

from program.retrieval.sections import Section, Span
from program.retrieval.sections.blocks import blocks, lines

_UNDERLINE = re.compile(r"^([=\-~^*+#_])\1{2,}[ \t]*$")
_RULE = re.compile(r"^([=\-~*#_])\1{9,}[ \t]*$")  # across the page: ten or more, so "---" in prose is none
_HEADING_CHARS = 80  # a heading is a short line


def text_sections(text: str) -> list[Section]:
    numbered = list(lines(text))
    cuts: list[tuple[int, list[Span], int, list[str]]] = [(0, [], 0, [])]  # (start, heading line, body start, path)
    styles: list[tuple[str, str]] = []
    path: list[str] = []
    for i in range(len(numbered)):
        found = _heading_at(numbered, i)
        if found is None:
            continue
        title, style = found
        styles += [] if style in styles else [style]
        path = [*path[: styles.index(style)], title]
        offset, line = numbered[i + 1] if style[1] == "rule" else numbered[i]
        overlined = style[1] == "under" and i > 0 and _RULE.match(numbered[i - 1][1])
        start = numbered[i - 1][0] if overlined else numbered[i][0]
        body = numbered[i + 2][0] if i + 2 < len(numbered) else len(text)  # past the heading and its rule
        cuts.append((start, [(offset, offset + len(line))], body, path))
    ends = [start for start, _, _, _ in cuts[1:]] + [len(text)]
    sections = [Section(path, [*heading, *blocks(text, body, end)])
                for (_, heading, body, path), end in zip(cuts, ends, strict=True)]
    return [s for s in sections if s.blocks]


def _heading_at(numbered: list[tuple[int, str]], i: int) -> tuple[str, tuple[str, str]] | None:
    """(heading text, style) if line i is a rule over a heading, or a heading over its underline."""
    return _ruled(numbered, i) or _underlined(numbered, i)


def _ruled(numbered: list[tuple[int, str]], i: int) -> tuple[str, tuple[str, str]] | None:
    """A rule after a blank line, over a short line that is not underlined. subtle: under text, a
    rule underlines it: a table's header row ("tag  char  action in Insert mode") over its rows."""
    rule, after = _RULE.match(numbered[i][1]), [text for _, text in numbered[i + 1: i + 3]]
    if not rule or (i > 0 and numbered[i - 1][1].strip()) or not after or not _short(after[0]):
        return None
    if len(after) > 1 and _UNDERLINE.match(after[1]):
        return None  # an overline: `_underlined` reads the heading under it
    return " ".join(after[0].split()), (rule.group(1), "rule")


def _underlined(numbered: list[tuple[int, str]], i: int) -> tuple[str, tuple[str, str]] | None:
    """An unindented short line after a blank line (or an overline), over a line of one character at
    least as long: a paragraph's last line over a rule heads nothing."""
    line, before = numbered[i][1], numbered[i - 1][1] if i > 0 else ""
    if not _short(line) or line[0].isspace() or i + 1 >= len(numbered) or (before.strip() and not _RULE.match(before)):
        return None
    under = _UNDERLINE.match(numbered[i + 1][1])
    if not under or len(under.group(0).rstrip()) < len(line.rstrip()):
        return None
    return line.strip(), (under.group(1), "under")


def _short(line: str) -> bool:
    """A line a heading can be: some text, not a rule, no longer than a heading."""
    words = " ".join(line.split())
    return bool(words) and not _UNDERLINE.match(line.strip()) and len(words) <= _HEADING_CHARS
