"""program/retrieval/readers: each format becomes documents whose chunks keep heading paths and true offsets."""

from __future__ import annotations

import json
import time

import pytest

from program.base.errors import IngestError
from program.retrieval.chunking import chunk_document
from program.retrieval.readers import read
from program.retrieval.sections.markdown import heading_text
from program.retrieval.sections.markdown import shown_as_built as markdown_as_built
from program.retrieval.sections.rst import shown_as_built, shown_roles
from program.retrieval.sources import SourceFile

PYTHON = '''"""Widget tools: calibrate and mount widgets."""
import os

LIMIT = 3


def calibrate(widget):
    """Calibrate a widget – torque first."""
    return widget.torque * LIMIT


class Mount:
    """A wall mount."""

    size = 2

    def bolt(self):
        return "bolt"

    def hang(self):
        return "hang " * 40
'''

RST = """Widget manual
=============

Widgets turn gears.

Install
-------

Bolt it down::

    widget --bolt

    widget --check

Tighten the screws.

Calibrate
---------

Turn the dial.
"""


def source(path: str, text: str | bytes) -> SourceFile:
    data = text.encode() if isinstance(text, str) else text
    return SourceFile(root="/docs", path=path, origin=f"/docs/{path}", url=f"file:///docs/{path}", data=data)


def chunks_of(path: str, text: str, max_chars: int = 1200):
    (document,) = read(source(path, text), max_bytes=100_000)
    return document, chunk_document(document, max_chars=max_chars)


def assert_offsets(document, chunks):
    for chunk in chunks:
        first_words = " ".join(chunk.text.split()[:3])
        assert " ".join(document.text[chunk.start:chunk.end].split()).startswith(first_words)


def assert_ends(document, chunks):
    """A chunk's offsets hold its first and last lines, where the chunk leaves lines out between them."""
    for chunk in chunks:
        held = document.text[chunk.start:chunk.end]
        assert held.startswith(chunk.text.splitlines()[0]) and held.endswith(chunk.text.splitlines()[-1])


def test_markdown_takes_its_title_from_the_leading_heading_and_keeps_offsets():
    text = "# Widget manual\n\nWidgets turn gears.\n\n## Install\n\n" + "Bolt it down. " * 55 + "\n"
    document, chunks = chunks_of("guide/manual.md", text, max_chars=800)
    assert (document.title, document.kind, document.origin) == ("Widget manual", "markdown", "/docs/guide/manual.md")
    assert [c.heading_path for c in chunks] == [[], ["Install"]]
    assert chunks[1].title == "Widget manual > Install" and chunks[1].text.startswith("## Install")
    assert_offsets(document, chunks)


def test_a_markdown_page_s_front_matter_gives_its_title_and_is_in_no_chunk():
    text = "---\nsidebar_position: 999\ntitle: 'DSPy Cheatsheet'\n---\n\n# Cheats\n\nUse `dspy.Predict`.\n"
    document, chunks = chunks_of("cheatsheet.md", text)
    assert document.title == "DSPy Cheatsheet"
    assert [c.text for c in chunks] == ["# Cheats\n\nUse `dspy.Predict`."]
    assert_offsets(document, chunks)
    # without a title in it, the first heading is the title, even after a note that opens the page
    note_first = "---\nsidebar_position: 2\n---\n\n!!! warning \"Outdated\"\n\n# Built-in Datasets\n\nLoad them.\n"
    document, chunks = chunks_of("built-in-datasets.md", note_first)
    assert document.title == "Built-in Datasets" and "sidebar_position" not in " ".join(c.text for c in chunks)
    # Hugo's TOML front matter too; and a page that opens with a rule over prose has none
    assert chunks_of("hugo.md", '+++\ntitle = "Hugo page"\n+++\nBody.\n')[0].title == "Hugo page"
    ruled = "---\n\nA rule, then prose.\n\n---\n\nMore.\n"
    assert "A rule, then prose." in chunks_of("ruled.md", ruled)[1][0].text
    # MkDocs' `key: value` lines with a title among them (Python-Markdown's docs), but not a note that opens a page
    meta = "title: Authors\nsummary: who wrote it\n  and when\n\nPrimary Authors\n===============\n\nWaylan.\n"
    document, chunks = chunks_of("authors.md", meta)
    assert document.title == "Authors" and [c.text for c in chunks] == ["Primary Authors\n\nWaylan."]
    document, chunks = chunks_of("old.md", "Note: this page is outdated.\n\n# Setup\n\nRun it.\n")
    assert document.title == "Setup" and chunks[0].text.startswith("Note: this page is outdated.\n\n# Setup")


def test_a_block_of_link_targets_is_in_no_chunk_but_a_footnote_is():
    # MDX's pages end with their links' targets: 10 of its 210 chunks were only those
    text = ("# Extending MDX\n\nUse [remark][] and [rehype][] plugins.\n\n"
            "[remark]: https://github.com/remarkjs/remark\n[rehype]: <https://github.com/rehypejs/rehype> 'Rehype'\n\n"
            "[^1]: A footnote says something.\n\nSee [the guide]:\n[the guide]: /guide/\n")
    document, chunks = chunks_of("extending-mdx.md", text)
    assert [c.text for c in chunks] == ["# Extending MDX\n\nUse [remark][] and [rehype][] plugins.\n\n"
                                        "[^1]: A footnote says something.\n\nSee [the guide]:\n[the guide]: /guide/"]


