"""HTML becomes markdown through trafilatura: the main content only, no menus, footers or controls.

The document text is that markdown, so chunk offsets point into it, not into the HTML. Before
extraction the page loses what it shows as controls rather than content: buttons (rustdoc's "Copy
item path", inside every item's title), permalink anchors (Sphinx's and MkDocs' ¶, rustdoc's §),
empty link targets, navigation lines (texinfo's "Next: …, Previous: …, Up: …"), navigation
tables (DocBook's and gtk-doc's Prev / Up / Home / Next bar) and tables of contents with their heading.
Each `<pre>` is made code, so that trafilatura fences it however little its text looks like code, and
a `<div>`'s loose text a paragraph, which trafilatura keeps.
A heading that wrapper elements hold alone (DocBook's `<div class="titlepage"><div><div><h2>`) is
lifted out of them, and a page that marks no `<main>` gets one around its body: trafilatura drops a
wrapped heading, and on a page with no main container it gathers loose paragraphs and no heading
at all, so every chunk of a DocBook manual (Valgrind's) had only the page's title.
After it, the text loses trafilatura's escapes of inline characters outside code: `first\\_key\\_value`
is one BM25 term again, as a question spells it, and a quote reads as the page does.
The title is the page's own `# heading`, else the page part of its `<title>` ("OS" of "OS | Node.js
v20 Documentation"). A leading heading that only names the site (the `<title>`'s part after its last
separator: Node's docs open every page with "# Node.js v20 documentation") is the site's banner, not
the page's title, and is dropped.
This module does not fetch pages; see `program.retrieval.fetch`.
"""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath

from program.retrieval.chunking import Document
from program.retrieval.links import html_links
from program.retrieval.sections.blocks import map_prose, next_fence
from program.retrieval.sections.markdown import heading_text, lead_heading
from program.retrieval.sources import SourceFile, source_id

# trafilatura's inline escapes; its block-start ones ("\# not a heading") stay, since the chunker reads headings
_INLINE_ESCAPE = re.compile(r"\\([*_~\[\]<])")
# a link to a place on its own page whose whole text is a mark, not a word: a permalink
_PERMALINK_TEXT = re.compile(r"^\W{1,2}$")
# "<page> | <site>": the last of these separators in a page's <title> starts the site's name
_SEPARATOR = re.compile(r"\s[|\-–—·]\s")
# buttons, links to a place on their own page (kept unless their text is a mark), and empty link targets
_CONTROLS = "//button | //a[starts-with(@href, '#')] | //a[not(@href) and not(*) and not(normalize-space())]"
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
# elements that start a block of their own: what a run of loose text in a `<div>` ends at
_BLOCK_TAGS = _HEADINGS | {"address", "article", "aside", "blockquote", "details", "dd", "div", "dl", "dt", "figure",
                           "footer", "form", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
                           "summary", "table", "ul"}
_EVERY_HEADING = " | ".join(f"//{tag}" for tag in sorted(_HEADINGS))
# each `<div>` not part of something that reads its text as its own (a heading, a paragraph, a cell, code)
_LOOSE_DIVS = "//div[not(ancestor::*[" + " or ".join(
    f"self::{tag}" for tag in (*sorted(_HEADINGS), "p", "pre", "table", "a", "code")) + "])]"
_WRAPPERS = {"div", "span", "header", "hgroup"}  # elements that only group: a heading alone in one is still a heading
_CONTENTS_WRAPPERS = _WRAPPERS | {"nav", "section"}  # what may hold a table of contents' list and nothing else
# the link types (HTML's `rel`) of a page's place in its manual, and the words that label them
_NAV_RELS = {"next", "prev", "previous", "up", "index", "contents", "start"}
_NAV_LABELS = {"next", "previous", "prev", "up", "index", "contents", "top"}
_BLOCKS = ("p", "div", "li", "nav", "header", "footer")  # not a table cell: a row keeps its shape
# the navigation bar DocBook's and gtk-doc's stylesheets put over and under every page: a table of
# Prev / Up / Home / Next image links and the manual's name, marked by its summary
_NAV_TABLES = "//table[starts-with(normalize-space(@summary), 'Navigation')]"


def read_html(file: SourceFile, html: str) -> list[Document]:
    import trafilatura  # subtle: slow to import, and only HTML needs it
    from trafilatura.utils import load_html

    where = file.url or file.origin
    tree = load_html(html)
    if tree is None:
        return []
    _drop_controls(tree)
    _drop_nav_lines(tree)
    _drop_nav_tables(tree)
    _drop_contents(tree)
    _fence_preformatted(tree)
    _wrap_loose_text(tree)
    _lift_headings(tree)
    _mark_main(tree)
    text = _unescaped(_unglued_fences(trafilatura.extract(tree, url=where, output_format="markdown",
                                                          include_tables=True, include_links=False) or ""))
    page, site = _title_parts(tree.findtext(".//title") or "")
    if site and _same(lead_heading(text) or "", site):
        text = text.lstrip().partition("\n")[2]  # the banner line goes; what follows it stays as it was
    if not text.strip():
        return []
    title = lead_heading(text) or page or _metadata_title(tree, where)
    return [Document(doc_id=source_id(file.root, file.path), title=title or PurePosixPath(file.path).stem or where,
                     text=text, url=file.url, kind="markdown", origin=file.origin, root=file.root,
                     links=html_links(html, file.url))]


