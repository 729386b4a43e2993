"""program/retrieval/chunking.py: paragraphs stay whole, markdown follows headings, code fences never split."""

from program.retrieval.chunking import Document, chunk_document


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
    assert changes in added.text and added.title == "Guide > Changelog > Added"