def test_a_thematic_break_is_in_no_chunk_and_never_a_chunk_of_its_own():
    # 64 of the AWS guides' pages open with two rules over their title: 66 chunks were only rules
    text = "--------\n\n--------\n\n# AclConfiguration\n\nFilters by groups.\n\n* * *\n\nSetext\n---\n"
    document, chunks = chunks_of("API_AclConfiguration.md", text, max_chars=45)
    assert document.title == "AclConfiguration"
    assert [c.text for c in chunks] == ["# AclConfiguration\n\nFilters by groups.", "Setext"]
    assert_offsets(document, chunks)


SETEXT = """Widget guide
============

Widgets turn gears.

Installing
----------
Bolt it to the frame.

Two lines of a paragraph
are no heading
---

- nor is a list item
---

```
a fence
---
```

    indented code
    ---
"""


def test_a_setext_heading_cuts_a_section_and_its_underline_is_in_no_chunk():
    # many READMEs underline their headings: read as text, "Installing\n----------" headed nothing, and the
    # underlines went into the chunks
    document, chunks = chunks_of("README.md", SETEXT, max_chars=60)
    assert document.title == "Widget guide"
    assert [(c.heading_path, c.text) for c in chunks][:2] == [
        ([], "Widget guide\n\nWidgets turn gears."), (["Installing"], "Installing\n\nBolt it to the frame.")]
    assert all(c.heading_path == ["Installing"] for c in chunks[1:])  # the rest heads nothing
    assert not any(line.strip() in ("============", "----------") for c in chunks for line in c.text.split("\n"))
    assert "are no heading\n---" in chunks[2].text and "a fence\n---" in "".join(c.text for c in chunks)
    assert "indented code\n    ---" in chunks[-1].text
    for chunk in chunks:  # a chunk's span runs from its first block to its last, an underline between them
        blocks = chunk.text.split("\n\n")
        assert document.text[chunk.start:chunk.end].startswith(blocks[0])
        assert document.text[chunk.start:chunk.end].endswith(blocks[-1])


MDX = """import {Note} from '../_component/note.jsx'
export const info = {
  author: [{name: 'Titus'}],
  published: new Date('2022-02-01')
}

{
  /**
   * @typedef Props
   */
}

<Note type="info">
  **Note**: migrating is covered in our [guide](/migrating/).
</Note>

# MDX 2

The main change is that Node.js 16 is now the minimum. {/* more */}
Press <Kbd>Ctrl</Kbd> to <Button onClick={() => go(1)}>go</Button>.

```mdx
import {Chart} from './chart.jsx'

<Chart year={2024} />
```
"""


def test_an_mdx_page_loses_its_module_code_expressions_and_tags_but_not_its_text_or_examples():
    document, chunks = chunks_of("blog/v2.mdx", MDX)
    assert (document.title, document.kind) == ("MDX 2", "markdown")
    text = "\n".join(c.text for c in chunks)
    assert "**Note**: migrating is covered in our [guide](/migrating/)." in text
    assert "Node.js 16 is now the minimum." in text and "Press Ctrl to go." in text
    for code in ("export const", "author:", "@typedef", "<Note", "</Note>", "{/*", "<Kbd>", "onClick"):
        assert code not in text.split("```mdx")[0], code
    # fenced code is an example: it keeps its import and its component
    assert "import {Chart} from './chart.jsx'\n\n<Chart year={2024} />" in text


def test_unclosed_tags_braces_links_front_matter_titles_and_roles_are_read_in_linear_time():
    started = time.perf_counter()
    chunks_of("hostile.mdx", "# T\n\n" + "<A b={c " * 4_000 + "\n\n" + "<a " * 15_000 + "\n")
    chunks_of("hostile.md", "---\nkey: v\n" + "x: y\n" * 15_000)
    chunks_of("meta.md", "title: t\n" + "x: y\n   z\n" * 9_000 + "no colon")  # settings never closed
    chunks_of("setext.md", ("a\n" + "-" * 50 + "\n") * 1_000 + "=" * 40_000)
    chunks_of("targets.md", ("[" + "a" * 2_000 + "\n") * 20 + "[x]:" + " " * 40_000 + "\n")
    chunks_of("titles.rst", "T\n=\n\n" * 20_000)
    for roles in (":a:`" * 50_000, (":" + "a" * 100) * 5_000, ":a:" * 60_000 + "`", ":a:b:" * 40_000):
        shown_roles(roles)
    for directives in (".. " + "a" * 100_000, (".. a:" + "b" * 50) * 2_000, ".. a::\n" + " :b:\n" * 30_000):
        shown_as_built(directives)
    for markdown in ("[" * 100_000, "![a](" * 30_000, "[a](b " * 30_000 + '"', "<a " * 40_000, "\\" * 100_000):
        markdown_as_built(markdown)
    # subtle: about 1 s alone, and 2.7 s inside a full suite on 2 busy cores; what it guards against took
    # 13 s and more on one input (the heading pattern's cubic backtracking, see markdown._HEADING)
    assert time.perf_counter() - started < 6