def _title_parts(title: str) -> tuple[str, str]:
    """A `<title>`'s page part and its site part ("" when it names no site)."""
    title = " ".join(title.split())
    cuts = list(_SEPARATOR.finditer(title))
    return (heading_text(title[:cuts[-1].start()]), title[cuts[-1].end():]) if cuts else (heading_text(title), "")


def _metadata_title(tree, where: str) -> str | None:
    """trafilatura's guess from the page's metadata, for a page with no `<title>` or leading heading
    (it picks an h1, such as mdBook's "Keyboard shortcuts" dialog, so it comes last)."""
    import trafilatura

    metadata = trafilatura.extract_metadata(tree, default_url=where)
    return heading_text(metadata.title) if metadata and metadata.title else None


def _same(a: str, b: str) -> bool:
    return a.casefold().split() == b.casefold().split()


def _drop_controls(tree) -> None:
    """Remove buttons, permalink anchors and empty link targets (DocBook's `<a name="…"></a>` in
    every heading, which trafilatura weighs as a link) from the parsed page, keeping the text that
    follows each."""
    for element in tree.xpath(_CONTROLS):
        if element.tag == "button" or element.get("href") is None or \
                _PERMALINK_TEXT.match(element.text_content().strip()):
            element.drop_tree()


def _drop_nav_lines(tree) -> None:
    """Remove each block that is only a navigation line: links to the next, previous or parent page,
    the index or the contents, and their labels. Texinfo puts "Next: Types, Previous: The Basics, Up:
    Using libffi [Index]" over every node of a GNU manual, and each one opened a chunk (57 of them in
    Nettle's one-page manual)."""
    checked = set()  # subtle: each block is read once, however many links it holds, so the pass stays linear
    for link in tree.xpath("//a[@rel]"):
        if not _NAV_RELS & set(link.get("rel").lower().split()):
            continue
        block = next(link.iterancestors(*_BLOCKS), None)
        if block is None or block in checked:
            continue
        checked.add(block)
        if block.getparent() is not None and _labels_only(block):
            block.drop_tree()


def _drop_nav_tables(tree) -> None:
    """Remove each navigation table (`_NAV_TABLES`): gtk-doc's opened every page of libxslt's API
    reference with "| | | | | libxslt Reference Manual |", which the 0.5B then gave as an answer."""
    for table in tree.xpath(_NAV_TABLES):
        table.drop_tree()


def _drop_contents(tree) -> None:
    """Remove each table of contents: a heading whose whole section is a list of links to places on
    its own page. trafilatura dropped the list but kept the heading, and every section after it nested
    under it: each chunk of npm's command pages was titled "npm-install > Table of contents >
    Configuration > save". A heading whose section goes on after such a list (Node's `process.stderr`
    over the list of its properties) is a section, and stays."""
    for listing in tree.xpath("//ul[not(ancestor::ul or ancestor::ol)] | //ol[not(ancestor::ul or ancestor::ol)]"):
        if not _in_page_links_only(listing):
            continue
        block = listing
        while block.getparent() is not None and block.getparent().tag in _CONTENTS_WRAPPERS \
                and _holds_only(block.getparent(), block):
            block = block.getparent()
        heading = block.getprevious()
        if heading is not None and heading.tag in _HEADINGS and not (heading.tail or "").strip() \
                and _section_ends(block):
            heading.drop_tree()
            block.drop_tree()


def _section_ends(block) -> bool:
    """No text follows the block before the next heading (an empty anchor may: texinfo's `<span id>`)."""
    if (block.tail or "").strip():
        return False
    for sibling in block.itersiblings():
        if sibling.tag in _HEADINGS:
            return True
        if sibling.text_content().strip() or (sibling.tail or "").strip():
            return False
    return True


def _in_page_links_only(listing) -> bool:
    """The list holds links, each to a place on its own page, and no text outside them (npm's lists
    one link on some pages, its generator missing the sections it does not recognise)."""
    links = listing.xpath(".//a")
    return bool(links) and all((a.get("href") or "").startswith("#") for a in links) \
        and not re.search(r"\w", _unlinked_text(listing))


