"""reStructuredText sections: cut at section titles, found by their underline (and optional overline).

A small parser of the title syntax only, not docutils: a title is an unindented line followed by a
line of one repeated punctuation character at least as long as it. Levels follow the order in
which adornment styles first appear, as in docutils. A title's adornment lines are in no block:
what a chunk holds of its heading is the title's text. A block is an unindented paragraph together
with the indented lines that continue it, so a directive keeps its body and `::` its literal block.
Each object a Sphinx page describes (`.. py:data:: DEBUG` and its body) is a section of its own,
headed by the object's name, packed with no other. `shown_roles` writes inline roles as a built
page shows them, and `shown_as_built` directives' markers too, for the LM's eyes. This module does
not otherwise render or validate reStructuredText.
"""

from __future__ import annotations

import functools
import re

from program.retrieval.sections import Section, Span
from program.retrieval.sections.blocks import lines

_ADORNMENT = re.compile(r"""^([!-/:-@\[-`{-~])\1+\s*$""")
# a Sphinx role, its domain optional: :meth:`~flask.Config.from_file`, :doc:`Deploying <deploying/index>`
_ROLE = re.compile(r":(?:[a-z][\w+.-]*:)?([a-z][\w+.-]*):`([^`\n]+)`")
# a Sphinx object description, the name it describes up to its arguments: `.. py:data:: SECRET_KEY`,
# `.. function:: send_file(path)`, `.. option:: --debug`
_OBJECT_KINDS = tuple(("function class method classmethod staticmethod attribute property data exception decorator "
                       "option cmdoption envvar confval describe object macro member type var struct enum enumerator "
                       "union").split())
_OBJECT = re.compile(rf"\.\. (?:[a-z]+:)?(?:{'|'.join(_OBJECT_KINDS)})::[ \t]+([^\s(][^\n(]*)")
# a directive's marker line, its domain optional, with the option lines under it:
# `.. code-block:: python` over `   :caption: app.py`
_DIRECTIVE = re.compile(r"^([ \t]*)\.\. (?:[a-z]+:)?([a-z][a-z-]*)::[ \t]*([^\n]*)((?:\n[ \t]+:[a-z][\w-]*:[^\n]*)*)",
                        re.MULTILINE)
# how a built page words a version note's marker
_VERSION_NOTES = {"versionadded": "New in version", "versionchanged": "Changed in version",
                  "deprecated": "Deprecated since version", "versionremoved": "Removed in version"}
# admonitions a built page heads with their name
_ADMONITIONS = {"seealso": "See also"} | {
    name: name.capitalize() for name in "note warning tip hint important attention caution danger error".split()}
# directives a built page heads with their argument: a tab's label, an admonition's title
_TITLED = frozenset({"tab", "group-tab", "code-tab", "admonition"})
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
    described = [section for (_, path, title, body), end in zip(cuts, ends, strict=True)
                 for section in _described(text, path, title, rst_blocks(text, body, end))]
    return _titles_over_objects(described, {title[0] for _, _, title, _ in cuts if title})


def _described(text: str, path: list[str], title: list[Span], blocks: list[Span]) -> list[Section]:
    """A title's text as sections: each object description alone, under the title's path and the
    object's name; the title and the blocks between objects under the title's path."""
    sections: list[Section] = [Section(path, list(title))] if title else []
    for block in blocks:
        if described := _OBJECT.match(text, block[0]):
            sections.append(Section([*path, described.group(1).strip()], [block], alone=True))
        elif sections and not sections[-1].alone:
            sections[-1].blocks.append(block)
        else:
            sections.append(Section(path, [block]))
    return sections


def _titles_over_objects(sections: list[Section], titles: set[Span]) -> list[Section]:
    """A section that is only its title ("Configuration" over "Values" over `.. py:data:: DEBUG`)
    opens the object description right under it, so that no chunk is a title alone."""
    kept: list[Section] = []
    for section in sections:
        while section.alone and kept and _only_a_title(kept[-1], titles):
            section = section._replace(blocks=kept.pop().blocks + section.blocks)
        kept.append(section)
    return kept


def _only_a_title(section: Section, titles: set[Span]) -> bool:
    return not section.alone and len(section.blocks) == 1 and section.blocks[0] in titles


def _title_at(numbered: list[tuple[int, str]], i: int) -> str | None:
    """The title text if line i is a section title: unindented text over an adornment as long as it."""
    line = numbered[i][1]
    if not line.strip() or line[0].isspace() or _ADORNMENT.match(line) or i + 1 >= len(numbered):
        return None
    under = numbered[i + 1][1].rstrip()
    if not (_ADORNMENT.match(under) and len(under) >= len(line.rstrip())):
        return None
    return shown_roles(line.strip()).replace("``", "")  # "Using ``async`` and ``await``" reads "Using async and await"


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


# subtle: cached because every render of a round, and every threshold trial replayed, shows the same
# passages again (as `program.evidence._trim` is)
@functools.lru_cache(maxsize=16384)
def shown_as_built(text: str) -> str:
    """The text with its roles (`shown_roles`) and its directives' markers as a built page shows
    them: "New in version 2.2." for `.. versionadded:: 2.2`, "Note:" for `.. note::`, a tab's
    label, an object's name for its description (`.. py:data:: SESSION_COOKIE_NAME`); no marker or
    option line at all for the rest (`.. code-block:: text`, `.. tabs::`, `:caption:`), whose
    content stays. Flask's docs showed the LM ".. code-block:: text # equivalent to ..." between
    two sentences of prose."""
    return shown_roles(_DIRECTIVE.sub(_shown_directive, text))


def _shown_directive(directive: re.Match[str]) -> str:
    indent, name, argument = directive.group(1), directive.group(2), directive.group(3).strip()
    if name in _VERSION_NOTES:
        return f"{indent}{_VERSION_NOTES[name]} {argument}".rstrip() + "."
    if name in _ADMONITIONS:
        return f"{indent}{_ADMONITIONS[name]}: {argument}".rstrip()
    if name in _TITLED:
        return f"{indent}{argument}:" if argument else indent
    if name in _OBJECT_KINDS or name.startswith("auto"):  # `.. autofunction:: flask.url_for` names its object too
        return indent + argument
    return indent


def _shown_role(role: re.Match[str]) -> str:
    name, content = role.group(1), role.group(2)
    if content.endswith(">") and " <" in content:
        shown = content.rpartition(" <")[0].strip()  # an explicit title: `title <target>`
    else:
        target = content.lstrip("!")
        shown = target[1:].rpartition(".")[2] if target.startswith("~") else target
    return shown if name in _PROSE_ROLES else f"``{shown}``"