def test_a_jupyter_notebook_reads_its_markdown_and_code_cells_in_order_without_outputs():
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"language_info": {"name": "python"}}, "cells": [
        {"cell_type": "markdown", "source": ["# Tutorial: RAG\n", "\n", "Off the shelf, `RAG` scores 55%."]},
        {"cell_type": "code", "source": "lm = dspy.LM('openai/gpt-4o-mini')", "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["noise from a run\n"]}]},
        {"cell_type": "raw", "source": "raw text"},
        {"cell_type": "markdown", "source": "![chart](data:image/png;base64," + "A" * 50_000 + ")\nThe chart."}]}
    document, chunks = chunks_of("tutorials/rag/index.ipynb", json.dumps(notebook))
    assert (document.title, document.kind) == ("Tutorial: RAG", "markdown")
    assert document.text == ("# Tutorial: RAG\n\nOff the shelf, `RAG` scores 55%.\n\n"
                             "```python\nlm = dspy.LM('openai/gpt-4o-mini')\n```\n\nchart\nThe chart.\n")
    assert len(chunks) == 1
    # a fence quoted in the code does not close the code's own fence
    quoting = {**notebook, "cells": [{"cell_type": "code", "source": 'PROMPT = """```json\n{}\n```"""'},
                                     {"cell_type": "markdown", "source": "## After the code"}]}
    document, chunks = chunks_of("quoting.ipynb", json.dumps(quoting), max_chars=40)
    assert document.text.startswith("````python\nPROMPT") and chunks[0].heading_path == []
    assert [c.heading_path for c in chunks][-1] == ["After the code"]
    # the fence names the notebook's language, unless it would break the fence's line
    for name, fence in (("c++", "```c++"), ("bad`name", "```python")):
        cpp = {**notebook, "metadata": {"language_info": {"name": name}}}
        assert fence + "\nlm = " in chunks_of("lab.ipynb", json.dumps(cpp))[0].text


def test_rst_section_titles_become_the_heading_path_and_a_literal_block_stays_whole():
    document, chunks = chunks_of("manual.rst", RST, max_chars=60)
    assert document.title == "Widget manual" and document.kind == "rst"
    assert [c.heading_path for c in chunks] == [[], ["Install"], ["Install"]]
    assert chunks[-1].text == "Tighten the screws.\n\nCalibrate\n\nTurn the dial."
    literal = next(c for c in chunks if "widget --bolt" in c.text)
    # the title is no chunk of its own: it opens the chunk of the block under it, without its underline
    assert "widget --check" in literal.text and literal.text.startswith("Install\n\nBolt it down::")
    assert_ends(document, chunks)


def test_an_rst_page_is_titled_by_its_first_section_title_after_the_directives_that_open_it():
    page = (".. currentmodule:: flask\n\n.. _async:\n\nUsing ``async`` and :func:`~asyncio.run`\n"
            + "=" * 41 + "\n\nRoutes can be async.\n\nWhen\n----\n\nAlways.\n")
    document, chunks = chunks_of("async-await.rst", page)
    assert document.title == "Using async and run"
    assert [c.title for c in chunks_of("async-await.rst", page, max_chars=20)[1]][-1] == "Using async and run > When"


def test_each_object_a_sphinx_page_describes_is_a_chunk_of_its_own_headed_by_its_name():
    page = ("Configuration\n=============\n\nValues\n------\n\n.. py:data:: SESSION_COOKIE_NAME\n\n"
            "    The name of the session cookie.\n\n    Default: ``'session'``\n\n.. py:data:: TESTING\n\n"
            "    Enable testing mode.\n\n.. versionadded:: 0.4\n   ``TESTING``\n\n"
            ".. function:: send_file(path, mimetype=None)\n\n    Send a file.\n\nMore\n----\n\nText.\n")
    _, chunks = chunks_of("config.rst", page)
    assert [(c.heading_path, c.text.splitlines()[0]) for c in chunks] == [
        (["Values", "SESSION_COOKIE_NAME"], "Configuration"),  # titles with no text of their own head the first object
        (["Values", "TESTING"], ".. py:data:: TESTING"),
        (["Values"], ".. versionadded:: 0.4"),  # what follows an object at the title's level is the title's
        (["Values", "send_file"], ".. function:: send_file(path, mimetype=None)"),
        (["More"], "More")]
    assert chunks[0].text.startswith("Configuration\n\nValues\n\n.. py:data:: SESSION_COOKIE_NAME")
    assert "Default: ``'session'``" in chunks[0].text and "Enable testing" not in chunks[0].text


def test_a_long_rst_directive_is_cut_between_its_rows():
    rows = "".join(f"   * - plugin-{i}\n     - Does thing {i} well.\n" for i in range(60))
    document, chunks = chunks_of("plugins.rst", f"Plugins\n=======\n\n.. list-table::\n\n{rows}", max_chars=300)
    assert len(chunks) > 5 and all(len(c.text) <= 300 for c in chunks)
    assert "plugin-59" in chunks[-1].text and all(c.heading_path == [] for c in chunks)
    assert_ends(document, chunks)


def test_an_rst_title_s_adornment_lines_are_in_no_chunk():
    overlined = "=====\nGuide\n=====\n\nRead me.\n\nSetup\n-----\nRun it.\n"
    document, chunks = chunks_of("guide.rst", overlined)
    assert document.title == "Guide" and [c.text for c in chunks] == ["Guide\n\nRead me.\n\nSetup\n\nRun it."]
    assert_ends(document, chunks)


