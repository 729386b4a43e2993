"""Markdown sections: cut at headings outside code fences, ATX (`#` to `######`) and setext.

Each section's first block is its heading line, so a chunk that opens a section shows its heading.
A setext heading is a one-line paragraph underlined by `===` (level 1) or `---` (level 2), as many
READMEs and older docs write them. Its underline is in no block, as in plain text
(`program.retrieval.sections.plain_text`), where the 0.5B once gave an underline as a short answer.
A thematic break (`---`, `***`) standing as a block of its own is in no section: it says nothing
(66 chunks of the AWS guides were only rules). Nor is a block of reference-style link targets
(`[mdx-react]: /packages/react/`): 10 of MDX's 210 chunks were only those, and the words they
link are in the text that uses them. A front matter block that opens the file (YAML
between `---` lines, as MkDocs, Docusaurus and Jekyll pages have, Hugo's TOML between `+++`, or
MkDocs' `key: value` lines with a `title` among them) is the page's settings, not its text: it is in
no section, and its `title` is the page's title.
A passage of a markdown file is shown to the LM as its built page shows it (`shown_as_built`); the
chunks keep the file's text, so that their offsets point into the file.
This module does not pack sections into chunks; see `program.retrieval.chunking`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import NamedTuple

from program.retrieval.sections import Section, Span
from program.retrieval.sections.blocks import (
    FENCE,
    RECORD_MARK,
    blocks,
    lines,
    map_prose,
    next_fence,
)

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
# what a built page shows of a paragraph's inline markup: no empty anchor element (a link target the AWS
# guides end each heading with), and a link's or an image's text without its target
_EMPTY_ANCHOR = re.compile(r"<a\s[^<>\n]{0,300}>[ \t]{0,20}</a>", re.IGNORECASE)
_INLINE_LINK = re.compile(r"(?<!\\)!?\[([^\[\]\n]{0,300}+)\]\([^()\s]{0,500}+(?:[ \t]+\"[^\"\n]{0,300}+\")?\)")
# the files read as markdown as they were written, escapes and all (HTML's markdown loses them at ingest)
_MARKDOWN_FILES = frozenset({".md", ".markdown", ".mdx", ".ipynb"})
# subtle: a page may open with a horizontal rule; a front matter's first line is a key ("sidebar_position: 2")
_FRONT_MATTER = re.compile(r"\A(---|\+\+\+)[ \t]*\r?\n(?=[ \t]*[A-Za-z_][\w-]*[ \t]*[:=])(.*?)^(?:\1|\.\.\.)[ \t]*$",
                           re.DOTALL | re.MULTILINE)
# MkDocs' and Python-Markdown's other form: `key: value` lines (a continuation indented) up to the first
# blank line, read as settings only when one key is `title`: a page may open with "Note: ..." too
_META = re.compile(r"\A(?:[A-Za-z][\w-]*[ \t]*:[^\n]*\n(?:[ \t]+\S[^\n]*\n)*)+(?=[ \t]*(?:\n|\Z))")
_BREAK = re.compile(r"[ ]{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
# a reference-style link's target (`[mdx-react]: /packages/react/`); a footnote's `[^1]: text` is content
_LINK_TARGET = re.compile(r"[ ]{0,3}\[(?!\^)[^\]\n]{1,999}\]:[ \t]*\S.*")
_SETEXT = re.compile(r"[ ]{0,3}(=+|-{2,})[ \t]*")
# what opens a line that is not a paragraph's: a list item, a table row, a quote, a heading, HTML, code
_NOT_PROSE = re.compile(rf"[ \t]*(?:{RECORD_MARK}|>|#|<)|[ ]{{4}}|\t")
# subtle: the value is the rest of the line, stripped by the caller; a lazy `(.+?)[ \t]*$` read the run of
# spaces to the line's end again from each of its characters (quadratic on "title: a" and 5 MB of spaces)
_FRONT_TITLE = re.compile(r"^title[ \t]*[:=][ \t]*+([^\n]+)", re.MULTILINE)


def markdown_sections(text: str) -> list[Section]:
    start = _front_matter(text)[0]
    cuts: list[tuple[Heading | None, list[str]]] = [(None, [])]  # (where a section starts, its heading path)
    path: list[str] = []
    for heading in _headings(text, start):
        # subtle: a skipped level (# then ###) leaves a gap that the shown path drops
        path = [*path[: heading.level - 1], *[""] * (heading.level - 1 - len(path)), heading_text(heading.raw)]
        cuts.append((heading, [p for p in path if p]))
    ends = [heading.offset for heading, _ in cuts[1:]] + [len(text)]
    sections = [Section(path, _section_blocks(text, heading, start, end))
                for (heading, path), end in zip(cuts, ends, strict=True)]
    return [s for s in sections if s.blocks]


class Heading(NamedTuple):
    offset: int  # where its line starts
    level: int
    raw: str  # its text as written
    underline: Span | None = None  # a setext heading's underline, in no block


def _section_blocks(text: str, heading: Heading | None, start: int, end: int) -> list[Span]:
    """A section's blocks; a setext heading's line is a block of its own, without its underline."""
    if heading is None or heading.underline is None:
        return _blocks(text, heading.offset if heading else start, end)
    return [(heading.offset, heading.offset + len(heading.raw)), *_blocks(text, heading.underline[1], end)]


def _blocks(text: str, start: int, end: int) -> list[Span]:
    return [b for b in blocks(text, start, end) if not _says_nothing(text[b[0]:b[1]])]


def _headings(text: str, start: int) -> Iterator[Heading]:
    """Each heading of text[start:] outside code fences, in order."""
    # paragraph: the line before, when it opens a paragraph (after a blank line) and may be a heading's text
    fence, paragraph, previous_text = None, None, False
    for offset, line in lines(text, start):
        if fence is None and (atx := _HEADING.match(line)):
            yield Heading(offset, len(atx.group(1)), atx.group(2))
        elif fence is None and paragraph and (under := _SETEXT.fullmatch(line)):
            level = 1 if under.group(1)[0] == "=" else 2
            yield Heading(paragraph[0], level, paragraph[1], (offset, offset + len(line)))
            line = ""  # the underline ends the heading: the next line may open a paragraph
        opens = fence is None and not previous_text and _prose(line)
        paragraph, previous_text = ((offset, line) if opens else None), bool(line.strip())
        fence = next_fence(fence, line)


def _prose(line: str) -> bool:
    """Whether a line can be a setext heading's text: some words, opening no other construct."""
    return (bool(line.strip()) and not _NOT_PROSE.match(line) and not FENCE.match(line)
            and not _BREAK.fullmatch(line) and not _SETEXT.fullmatch(line))


