"""MDX becomes markdown: what a docs site's MDX page says, without the code that builds the page.

MDX (Docusaurus, Nextra, Mintlify, MDX's own site) is markdown with three more things in it, none
of them text a reader wants in a passage:
- ES module blocks (`import {Note} from './note.jsx'`, a multi-line `export const info = {…}`),
  each a paragraph that starts with `import` or `export` and runs to the next blank line;
- JavaScript expressions that stand as paragraphs of their own, opening with `{` (a page's
  navigation, built by a function), and expression comments inside text, `{/* more */}`;
- JSX tags (`<Note type="info">`, `</Note>`, `<Chart year={2020} />`), whose content is kept.
Fenced code keeps all three, since there they are an example. What is left is read as markdown
(`read_markdown`): its front matter's title or leading heading is the page's title. The document
text is that markdown, so chunk offsets point into it, not into the MDX file.
"""

from __future__ import annotations

import re

from program.retrieval.chunking import Document
from program.retrieval.readers.text import read_markdown
from program.retrieval.sections.blocks import FENCE, blocks
from program.retrieval.sources import SourceFile

_ESM = re.compile(r"(?:import|export)\b")
# subtle: an attribute's `{…}` may hold a `>` (`onClick={() => go()}`); one level of braces is read,
# and the two alternatives start on different characters, so a hostile line cannot make it backtrack
_TAG = re.compile(r"</?[A-Za-z][\w.:-]*(?:\s(?:[^<>{}]|\{[^{}]*\})*)?/?>")


def read_mdx(file: SourceFile, text: str) -> list[Document]:
    return read_markdown(file, mdx_markdown(text))


def mdx_markdown(text: str) -> str:
    """The markdown of an MDX page: its paragraphs outside code fences lose their ES module
    statements, expressions, expression comments and JSX tags; a paragraph left empty is dropped."""
    kept: list[str] = []
    depth = 0  # the braces an expression paragraph left open: it runs on over blank lines
    for paragraph, code in _paragraphs(text):
        if depth or paragraph.startswith("{"):
            depth = max(0, depth + paragraph.count("{") - paragraph.count("}"))
        elif code:
            kept.append(paragraph)
        elif not _ESM.match(paragraph) and (prose := _TAG.sub("", without_comments(paragraph))).strip():
            kept.append("\n".join(line for line in prose.split("\n") if line.strip()))
    return "\n\n".join(kept) + "\n"


def without_comments(text: str) -> str:
    """`text` without its `{/* ... */}` comments, in one pass. subtle: not a lazy pattern, which read to the
    end of the text again from every `{/*` that no `*/}` closes (quadratic on a run of them)."""
    kept, at = [], 0
    while (start := text.find("{/*", at)) != -1 and (end := text.find("*/}", start + 3)) != -1:
        kept.append(text[at:start])
        at = end + 3
    return "".join(kept) + text[at:]


def _paragraphs(text: str) -> list[tuple[str, bool]]:
    """The blank-line-separated paragraphs (`blocks`), each with whether it holds a fenced code block."""
    found = []
    for start, end in blocks(text):
        paragraph = text[start:end]
        found.append((paragraph, any(FENCE.match(line) for line in paragraph.split("\n"))))
    return found