def test_python_chunks_are_whole_functions_and_classes_under_the_module_summary():
    document, chunks = chunks_of("tools/widgets.py", PYTHON)
    assert document.title == "widgets.py: Widget tools: calibrate and mount widgets."
    assert [c.heading_path for c in chunks] == [[], ["def calibrate"], ["class Mount"]]
    function = chunks[1].text
    assert function.startswith("def calibrate") and "torque first" in function and function.endswith("LIMIT")
    assert "import os" in chunks[0].text and "Widget tools" not in chunks[0].text
    assert_offsets(document, chunks)
    # subtle: the en dash is three UTF-8 bytes; offsets count characters
    assert document.text[chunks[1].start:chunks[1].end] == function


def test_an_oversized_class_is_split_between_its_methods():
    _, chunks = chunks_of("widgets.py", PYTHON, max_chars=100)
    parts = [c for c in chunks if c.heading_path == ["class Mount"]]
    assert len(parts) == 2
    assert parts[0].text.startswith("class Mount") and "def bolt" in parts[0].text
    assert parts[1].text.startswith("    def hang")


def test_invalid_python_is_refused_with_its_line():
    with pytest.raises(IngestError, match="not valid Python .line 2"):
        read(source("bad.py", "x = 1\ndef (:\n"), max_bytes=1000)


TYPESCRIPT = '''import { readFile } from "fs";
import { join } from "path";

/** Reads the config file under a folder. */
export function readConfig(dir: string): string {
  return readFile(join(dir, "config.json"));
}

export class Store {
  get(key: string) { return key; }
}

export const add = (a: number, b: number) => a + b;
const LIMIT = 3;
'''

RUST = '''use std::collections::HashMap;
use std::fmt;

/// A point on the plane.
#[derive(Debug)]
pub struct Point { x: i32, y: i32 }

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "{}", self.x) }
}

fn count(m: HashMap<String, i32>) -> usize { m.len() }
'''

GO = '''package server

import (
\t"fmt"
\t"net/http"
)

// Serve starts the server — on port 80.
func Serve() { http.ListenAndServe(":80", nil) }

func (s *Server) Close() { fmt.Println("bye") }

type Server struct { addr string }
'''


@pytest.mark.parametrize("path,text,headings,doc_comment,imports", [
    ("src/store.ts", TYPESCRIPT, [[], ["function readConfig"], ["class Store"], ["function add"]],
     "/** Reads the config", {"function readConfig": ['from "fs"', 'from "path"'], "class Store": []}),
    ("src/point.rs", RUST, [[], ["struct Point"], ["impl fmt::Display for Point"], ["fn count"]],
     "/// A point on the plane.\n#[derive(Debug)]", {"impl fmt::Display for Point": ["use std::fmt;"],
                                                     "fn count": ["use std::collections::HashMap;"]}),
    ("server/serve.go", GO, [[], ["function Serve"], ["func (s *Server) Close"], ["type Server"]],
     "// Serve starts", {"function Serve": ['"net/http"'], "type Server": []}),
])
def test_typescript_rust_and_go_chunk_one_definition_each_with_its_doc_comment_and_imports(
        path, text, headings, doc_comment, imports):
    document, chunks = chunks_of(path, text)
    assert [chunk.heading_path for chunk in chunks] == headings
    for chunk in chunks[1:]:  # the offsets span the definition; the imports before it are context
        own = " ".join(document.text[chunk.start:chunk.end].split())
        assert " ".join(chunk.text.split()).endswith(own)
    assert doc_comment in chunks[1].text  # the doc comment (and attribute) stays with what it documents
    texts = {chunk.heading_path[0]: chunk.text for chunk in chunks[1:]}
    for heading, used in imports.items():
        assert all(line in texts[heading] for line in used)
        if not used:  # a definition that uses no import carries none
            assert "import" not in texts[heading] and "use " not in texts[heading]


def test_an_oversized_typescript_class_is_cut_between_its_members():
    text = "export class Big {\n" + "".join(f"  m{i}() {{ return '{'x' * 100}'; }}\n" for i in range(20)) + "}\n"
    document, chunks = chunks_of("big.ts", text, max_chars=1200)
    assert len(chunks) > 1 and {tuple(c.heading_path) for c in chunks} == {("class Big",)}
    assert all(c.text.lstrip().startswith(("export class Big", "m")) for c in chunks)
    assert_offsets(document, chunks)


def test_javascript_is_read_when_included_and_a_minified_file_is_refused():
    from program.retrieval.readers import DEFAULT_INCLUDE

    assert "*.ts" in DEFAULT_INCLUDE and "*.js" not in DEFAULT_INCLUDE
    _, chunks = chunks_of("app.js", "function main() {\n  return 1;\n}\n")
    assert [c.heading_path for c in chunks] == [["function main"]]
    with pytest.raises(IngestError, match="app.min.js looks minified"):
        read(source("app.min.js", "var a=1;" * 400), max_bytes=100_000)