def _says_nothing(block: str) -> bool:
    """Whether a block is only thematic breaks, or only link targets: its words are elsewhere on the page."""
    rows = block.split("\n")
    return all(_BREAK.fullmatch(row) for row in rows) or all(_LINK_TARGET.fullmatch(row) for row in rows)


def lead_heading(text: str) -> str | None:
    """The text of a leading `# Title`, if the document opens with one."""
    first = text.lstrip().split("\n", 1)[0]
    return heading_text(first[2:]) or None if first.startswith("# ") else None


def page_title(text: str) -> str | None:
    """A markdown page's title: its front matter's `title`, else its first heading when that is a
    `# Title` (a docs page may open with a note, a badge or an import before it)."""
    end, settings = _front_matter(text)
    title = _FRONT_TITLE.search(settings)
    if title and (named := heading_text(title.group(1).strip().strip("\"'"))):
        return named
    first = next(_headings(text, end), None)
    return heading_text(first.raw) or None if first and first.level == 1 else None


def _front_matter(text: str) -> tuple[int, str]:
    """Where the text after a front matter block starts, and the block's settings: (0, "") for none."""
    if found := _FRONT_MATTER.match(text):
        return found.end(), found.group(2)
    if (found := _META.match(text)) and _FRONT_TITLE.search(found.group(0)):
        return found.end(), found.group(0)
    return 0, ""


def heading_text(raw: str) -> str:
    """A heading as a reader would write its title: no closing `#`s, permalink anchor, markdown
    escape, inline HTML, emphasis or code mark ("`tomllib` — Parse TOML files¶" is "tomllib — Parse
    TOML files", `Time Boundaries<a name="howitworks-time-boundaries"></a>` is "Time Boundaries")."""
    text = _MARKS.sub("", _ESCAPE.sub(r"\1", _TAG.sub("", _ANCHORS.sub("", raw))))
    return " ".join(text.split()).rstrip("#").strip()


def written_in_markdown(origin: str) -> bool:
    """Whether a passage comes from a markdown file, whose text keeps what the file writes."""
    return PurePosixPath(origin).suffix.lower() in _MARKDOWN_FILES


# subtle: cached for the reason `rst.shown_as_built` is: every round and every replayed trial renders again
@functools.lru_cache(maxsize=16384)
def shown_as_built(text: str) -> str:
    """A markdown text as its built page shows it: no backslash before an escaped character, no empty
    anchor element, a link's text without its target; code as written. Of the AWS guides' chunks, 92%
    escape their periods and parentheses ("db\\.t2\\.small", "\\(Linux\\)"), 51% end a heading with
    `<a name="..."></a>`, and their links name files ("[SageMaker Roles ](sagemaker-roles.md)"): prompt
    tokens for nothing, which the LM copied into its answers, and users read in its quotes."""
    return map_prose(text, _built)


def _built(prose: str) -> str:
    unlinked = _INLINE_LINK.sub(lambda link: link.group(1).strip(), _EMPTY_ANCHOR.sub("", prose))
    return _ESCAPE.sub(r"\1", unlinked)
