"""program/retrieval/chunking.py: paragraphs stay whole, markdown and plain text follow headings, a long list is cut
between its items and a long table between its rows under its header, code fences never split."""

from program.retrieval.chunking import MAX_CHARS, Document, chunk_document
from program.retrieval.sections.plain_text import text_sections


def markdown(text: str) -> Document:
    return Document(doc_id="guide", title="Guide", text=text, url="https://example.org/guide", kind="markdown")


def test_a_paragraph_is_one_chunk_however_long():
    text = "  ".join(f"Sentence {i} of a long paragraph." for i in range(300))
    chunks = chunk_document(Document(doc_id="p", title="Long", text=text), max_chars=200)
    assert [c.text for c in chunks] == [text]
    assert (chunks[0].doc_id, chunks[0].chunk_index, chunks[0].title) == ("p", 0, "Long")


def test_blank_lines_separate_paragraph_chunks():
    chunks = chunk_document(Document(doc_id="p", title="T", text="First one.\n\n\nSecond one.\n"))
    assert [(c.chunk_index, c.text) for c in chunks] == [(0, "First one."), (1, "Second one.")]


def test_markdown_chunks_carry_their_heading_path():
    text = "# Setup\n\nIntro.\n\n## Install\n\n" + "Install words. " * 45 + "\n\n# Usage\n\n" + "Usage words. " * 40
    chunks = chunk_document(markdown(text), max_chars=700)
    assert [c.title for c in chunks] == ["Guide > Setup", "Guide > Setup > Install", "Guide > Usage"]
    assert chunks[1].text.startswith("## Install")
    assert all(c.url == "https://example.org/guide" for c in chunks)


def test_small_sections_are_packed_together():
    text = "\n\n".join(f"## Part {i}\n\nShort body {i}." for i in range(5))
    chunks = chunk_document(markdown(text), max_chars=1000)
    assert len(chunks) == 1
    assert chunks[0].title == "Guide > Part 0"
    assert all(f"## Part {i}" in chunks[0].text for i in range(5))


def test_a_large_section_is_cut_between_paragraphs_and_keeps_its_path():
    body = "\n\n".join(f"Paragraph {i}. " + "word " * 50 for i in range(6))
    chunks = chunk_document(markdown(f"# Big\n\n{body}"), max_chars=600)
    assert len(chunks) > 1
    assert {c.title for c in chunks} == {"Guide > Big"}
    assert all(len(c.text) <= 600 for c in chunks)
    assert "\n\n".join(c.text for c in chunks) == f"# Big\n\n{body}"


def test_a_code_fence_is_never_split_even_when_too_long():
    code = "```python\n" + "\n\n".join(f"# step {i}\nx{i} = {i}" for i in range(80)) + "\n```"
    text = f"# Code\n\nBefore.\n\n{code}\n\nAfter."
    chunks = chunk_document(markdown(text), max_chars=300)
    holding = [c for c in chunks if "```python" in c.text]
    assert len(holding) == 1 and code in holding[0].text
    # the "# step" lines inside the fence are code, not headings
    assert all("step" not in c.title for c in chunks)
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))


def test_a_heading_stays_with_the_block_under_it_however_long_that_block():
    changes = "\n".join(f"- Fixed bug {i} in the resolver." for i in range(40))  # one block, past max_chars
    chunks = chunk_document(markdown(f"# Changelog\n\nRecent changes.\n\n### Added\n\n{changes}\n\n### Fixed\n\nNothing."),
                            max_chars=300)
    assert not any(c.text.strip() in ("### Added", "### Fixed") for c in chunks)
    added = next(c for c in chunks if c.text.startswith("### Added"))
    assert added.text.startswith("### Added\n\n- Fixed bug 0 in the resolver.") and added.title == "Guide > Changelog > Added"


def test_a_long_list_with_no_blank_line_is_cut_between_its_items():
    options = "\n".join(f"- `--option-{i}=<yes|no> [default: no]`\n  What option {i} turns on." for i in range(60))
    chunks = chunk_document(markdown(f"# Options\n\n{options}"), max_chars=300)
    assert all(len(c.text) <= 300 for c in chunks)
    # every option is in a chunk with its own description, so search can find the one asked for
    assert all(any(f"`--option-{i}=<yes|no> [default: no]`\n  What option {i} turns on." in c.text for c in chunks)
               for i in range(60))
    text = f"# Options\n\n{options}"
    assert "\n".join(c.text for c in chunks) == text and all(c.text == text[c.start:c.end] for c in chunks)