def test_plain_text_and_html():
    document, chunks = chunks_of("notes.txt", "First note.\n\nSecond note.\n")
    assert (document.title, [c.text for c in chunks]) == ("notes", ["First note.\n\nSecond note."])
    assert_offsets(document, chunks)
    titled, _ = chunks_of("2.38.0.txt", "Git v2.38 Release Notes\n=======================\n\nUI, Workflows & Features\n")
    assert (titled.kind, titled.title) == ("text", "Git v2.38 Release Notes")
    page = "<html><body><article><h1>Gears</h1><p>Gears mesh with sprockets in every widget we make.</p></article></body></html>"
    (html,) = read(source("gears.html", page), max_bytes=10_000)
    assert html.kind == "markdown" and html.title == "Gears" and "sprockets" in html.text


SPHINX = ("<html><head><title>tomllib — Parse TOML files — Python 3.12 documentation</title></head><body>"
          "<div class='body' role='main'><section id='module-tomllib'>"
          "<h1><code>tomllib</code> — Parse TOML files<a class='headerlink' href='#module-tomllib' "
          "title='Link to this heading'>¶</a></h1><p>New in version 3.11. This module parses TOML files.</p>"
          "<h2>lru_cache(<em>maxsize=128</em>)<a class='headerlink' href='#x'>¶</a></h2>"
          "<p>Decorator to wrap a function with a memoizing callable that saves up to the maxsize most recent "
          "calls.</p></section></div></body></html>")


def test_a_sphinx_page_s_title_headings_and_quotes_carry_no_pilcrow_escape_or_mark():
    (page,) = read(source("library/tomllib.html", SPHINX), max_bytes=100_000)
    assert page.title == "tomllib — Parse TOML files"
    _, chunks = chunks_of("library/tomllib.html", SPHINX, max_chars=120)
    paths = [" / ".join(c.heading_path) for c in chunks]
    assert "¶" not in page.text and not any("¶" in p or "\\" in p or "*" in p for p in paths)
    assert any(p.endswith("lru_cache(maxsize=128)") for p in paths)


RUSTDOC = ("<html><head><title>BTreeMap in std::collections - Rust</title></head><body><main><section id='main-content'>"
           "<h1>Struct <span>BTreeMap</span><button id='copy-path' title='Copy item path to clipboard'>Copy item path</button>"
           "</h1><p>An ordered map based on a B-Tree, as in HashMap&lt;K, V&gt; but sorted by its keys.</p>"
           "<h2 id='examples'><a class='anchor' href='#examples'>§</a>Examples</h2>"
           "<p>Call first_key_value to read the *smallest* key, or see <a href='#method.iter'>iter</a> for all.</p>"
           "<p># not a heading, though it starts like one</p>"
           "<pre><code>let escaped = \"a\\_b\"; // a_b</code></pre>"
           "<p>The pop_last method removes the largest key of the map and returns it with its value.</p>"
           "</section></main></body></html>")


def test_a_rustdoc_page_loses_its_buttons_permalinks_and_escapes_but_not_its_code():
    (page,) = read(source("std/collections/struct.BTreeMap.html", RUSTDOC), max_bytes=100_000)
    assert page.title == "Struct BTreeMap"  # not "Struct BTreeMap Copy item path"
    assert "Copy item path" not in page.text and "§" not in page.text
    # an identifier reads as a question spells it: "first\\_key\\_value" was three BM25 terms
    assert "first_key_value" in page.text and "HashMap<K, V>" in page.text and "pop_last" in page.text
    assert "iter" in page.text  # a link to a place on the page that has words is content
    assert 'let escaped = "a\\_b";' in page.text  # code keeps its backslashes
    _, chunks = chunks_of("std/collections/struct.BTreeMap.html", RUSTDOC, max_chars=120)
    paths = [" / ".join(c.heading_path) for c in chunks]
    assert "Examples" in paths and not any("not a heading" in p for p in paths)  # a block-start escape stays


# DocBook's HTML (Valgrind's manual): every heading sits alone in wrapper divs,
# and no element marks the main content
DOCBOOK = ("<html><head><title>4. Memcheck: a memory error detector</title></head><body>"
           "<div class='navheader'><table><tr><td><a href='manual-core.html'>Prev</a></td>"
           "<td><a href='index.html'>Up</a></td><td><a href='cg-manual.html'>Next</a></td></tr></table></div>"
           "<div class='chapter'><div class='titlepage'><div><div><h1 class='title'><a name='mc'></a>"
           "4. Memcheck: a memory error detector</h1></div></div></div>"
           "<div class='sect1'><div class='titlepage'><div><div><h2 class='title'><a name='mc.overview'></a>"
           "4.1.&#160;Overview</h2></div></div></div><p>Memcheck is a memory error detector. It can detect the "
           "following problems that are common in C and C++ programs, which are difficult to find by other "
           "means and often remain undetected for long periods, then cause occasional crashes.</p>"
           "<div class='itemizedlist'><ul><li><p>Accessing memory you should not.</p></li>"
           "<li><p>Using undefined values.</p></li></ul></div></div>"
           "<div class='sect1'><div class='titlepage'><div><div><h2 class='title'><a name='mc.leaks'></a>"
           "4.2.&#160;Memory leak detection</h2></div></div></div>"
           "<p>Memcheck keeps track of all heap blocks issued in response to calls to malloc.</p></div>"
           "</div></body></html>")


def test_a_docbook_page_keeps_its_wrapped_headings_and_lists():
    document, chunks = chunks_of("html/mc-manual.html", DOCBOOK, max_chars=90)
    assert document.title == "4. Memcheck: a memory error detector"
    assert "Using undefined values." in document.text and "Prev" not in document.text
    assert "heap blocks issued" in document.text  # the last section too
    assert {" / ".join(c.heading_path) for c in chunks} >= {"4.1. Overview", "4.2. Memory leak detection"}


