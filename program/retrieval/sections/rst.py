"""reStructuredText sections: cut at section titles, found by their underline (and optional overline).

A small parser of the title syntax only, not docutils: a title is an unindented line followed by a
line of one repeated punctuation character at least as long as it. Levels follow the order in
which adornment styles first appear, as in docutils. A block is an unindented paragraph together
with the indented lines that continue it, so a directive keeps its body and `::` its literal block.
This module does not render or validate reStructuredText.
"""

from __future__ import annotations

import re

from program.retrieval.sections import Section, Span
from program.retrieval.sections.blocks import lines

_ADORNMENT = re.compile(r"""^([!-/:-@\[-`{-~])\1+\s*$""")
# a Sphinx role, its domain optional: :meth:`~flask.Config.from_file`, :doc:`Deploying <deploying/index>`
_ROLE = re.compile(r":(?:[a-z][\w+.-]*:)?([a-z][\w+.-]*):`([^`\n]+)`")
# roles whose text a built page shows as prose, not as code
_PROSE_ROLES = frozenset({"doc", "ref", "term", "numref", "abbr", "download", "pep", "rfc"})


def rst_sections(text: str) -> list[Section]:
    numbered = list(lines(text))
    cuts: list[tuple[int, list[str], list[Span], int]] = [(0, [], [], 0)]  # start, path, title, where its text starts
    styles: list[tuple[str, bool]] = []
    path: list[str] = []
    for i, (offset, line) in enumerate(numbered):
        title = _title_at(numbered, i)
        if title is None:
            continue
        overlined = i > 0 and _ADORNMENT.match(numbered[i - 1][1]) is not None
        style = (numbered[i + 1][1][0], overlined)
        styles += [] if style in styles else [style]
        path = [*path[: styles.index(style)], title]
        under_offset, under = numbered[i + 1]
        cuts.append((numbered[i - 1][0] if overlined else offset, path, [(offset, offset + len(line.rstrip()))],
                     under_offset + len(under)))
    ends = [start for start, *_ in cuts[1:]] + [len(text)]
    sections = [Section(path, title + rst_blocks(text, body, end))
                for (_, path, title, body), end in zip(cuts, ends, strict=True)]
    return [s for s in sections if s.blocks]


def _title_at(numbered: list[tuple[int, str]], i: int) -> str | None:
    """The title text if line i is a section title: unindented text over an adornment as long as it."""
    line = numbered[i][1]
    if not line.strip() or line[0].isspace() or _ADORNMENT.match(line) or i + 1 >= len(numbered):
        return None
    under = numbered[i + 1][1].rstrip()
    return line.strip() if _ADORNMENT.match(under) and len(under) >= len(line.rstrip()) else None


def rst_blocks(text: str, start: int = 0, end: int | None = None) -> list[Span]:
    """Unindented paragraphs, each with the indented lines after it (directive bodies, literal blocks)."""
    found: list[Span] = []
    open_at, close_at, after_blank = None, 0, False
    for offset, line in lines(text, start, end):
        if not line.strip():
            after_blank = True
            continue
        if open_at is not None and after_blank and not line[0].isspace():
            found.append((open_at, close_at))
            open_at = None
        open_at = offset if open_at is None else open_at
        close_at, after_blank = offset + len(line), False
    return [*found, (open_at, close_at)] if open_at is not None else found


def shown_roles(text: str) -> str:
    """The text with each Sphinx role written as the built page shows it: ``from_file`` for
    :meth:`~flask.Config.from_file`, "Deploying" for :doc:`Deploying <deploying/index>`. Beside
    :func:`~werkzeug.utils.secure_filename`, the function Flask's documentation says to use, the
    0.5B answered "ensure that"; and the markup is a third of such a sentence's tokens."""
    return _ROLE.sub(_shown_role, text)


def _shown_role(role: re.Match[str]) -> str:
    name, content = role.group(1), role.group(2)
    if content.endswith(">") and " <" in content:
        shown = content.rpartition(" <")[0].strip()  # an explicit title: `title <target>`
    else:
        target = content.lstrip("!")
        shown = target[1:].rpartition(".")[2] if target.startswith("~") else target
    return shown if name in _PROSE_ROLES else f"``{shown}``"