def _fence_preformatted(tree) -> None:
    """Make each `<pre>` that holds no `<code>` one `<code>` of its text, its `<br>`s line breaks.
    trafilatura fences a bare `<pre>` only when its text looks like code to it (a brace, an indented
    line), and otherwise runs its lines on as prose: a shell comment in Valgrind's manual ("# and then
    in another shell, run:") was the heading of 55 chunks, and gtk-doc's prototypes (libxslt's) ran
    together, one function's closing parenthesis on the next one's line. A `<pre>` in a table cell
    (texinfo's menus) stays as it is: a fence would break its row."""
    for pre in list(tree.iter("pre")):  # subtle: a list, since each one's children are replaced
        if pre.find("code") is not None or next(pre.iterancestors("td", "th"), None) is not None:
            continue
        for line_break in pre.iter("br"):
            line_break.tail = "\n" + (line_break.tail or "")
        code = pre.makeelement("code")
        code.text = pre.text_content()
        pre.clear(keep_tail=True)
        pre.append(code)


def _wrap_loose_text(tree) -> None:
    """Put each run of text and inline elements that a `<div>` holds outside any paragraph into a
    `<p>` of its own. trafilatura keeps a `<div>`'s loose text only on some pages, as its heuristics
    go: in Expat's reference each function's description opens in its `<div class="fcndef">`, and 29
    of those opening sentences were lost ("Constructs a new parser that has namespace processing in
    effect …" read "*sep*, and the local part of the name."); so were rustdoc's one-line descriptions
    of trait methods and Node's stability notes."""
    for div in tree.xpath(_LOOSE_DIVS):
        if not re.search(r"\w", (div.text or "") + "".join(child.tail or "" for child in div)):
            continue
        run = None
        if (div.text or "").strip():
            run = div.makeelement("p")
            run.text, div.text = div.text, None
            div.insert(0, run)
        for child in [child for child in div if child is not run]:
            if child.tag in _BLOCK_TAGS or not isinstance(child.tag, str):
                run = _tail_run(child)
                continue
            if run is None:
                run = div.makeelement("p")
                child.addprevious(run)
            run.append(child)  # the child's tail moves with it: it is the run's text too


def _tail_run(block):
    """A `<p>` after the block holding the text that follows it, or None when only space does."""
    if not (block.tail or "").strip():
        return None
    run = block.makeelement("p")
    run.text, block.tail = block.tail, None
    block.addnext(run)
    return run


def _labels_only(block) -> bool:
    """The block's text outside its links is only navigation labels and punctuation."""
    words = re.findall(r"\w+", _unlinked_text(block).lower())
    return set(words) <= _NAV_LABELS


def _unlinked_text(block) -> str:
    """The block's text outside its links."""
    return " ".join(block.xpath(".//text()[not(ancestor::a)]"))


def _lift_headings(tree) -> None:
    """Replace each wrapper that holds only a heading (no text, no other element) by the heading."""
    for heading in tree.xpath(_EVERY_HEADING):
        wrapper = heading.getparent()
        while wrapper is not None and wrapper.tag in _WRAPPERS and _holds_only(wrapper, heading) \
                and wrapper.getparent() is not None:
            heading.tail = wrapper.tail
            wrapper.getparent().replace(wrapper, heading)
            wrapper = heading.getparent()


def _holds_only(wrapper, heading) -> bool:
    return len(wrapper) == 1 and not (wrapper.text or "").strip() and not (heading.tail or "").strip()


def _mark_main(tree) -> None:
    """Wrap the body of a page with no `<main>` in one; trafilatura looks for it after its other guesses."""
    body = tree.find(".//body")
    if body is None or tree.find(".//main") is not None:
        return
    main = body.makeelement("main")
    main.text, body.text = body.text, None
    main.extend(list(body))
    body.append(main)


def _unglued_fences(markdown: str) -> str:
    """`markdown` with each code fence that trafilatura glued to the end of a line of text ("For
    example: ```", a list item's code block) or indented (a `<pre>` inside a paragraph) on a line of
    its own. Glued, the fence opened nothing and its closing line opened a block instead, so what
    followed read as code up to the next fence: in Nettle's manual, 2,864 lines holding 84 headings."""
    lines, fence = [], None
    for line in markdown.split("\n"):
        glued = _glued_fence(line) if fence is None and next_fence(None, line) is None else None
        for part in [part for part in glued if part] if glued else [line]:
            fence = next_fence(fence, part)
            lines.append(part)
    return "\n".join(lines)


def _glued_fence(line: str) -> tuple[str, str] | None:
    """(the text, the fence) of a line that ends with a fence marker after text or past a fence's
    indent; trafilatura never writes a closing fence that way, so this one opens a block. Its fences are
    three marks: a fourth backtick closes inline code (xsltproc's "`ENCODING````")."""
    stripped = line.rstrip(" \t")
    if stripped.endswith(("```", "~~~")):
        return stripped[:-3].rstrip(), stripped[-3:]
    return None


def _unescaped(markdown: str) -> str:
    """`markdown` without the backslashes before inline characters outside code (code keeps its
    backslashes: they are literal there), and with a line that would open a code fence without them
    as it was: trafilatura writes only backtick fences, so a page's "\\~\\~\\~" (the underline under
    a DocBook NEWS page's release title) is text (see `map_prose`)."""
    return map_prose(markdown, functools.partial(_INLINE_ESCAPE.sub, r"\1"))