# texinfo's HTML (GNU manuals: libffi, Nettle): a navigation line over each node, and one under it
# whose links carry no `rel` but the index's
TEXINFO = ("<html><head><title>Types (libffi)</title></head><body><div class='section' id='Types'>"
           "<div class='header'><p>Next: <a href='Multiple-ABIs.html' accesskey='n' rel='next'>Multiple ABIs</a>, "
           "Previous: <a href='Simple-Example.html' rel='prev'>Simple Example</a>, Up: <a href='Using-libffi.html' "
           "rel='up'>Using libffi</a> &nbsp; [<a href='Index.html' title='Index' rel='index'>Index</a>]</p></div><hr>"
           "<h3 class='section'>2.3 Types</h3><p>Libffi provides a number of built-in type descriptors, read on in "
           "<a href='Structures.html' rel='next'>the next section</a> for structures.</p>"
           "<table><tr><td><a href='Index.html' rel='index'>Index</a></td><td>Function and concept index.</td></tr>"
           "</table><div class='header'><p>Next: <a href='Multiple-ABIs.html'>Multiple ABIs</a>, Up: "
           "<a href='Using-libffi.html'>Using libffi</a> &nbsp; [<a href='Index.html' rel='index'>Index</a>]</p>"
           "</div></div></body></html>")


def test_a_texinfo_page_loses_its_navigation_lines_but_not_a_sentence_that_links_on():
    document, _ = chunks_of("html/Types.html", TEXINFO, max_chars=400)
    assert "Previous" not in document.text and "Up:" not in document.text and "Next:" not in document.text
    assert "read on in the next section for structures" in " ".join(document.text.split())
    assert "Function and concept index." in document.text and "Index" in document.text  # a table row keeps its cells


# gtk-doc's API reference (libxslt's): a navigation table of image links and the manual's name over each page
GTKDOC = ("<html><head><title>security: interface for the libxslt security framework</title></head><body>"
          "<table class='navigation' summary='Navigation header'><tr><td><a accesskey='p' href='libxslt-preproc.html'>"
          "<img src='left.png' alt='Prev'/></a></td><td><a accesskey='u' href='general.html'><img src='up.png' alt='Up'/>"
          "</a></td><th>libxslt Reference Manual</th></tr></table><h2>security</h2><p>the libxslt security framework "
          "allow to restrict the access to new resources from the stylesheet at runtime.</p><h3>xsltCheckRead ()</h3>"
          "<p>Check if the resource is allowed to be read</p><table><tr><td>Returns:</td><td>1 if read is allowed, 0 if "
          "not</td></tr></table></body></html>")


def test_a_gtk_doc_page_loses_its_navigation_table_but_keeps_its_tables():
    document, _ = chunks_of("libxslt-security.html", GTKDOC, max_chars=400)
    assert "Reference Manual" not in document.text and "| |" not in document.text
    assert "1 if read is allowed, 0 if not" in document.text


# a code block inside a list item (the Cargo book) and multi-line code inside a paragraph (Valgrind's
# manual): trafilatura glues the opening fence to the text before it, or indents it past a fence's
GLUED = ("<html><head><title>Profiles</title></head><body><main><h1>Profiles</h1><ul><li>Add to your "
         "<code>Cargo.toml</code>: <pre><code>[profile.dev]\ncodegen-backend = \"cranelift\"</code></pre></li>"
         "<li>Run Cargo with the option.</li></ul><p>Collection is toggled by the client request\n      <code>"
         "\n      \n      CALLGRIND_TOGGLE_COLLECT\n      ;</code>\n      at the needed code positions.</p>"
         "<h2>Build dependencies</h2><p>Build scripts are built with the dev profile_first.</p></main></body></html>")


def test_a_code_fence_glued_to_its_line_opens_a_block_and_what_follows_is_prose_again():
    document, chunks = chunks_of("profiles.html", GLUED, max_chars=80)
    assert "Cargo.toml`:\n```\n[profile.dev]" in document.text and "client request\n```\n" in document.text
    # the heading after the blocks is a heading, and the prose under it loses its escapes
    assert "Build dependencies" in {" / ".join(c.heading_path) for c in chunks}
    assert "profile_first" in document.text


# a DocBook release-notes page (Valgrind's NEWS): plain text lines, a release title underlined with tildes
NEWS = ("<html><head><title>2. NEWS</title></head><body><div class='chapter'><h1>2. NEWS</h1><div "
        "class='literallayout'><p>Release&nbsp;3.19.0&nbsp;(11&nbsp;Apr&nbsp;2022)<br>~~~~~~~~~~~~~~~~~~~~~~~~~~~~<br>"
        + "".join(f"Fixed&nbsp;bug&nbsp;{i}&nbsp;in&nbsp;the&nbsp;memory&nbsp;checker.<br>" for i in range(30))
        + "</p></div></div></body></html>")


def test_a_tilde_underline_is_text_not_a_code_fence():
    document, chunks = chunks_of("dist.news.html", NEWS, max_chars=300)
    # trafilatura writes only backtick fences: unescaped, the underline had made the page one code block
    assert "\\~\\~\\~" in document.text and all(len(c.text) <= 300 for c in chunks)
    assert "Fixed bug 29 in the memory checker." in " ".join(document.text.split())


