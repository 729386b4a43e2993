"""Markdown sections: cut at ATX headings (`#` to `######`) outside code fences.

Each section's first block is its heading line, so a chunk that opens a section shows its heading.
A thematic break (`---`, `***`) standing as a block of its own is in no section: it says nothing
(66 chunks of the AWS guides were only rules). A front matter block that opens the file (YAML
between `---` lines, as MkDocs, Docusaurus and Jekyll pages have, or Hugo's TOML between `+++`) is
the page's settings, not its text: it is in no section, and its `title` is the page's title.
This module does not pack sections into chunks; see `program.retrieval.chunking`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from program.retrieval.sections import Section
from program.retrieval.sections.blocks import blocks, lines, next_fence

# subtle: the heading's closing `#`s and spaces are stripped in code, not by the pattern: a lazy
# `(.*?)\s*#*\s*$` backtracks cubically on a line of many spaces ("# a", 2,000 spaces, "b": 13 s)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(\S.*)$")
# what a rendered heading carries that is not its text: permalink anchors (Sphinx's ¶, MkDocs'),
# inline HTML (the AWS guides' `<a name="id"></a>` targets), markdown escapes (`lru\_cache`),
# emphasis and code marks
_ANCHORS = re.compile(r"[¶🔗]")
_TAG = re.compile(r"(?<!\\)</?[A-Za-z][^<>\n]{0,300}(?<!\\)>")  # an escaped `\<T\>` is text
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_MARKS = re.compile(r"[*`]+")
# subtle: a page may open with a horizontal rule; a front matter's first line is a key ("sidebar_position: 2")
_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\r?\n(?=[ \t]*[A-Za-z_][\w-]*[ \t]*[:=])(.*?)^(?:\1|\.\.\.)[ \t]*$",
                           re.DOTALL | re.MULTILINE)
_BREAK = re.compile(r"[ ]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_FRONT_TITLE = re.compile(r"^title[ \t]*[:=][ \t]*(.+?)[ \t]*$", re.MULTILINE)


def markdown_sections(text: str) -> list[Section]:
    body = _front_matter_end(text)
    cuts: list[tuple[int, list[str]]] = [(body, [])]  # (offset where a section starts, its heading path)
    path: list[str] = []
    for offset, level, raw in _headings(text, body):
        # subtle: a skipped level (# then ###) leaves a gap that the shown path drops
        path = [*path[: level - 1], *[""] * (level - 1 - len(path)), heading_text(raw)]
        cuts.append((offset, [p for p in path if p]))
    ends = [offset for offset, _ in cuts[1:]] + [len(text)]
    sections = [Section(path, [b for b in blocks(text, start, end) if not _rules(text[b[0]:b[1]])])
                for (start, path), end in zip(cuts, ends, strict=True)]
    return [s for s in sections if s.blocks]


def _headings(text: str, start: int) -> Iterator[tuple[int, int, str]]:
    """(offset, level, raw text) of each ATX heading of text[start:] outside code fences."""
    fence = None
    for offset, line in lines(text, start):
        heading = _HEADING.match(line) if fence is None else None
        fence = next_fence(fence, line)
        if heading:
            yield offset, len(heading.group(1)), heading.group(2)


def _rules(block: str) -> bool:
    """Whether a block is only thematic breaks."""
    return all(_BREAK.fullmatch(line) for line in block.split("\n"))


def lead_heading(text: str) -> str | None:
    """The text of a leading `# Title`, if the document opens with one."""
    first = text.lstrip().split("\n", 1)[0]
    return heading_text(first[2:]) or None if first.startswith("# ") else None


def page_title(text: str) -> str | None:
    """A markdown page's title: its front matter's `title`, else its first heading when that is a
    `# Title` (a docs page may open with a note, a badge or an import before it)."""
    front = _FRONT_MATTER.match(text)
    title = _FRONT_TITLE.search(front.group(2)) if front else None
    if title and (named := heading_text(title.group(1).strip("\"'"))):
        return named
    first = next(_headings(text, front.end() if front else 0), None)
    return heading_text(first[2]) or None if first and first[1] == 1 else None


def _front_matter_end(text: str) -> int:
    """Where the text after a front matter block starts: 0 when the text opens with none."""
    found = _FRONT_MATTER.match(text)
    return found.end() if found else 0


def heading_text(raw: str) -> str:
    """A heading as a reader would write its title: no closing `#`s, permalink anchor, markdown
    escape, inline HTML, emphasis or code mark ("`tomllib` — Parse TOML files¶" is "tomllib — Parse
    TOML files", `Time Boundaries<a name="howitworks-time-boundaries"></a>` is "Time Boundaries")."""
    text = _MARKS.sub("", _ESCAPE.sub(r"\1", _TAG.sub("", _ANCHORS.sub("", raw))))
    return " ".join(text.split()).rstrip("#").strip()