def test_a_table_with_no_blank_line_is_cut_between_its_rows():
    rows = "\n".join(f"| Setting{i} | The default is {i} seconds. |" for i in range(40))
    table = f"| Name | Description |\n| --- | --- |\n{rows}"
    chunks = chunk_document(markdown(f"# Settings\n\n{table}"), max_chars=400)
    assert len(chunks) > 1 and all(len(c.text) <= 400 for c in chunks)
    assert all(line.startswith("|") for c in chunks[1:] for line in c.text.splitlines() if line)


def test_each_later_piece_of_a_cut_table_opens_under_its_header_row():
    header = "| Quota | Default | Adjustable |\n| --- | ---: | :-: |"
    rows = [f"| Quota number {i} | {i * 5} | Yes |" for i in range(40)]
    text = "# Quotas\n\nThe quotas of a region:\n" + header + "\n" + "\n".join(rows)
    chunks = chunk_document(markdown(text), max_chars=400)
    assert len(chunks) > 2 and all(len(c.text) <= 400 for c in chunks)
    # a row of numbers alone does not say what it counts: each later piece is read under the header
    assert all(c.text.startswith(header + "\n\n| Quota number") for c in chunks[1:])
    assert [line for c in chunks for line in c.text.splitlines() if line.startswith("| Quota number")] == rows
    # the header is shown, not claimed: a chunk's offsets still span only its own rows
    assert all(text[c.start:c.end] == c.text.removeprefix(header + "\n\n") for c in chunks[1:])


def test_blocks_packed_after_a_table_s_last_piece_leave_room_for_its_header():
    header = "| Quota | Default | Adjustable |\n| --- | ---: | :-: |"
    rows = "\n".join(f"| Quota number {i} | {i * 5} | Yes |" for i in range(20))
    after = "A paragraph after the table that explains what the quotas mean for a region.\n\nAnother paragraph."
    chunks = chunk_document(markdown(f"# Quotas\n\n{header}\n{rows}\n\n{after}"), max_chars=400)
    # the header a piece is shown under is part of its chunk's text, so it counts toward the size
    assert chunks[1].text.startswith(header) and all(len(c.text) <= 400 for c in chunks)
    assert "Another paragraph." in chunks[-1].text


def test_a_cut_list_and_a_table_with_a_long_header_carry_no_header():
    wide = "| " + " | ".join(f"Column {i} of a very wide table" for i in range(12)) + " |"
    rows = "\n".join(f"| {i} |" + " x |" * 11 for i in range(40))
    items = "\n".join(f"- item {i} of a long list with no blank line" for i in range(40))
    text = f"# Wide\n\n{wide}\n{rows}\n\n# List\n\n{items}"
    chunks = chunk_document(markdown(text), max_chars=400)
    assert all(c.text == text[c.start:c.end] for c in chunks)


def test_a_long_item_is_cut_between_its_lines_but_never_inside_a_code_fence():
    prose = "\n".join(f"Line {i} of a wrapped paragraph in one item." for i in range(20))
    code = "```\n" + "\n".join(f"step_{i}()" for i in range(60)) + "\n```"
    chunks = chunk_document(markdown(f"# Item\n\n- {prose}\n{code}\n- Next item."), max_chars=300)
    assert sum(code in c.text for c in chunks) == 1
    assert all(len(c.text) <= 300 for c in chunks if code not in c.text)
    assert any("Line 5 " in c.text and code not in c.text for c in chunks)


def test_a_paragraphs_document_keeps_a_long_list_whole():
    items = "\n".join(f"- item {i}" for i in range(200))
    chunks = chunk_document(Document(doc_id="p", title="P", text=items), max_chars=300)
    assert [c.text for c in chunks] == [items]


RULE = "=" * 78
VIM_HELP = (  # the shape of Vim's autocmd.txt: a rule over each numbered heading, one-line paragraphs
    "*autocmd.txt*   For Vim version 9.0.\n\nAutomatic commands\t\t\t\t*autocommand*\n\n"
    f"{RULE}\n4. Listing autocommands\t\t\t\t\t*autocmd-list*\n\n"
    ":au[tocmd] [group] {event} {aupat}\n\t\t\tShow the autocommands associated with {event} and\n\t\t\t{aupat}.\n\n"
    ":au[tocmd] [group]\tShow all autocommands.\n\n"
    f"{RULE}\n7. Buffer-local autocommands\t*autocmd-buflocal* *autocmd-buffer-local*\n"
    "\t\t\t\t\t*<buffer=N>* *<buffer=abuf>* *E680*\n\n"
    "Buffer-local autocommands are attached to a specific buffer.\n\n"
    "If you don't want to remove all autocommands, use a variable: >\n\n\t:if !exists(\"loaded\")\n\t:endif\n")