# npm's command pages: a table of contents, its heading over a list of links to the page's own sections
NPM = ("<html><head><title>npm-install</title></head><body><section id='content'><header><h1>npm-install</h1>"
       "</header><section id='table_of_contents'><h2>Table of contents</h2><div id='_table_of_contents'><ul>"
       "<li><a href='#synopsis'>Synopsis</a></li><li><a href='#configuration'>Configuration</a></li><ul><li>"
       "<a href='#save'><code>save</code></a></li></ul></ul></div></section><div id='_content'><h3 id='synopsis'>"
       "Synopsis</h3><p>npm install installs a package and any packages that it depends on.</p><h3 "
       "id='configuration'>Configuration</h3><h4 id='save'>save</h4><ul><li><a href='#save-dev'>save-dev</a></li>"
       "</ul><p>Default: true. Saves installed packages "
       "to a package.json file as dependencies. See <a href='#synopsis'>Synopsis</a>.</p></div></section>"
       "</body></html>")


def test_a_table_of_contents_goes_with_its_heading_and_the_sections_after_it_are_not_under_it():
    document, chunks = chunks_of("commands/npm-install.html", NPM, max_chars=120)
    assert "Table of contents" not in document.text
    # a heading whose section goes on after its list of links is a section
    assert ["Configuration", "save"] in [c.heading_path for c in chunks]
    assert "See Synopsis." in document.text  # a sentence's link to its own page stays


# a DocBook example (Valgrind's manual) and a gtk-doc prototype (libxslt's): a `<pre>` whose text does not
# look like code to trafilatura, and one whose lines are broken by `<br>`
PRE = ("<html><head><title>3. Using the Valgrind gdbserver</title></head><body><main><h1>3. Using the Valgrind "
       "gdbserver</h1><p>Example: on the Android system, execute the following:</p><pre class='screen'>valgrind "
       "--vgdb-error=0 --vgdb=yes prog\n# and then in another shell, run:\nvgdb --port=1234\n</pre><p>GDB then "
       "connects to the forwarder.</p><pre class='programlisting'>void\t<a href='#x'>xsltApplyImports</a>"
       "\t(xsltTransformContextPtr ctxt, <br/>\t\t xmlNodePtr node);\nvoid\txsltComment\t(xmlNodePtr inst);"
       "</pre><p>Process the XSLT apply-imports element.</p></main></body></html>")


def test_a_pre_is_a_code_block_whatever_its_text_looks_like():
    document, chunks = chunks_of("manual-core-adv.html", PRE, max_chars=400)
    assert "```\nvalgrind --vgdb-error=0 --vgdb=yes prog\n# and then in another shell, run:\n" in document.text
    assert all(c.heading_path == [] for c in chunks)  # the shell comment is no heading
    assert "xsltApplyImports\t(xsltTransformContextPtr ctxt, \n\t\t xmlNodePtr node);\nvoid" in document.text


# Expat's reference, as it ships: each function's description is loose text in a `<div>`, beside a list
# or an emphasis, which trafilatura dropped on this page (and kept on a shorter one)
EXPAT = """<html><head><title>Expat XML Parser</title></head><body><div class='content'><p>Now that we've seen
what a mess the top-level parsing loop can become, what have we gained?  Very simply, we can now use the
<code><a href="#XML_StopParser">XML_StopParser</a></code> function to stop parsing, without having to go to
great lengths to avoid additional processing that we're expecting to ignore.  As a bonus, we get to stop
parsing <em>temporarily</em>, and come back to it when we're ready.</p>
<p>To stop parsing from a handler function, use the <code><a href="#XML_StopParser">XML_StopParser</a></code>
function.  This function takes two arguments; the parser being stopped and a flag indicating whether the parse
can be resumed in the future.</p>
<hr />
<h2><a name="reference" id="reference">Expat Reference</a></h2>
<h3><a name="creation" id="creation">Parser Creation</a></h3>
<h4 id="XML_ParserCreate">XML_ParserCreate</h4>
<pre class="fcndec">
XML_Parser XMLCALL
XML_ParserCreate(const XML_Char *encoding);
</pre>
<div class="fcndef">
Construct a new parser. If encoding is non-null, it specifies a
character encoding to use for the document. This overrides the document
encoding declaration. There are four built-in encodings:
<ul>
<li>US-ASCII</li>
<li>UTF-8</li>
<li>UTF-16</li>
<li>ISO-8859-1</li>
</ul>
Any other value will invoke a call to the UnknownEncodingHandler.
</div>
<h4 id="XML_ParserCreateNS">XML_ParserCreateNS</h4>
<pre class="fcndec">
XML_Parser XMLCALL
XML_ParserCreateNS(const XML_Char *encoding,
                   XML_Char sep);
</pre>
<div class="fcndef">
Constructs a new parser that has namespace processing in effect. Namespace
expanded element names and attribute names are returned as a concatenation
of the namespace URI, <em>sep</em>, and the local part of the name. This
means that you should pick a character for <em>sep</em> that can't be part
of an URI. Since Expat does not check namespace URIs for conformance, the
only safe choice for a namespace separator is a character that is illegal
in XML. For instance, <code>'\\xFF'</code> is not legal in UTF-8, and
<code>'\\xFFFF'</code> is not legal in UTF-16. There is a special case when
<em>sep</em> is the null character <code>'\\0'</code>: the namespace URI and
the local part will be concatenated without any separator - this is intended
to support RDF processors. It is a programming error to use the null separator
with <a href="#XML_SetReturnNSTriplet">namespace triplets</a>.</div>
<p><strong>Note:</strong>
Expat does not validate namespace URIs (beyond encoding)
against RFC 3986 today (and is not required to do so with regard to
the XML 1.0 namespaces specification) but it may start doing that
in future releases.
</p>
</div></body></html>"""