def text(body: str) -> Document:
    return Document(doc_id="autocmd", title="autocmd", text=body, kind="text")


def test_a_plain_text_manual_is_cut_at_the_rules_over_its_headings_and_its_paragraphs_packed():
    assert [s.path for s in text_sections(VIM_HELP)] == [
        [], ["4. Listing autocommands *autocmd-list*"],
        ["7. Buffer-local autocommands *autocmd-buflocal* *autocmd-buffer-local*"]]
    chunks = chunk_document(text(VIM_HELP), max_chars=300)
    assert len(chunks) == 2 and chunks[1].title == "autocmd > 7. Buffer-local autocommands *autocmd-buflocal* *autocmd-buffer-local*"
    # a one-line paragraph is read with its neighbours, and an example with the sentence that opens it
    assert "4. Listing autocommands" in chunks[0].text and "Show all autocommands." in chunks[0].text
    assert chunks[1].text.endswith(":endif") and "use a variable: >" in chunks[1].text and "*E680*" in chunks[1].text
    assert not any("=====" in c.text for c in chunks)  # a rule is no text of any chunk
    assert [VIM_HELP[c.start:c.end][-30:] for c in chunks] == [c.text[-30:] for c in chunks]


def test_a_plain_text_heading_can_be_underlined_and_a_long_block_is_cut_between_its_lines():
    table = "\n".join(f"CTRL-{chr(65 + i)}\tcommand number {i} of a table with no blank line" for i in range(26))
    body = (f"Release Notes\n=============\n\nIntro.\n\nFixes since v2.38\n-----------------\n\n{table}\n\n"
            "Not a heading\n---\nis a line over three dashes in prose.\n")
    chunks = chunk_document(text(body), max_chars=400)
    assert {tuple(c.heading_path) for c in chunks} == {("Release Notes",), ("Release Notes", "Fixes since v2.38")}
    # a heading shares its chunk with the first piece under it
    assert all(len(c.text) <= 400 for c in chunks if not c.text.startswith("Fixes")) and len(chunks) >= 4
    assert "Not a heading\n---" in chunks[-1].text
    # a heading's underline is no text of any chunk: the 0.5B gave "Notes =====" as a short answer
    assert chunks[0].text == "Release Notes\n\nIntro." and not any("=====" in c.text or "-----" in c.text for c in chunks)


def test_a_rule_over_a_long_line_or_an_indented_underlined_line_marks_no_heading():
    body = (f"{RULE}\n{'A paragraph line that runs on well past what any heading would hold, ' * 2}\n\n"
            "    indented line\n    -------------\n")
    assert [c.heading_path for c in chunk_document(text(body))] == [[]]


def test_a_file_of_thousands_of_imports_and_functions_gives_each_function_its_own_import():
    count = 3000
    text = "".join(f"import {{ name{i} }} from './mod{i}';\n" for i in range(count)) + "\n" + "".join(
        f"export function f{i}(x: number): number {{\n  return name{i}(x) + 1;\n}}\n\n" for i in range(count))
    chunks = chunk_document(Document(doc_id="d", title="t", text=text, kind="typescript"))
    f7 = next(c for c in chunks if c.heading_path == ["function f7"])
    assert f7.text.startswith("import { name7 } from './mod7';") and "name70" not in f7.text


def test_a_function_with_no_members_to_cut_between_is_cut_between_its_lines():
    for text in ["fn huge() {\n" + "    {\n" * 66_000 + "}\n",  # 400 KB, one `{` a line, never closed
                 "fn huge() {\n    let s = [\n" + "        1,\n" * 36_000 + "    ];\n}\n"]:  # one statement
        chunks = chunk_document(Document(doc_id="d", title="t", text=text, kind="rust"))
        assert len(chunks) > 100 and max(len(c.text) for c in chunks) <= MAX_CHARS
        assert sum(c.text.count("{") for c in chunks) == text.count("{")