def test_a_div_s_loose_text_is_read_beside_its_list_and_its_emphasis():
    document, _ = chunks_of("reference.html", EXPAT, max_chars=400)
    text = " ".join(document.text.split())
    assert "There are four built-in encodings: - US-ASCII - UTF-8" in text
    assert "Constructs a new parser that has namespace processing in effect." in text
    assert "namespace URI, *sep*, and the local part" in text  # the emphasis stays inside its sentence


NODE = ("<html><head><title>OS | Node.js v20.20.2 Documentation</title></head><body><div id='content'>"
        "<header><h1>Node.js v20.20.2 documentation</h1></header><div id='apicontent'><h2>OS</h2>"
        "<p>The node:os module provides operating system-related utility methods and properties.</p>"
        "<h3>os.EOL</h3><p>The operating system-specific end-of-line marker: a newline on POSIX.</p>"
        "</div></div></body></html>")


@pytest.mark.parametrize("page, title", [
    (NODE, "OS"),  # the site's banner heading is no title, and no heading of any chunk
    (NODE.replace("<header><h1>Node.js v20.20.2 documentation</h1></header>", ""), "OS"),
    (NODE.replace("OS | Node.js v20.20.2 Documentation", "Operating system"), "Node.js v20.20.2 documentation"),
    (SPHINX, "tomllib — Parse TOML files"),  # the page's own heading, as its <title> has it too
])
def test_an_html_title_is_the_pages_own_heading_or_its_title_tags_page_part(page, title):
    (document,) = read(source("api/os.html", page), max_bytes=100_000)
    assert document.title == title
    chunks = chunk_document(document, max_chars=90)
    assert not any("Node.js" in c.title for c in chunks) or title.startswith("Node.js")


def test_inline_html_in_a_markdown_heading_is_not_its_title_but_an_escaped_generic_is():
    page = "# Datasets<a name=\"howitworks-datasets\"></a>\n\n## Time Boundaries<a name=\"tb\"></a>\n\nHourly.\n\n## Vec\\<T\\>\n\nA vector.\n"
    (doc,) = read(source("guide/datasets.md", page), max_bytes=100_000)
    _, chunks = chunks_of("guide/datasets.md", page, max_chars=40)
    assert doc.title == "Datasets"
    paths = [" / ".join(c.heading_path) for c in chunks]
    assert "Time Boundaries" in paths and not any("<a" in p for p in paths)
    assert heading_text("Vec\\<T\\> and <code>into</code>") == "Vec<T> and into"


def test_a_heading_line_of_many_spaces_is_cut_in_linear_time():
    started = time.perf_counter()
    document, _ = chunks_of("spaces.md", "# a" + " " * 20_000 + "b\n\ntext\n")
    assert time.perf_counter() - started < 2 and document.title == "a b"


def test_records_give_one_document_each_and_same_titles_stay_apart():
    lines = [{"title": "Mercury", "text": "The planet."}, {"title": "Mercury", "text": "The element."},
             {"title": "Venus", "text": "A planet.", "id": "v1", "url": "https://example.org/venus"}]
    documents = read(source("facts.jsonl", "\n".join(json.dumps(r) for r in lines)), max_bytes=10_000)
    assert [d.title for d in documents] == ["Mercury", "Mercury", "Venus"]
    assert len({d.doc_id for d in documents}) == 3 and documents[2].url == "https://example.org/venus"
    as_list = read(source("facts.json", json.dumps(lines)), max_bytes=10_000)
    assert [d.text for d in as_list] == [d.text for d in documents]


@pytest.mark.parametrize("path, text, message", [
    ("facts.jsonl", '{"title": "A", "text": "a"}\n{"title": "B"}\n', "facts.jsonl: record 2: text: Field required"),
    ("facts.jsonl", '{"title": "A", "text": "a"}\n{oops\n', "facts.jsonl: record 2 is not valid JSON"),
    ("facts.json", '{"title": "A", "text": "a"}', "expected a JSON list"),
    ("blob.md", b"\xff\xfe\x00\x81", "not a UTF-8 text file"),
    ("empty.md", "  \n", "no text to index"),
    ("big.md", "x" * 2000, "larger than 1000 bytes"),
    ("lab.ipynb", '{"cells": [', "lab.ipynb is not a Jupyter notebook"),
    ("lab.ipynb", '{"worksheets": []}', "it has no list of cells"),
    ("lab.ipynb", '{"nbformat": 3, "cells": []}', "a notebook of format 3; only format 4 is read"),
])
def test_unreadable_files_are_refused_naming_the_file(path, text, message):
    with pytest.raises(IngestError, match=message):
        read(source(path, text), max_bytes=1000)
