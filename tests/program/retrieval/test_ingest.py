"""program/retrieval/ingest.py: folders, archives and pages into a real store, incrementally, with pruning."""

from __future__ import annotations

import io
import json
import os
import tarfile
import zipfile

import pytest
from qdrant_client import QdrantClient

from program.base.errors import IngestError
from program.base.settings import Settings
from program.cli import main
from program.retrieval.ingest import ingest
from program.retrieval.retriever import HybridSearch
from program.retrieval.server_store import ServerStore
from tests.program.retrieval.test_fetch import PAGE, html, online, resolve, serve

FILES = {
    "guide.md": "# Widget guide\n\n" + "Widgets turn gears into sprockets. " * 10 + "\n\n## Install\n\n"
                + "Bolt the widget to the frame. " * 30 + "\n",
    "notes/torque.txt": "The Quorvex valve needs a yearly torque check.\n\nSprockets need weekly oiling.\n",
    "notes/draft.md": "# Draft\n\nNot ready.\n",
    "api/widgets.py": '"""Widget helpers."""\n\n\ndef spin(widget):\n    """Spin a widget."""\n    return widget.spin()\n',
    ".cache/hidden.md": "# Hidden\n\nNever indexed.\n",
    "image.png": "not text",
}


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "docs"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def memory_store() -> ServerStore:
    """The server code path over qdrant-client's in-memory stand-in: fresh and lock-free per call."""
    return ServerStore(QdrantClient(":memory:"), ":memory:")


def run(sources, tmp_path, client, embedder, **kwargs):
    settings = Settings(_env_file=None, data_dir=tmp_path, collection="mine")
    return ingest(sources, settings, store=client, embedder=embedder, **kwargs)


def payloads(client, collection="mine") -> list[dict]:
    return [payload for _, payload in client.payloads(collection, ["doc_id", "origin", "title", "text", "heading_path",
                                                                 "start", "end", "root", "url"])]


def test_a_folder_is_walked_with_its_globs_and_hidden_files_skipped(tree, tmp_path, embedder):
    client = memory_store()
    report = run([tree], tmp_path, client, embedder, exclude=["*/draft.md"])
    origins = {p["origin"] for p in payloads(client)}
    assert origins == {str(tree / "guide.md"), str(tree / "notes/torque.txt"), str(tree / "api/widgets.py")}
    assert (report.documents, report.chunks, report.embedded, report.errors) == (3, 4, 4, [])
    only_py = run([tree], tmp_path, memory_store(), embedder, include=["api/*.py"])
    assert only_py.documents == 1


def test_the_indexing_bar_of_an_ingest_shows_its_chunk_total(tree, tmp_path, embedder, capsys):
    report = run([tree], tmp_path, memory_store(), embedder, exclude=["*/draft.md"], progress=True)
    err = capsys.readouterr().err
    assert report.chunks == 4 and "indexing mine: 100%" in err and "| 4/4 [" in err  # the total, not a bare count


def test_an_unchanged_tree_embeds_nothing_and_a_changed_file_alone_is_rewritten(tree, tmp_path, embedder):
    client = memory_store()
    first = run([tree], tmp_path, client, embedder)
    embedder.texts.clear()
    again = run([tree], tmp_path, client, embedder)
    assert (again.embedded, again.skipped, again.deleted, again.chunks) == (0, first.chunks, 0, first.chunks)
    assert embedder.texts == []
    (tree / "guide.md").write_text(FILES["guide.md"].replace("frame", "wall"))
    changed = run([tree], tmp_path, client, embedder)
    # both chunks of the file are rewritten (their offsets follow the file), and only the edited one is embedded
    assert (changed.embedded, changed.reused) == (1, 1)
    assert len(embedder.texts) == 1 and "Widget guide" in embedder.texts[0] and "wall" in embedder.texts[0]
    hit = HybridSearch(client, "mine", embedder=embedder.embedder)("bolt the widget to the wall", 1)[0]
    assert "wall" in hit.text and hit.origin == str(tree / "guide.md")


def test_an_unchanged_file_is_not_parsed_again_and_a_changed_one_is(tree, tmp_path, embedder, monkeypatch):
    import program.retrieval.ingest as ingest_module

    client = memory_store()
    first = run([tree], tmp_path, client, embedder)
    parsed = []
    real_read = ingest_module.read
    monkeypatch.setattr(ingest_module, "read", lambda file, *args: parsed.append(file.path) or real_read(file, *args))
    again = run([tree], tmp_path, client, embedder, prune=True)
    assert parsed == [] and (again.documents, again.chunks, again.deleted) == (first.documents, first.chunks, 0)
    (tree / "notes/torque.txt").write_text("The Quorvex valve needs a monthly torque check.\n")
    changed = run([tree], tmp_path, client, embedder, prune=True)
    # a text file is one chunk, packed, before and after: its chunk is replaced, none deleted
    assert parsed == ["notes/torque.txt"] and changed.embedded == 1 and changed.deleted == 0


def test_offsets_and_heading_paths_come_back_on_passages(tree, tmp_path, embedder):
    client = memory_store()
    run([tree], tmp_path, client, embedder)
    hit = HybridSearch(client, "mine", embedder=embedder.embedder)("bolt the widget frame install", 1)[0]
    source_text = (tree / "guide.md").read_text()
    assert hit.heading_path == ["Install"] and hit.title == "Widget guide > Install"
    assert source_text[hit.start:hit.end] == hit.text and hit.text.startswith("## Install")
    spin = HybridSearch(client, "mine", embedder=embedder.embedder)("spin a widget helper", 1)[0]
    assert spin.heading_path == ["def spin"] and spin.text.startswith("def spin")


def test_prune_drops_only_the_gone_files_of_the_named_roots(tree, tmp_path, embedder):
    client = memory_store()
    other = tmp_path / "other.md"
    other.write_text("# Other\n\nA document from elsewhere.\n")
    run([tree, other], tmp_path, client, embedder)
    (tree / "notes/torque.txt").unlink()
    kept = run([tree], tmp_path, client, embedder)  # without prune, nothing is deleted
    assert kept.deleted == 0 and len({p["origin"] for p in payloads(client)}) == 5
    pruned = run([tree], tmp_path, client, embedder, prune=True)
    origins = {p["origin"] for p in payloads(client)}
    assert pruned.deleted == 1 and str(tree / "notes/torque.txt") not in origins and str(other) in origins


def test_prune_with_narrower_filters_keeps_the_documents_whose_files_are_still_there(tree, tmp_path, embedder):
    client = memory_store()
    run([tree], tmp_path, client, embedder)
    before = {p["origin"] for p in payloads(client)}
    only_md = run([tree], tmp_path, client, embedder, include=["*.md"], prune=True)
    assert only_md.deleted == 0 and {p["origin"] for p in payloads(client)} == before
    nothing = run([tree], tmp_path, client, embedder, exclude=["*"], prune=True)  # what HTTP and MCP could send
    assert nothing.deleted == 0 and {p["origin"] for p in payloads(client)} == before
    (tree / "notes/torque.txt").unlink()
    still_md = run([tree], tmp_path, client, embedder, include=["*.md"], prune=True)  # the filters skip the .txt
    assert still_md.deleted == 0


def test_prune_drops_a_record_its_file_no_longer_holds(tmp_path, embedder):
    (tmp_path / "docs").mkdir()
    facts = tmp_path / "docs" / "facts.jsonl"
    facts.write_text('{"title": "Gear", "text": "A gear meshes."}\n{"title": "Cog", "text": "A cog turns."}\n')
    client = memory_store()
    run([tmp_path / "docs"], tmp_path, client, embedder)
    facts.write_text('{"title": "Gear", "text": "A gear meshes."}\n')
    pruned = run([tmp_path / "docs"], tmp_path, client, embedder, prune=True)
    assert pruned.deleted == 1 and {p["title"] for p in payloads(client)} == {"Gear"}


def test_documents_with_the_same_title_both_survive(tmp_path, embedder):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "readme.md").write_text(f"# Readme\n\nThe {folder} package readme.\n")
    records = [{"title": "Readme", "text": "First record."}, {"title": "Readme", "text": "Second record."}]
    (tmp_path / "a" / "records.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    client = memory_store()
    report = run([tmp_path / "a", tmp_path / "b"], tmp_path, client, embedder)
    texts = sorted(p["text"] for p in payloads(client))
    assert report.documents == 4 and len({p["doc_id"] for p in payloads(client)}) == 4
    assert texts == ["# Readme\n\nThe a package readme.", "# Readme\n\nThe b package readme.", "First record.", "Second record."]


@pytest.mark.parametrize("name, data, reason", [
    (os.fsdecode(b"bad-\xff-name.md"), b"# Bad\n\nA page.\n", "its name is not UTF-8"),
    ("deep.json", b"[" * 100_000, "deep.json"),
    ("deep.py", b"x = " + b"-" * 5_000 + b"1\n", "deep.py"),
    ("nested.py", b"f" + b"(x)" * 5_000 + b"\n", "nested.py"),
])
def test_a_bad_file_beside_good_ones_is_reported_and_the_rest_indexed(tree, tmp_path, embedder, name, data, reason):
    good = run([tree], tmp_path, memory_store(), embedder).documents
    (tree / name).write_bytes(data)
    client = memory_store()
    report = run([tree], tmp_path, client, embedder)
    assert len(report.errors) == 1 and reason in report.errors[0] and "\n" not in report.errors[0]
    assert report.documents == good  # every good file is indexed


def test_a_blank_file_is_read_as_nothing_to_index_not_as_an_error(tree, tmp_path, embedder):
    client = memory_store()
    good = run([tree], tmp_path, client, embedder)
    (tree / "api" / "__init__.py").write_bytes(b"")
    (tree / "NOTES.md").write_bytes(b"  \n")
    report = run([tree], tmp_path, client, embedder)
    assert report.errors == [] and report.documents == good.documents and report.embedded == 0


def test_a_malformed_record_fails_its_file_only_and_is_reported(tree, tmp_path, embedder):
    (tree / "facts.jsonl").write_text('{"title": "Gear", "text": "A gear meshes."}\n{"title": "Cog"}\n')
    client = memory_store()
    report = run([tree], tmp_path, client, embedder)
    assert report.errors == [f"{tree / 'facts.jsonl'}: record 2: text: Field required"]
    assert report.documents == 4 and "Gear" not in {p["title"] for p in payloads(client)}
    assert "1 errors" in report.summary()
    pruned = run([tree], tmp_path, client, embedder, prune=True)  # a file that failed is not "gone"
    assert pruned.deleted == 0


def archive_bytes(kind: str) -> bytes:
    files = {"documents/guide/doc_source/intro.md": "# Intro\n\nBuckets hold objects.\n",
             "documents/guide/doc_source/skip.txt": "Skipped by the include glob.\n", "documents/LICENSE": "MIT"}
    buffer = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, text in files.items():
                archive.writestr(name, text)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for name, text in files.items():
                info = tarfile.TarInfo(name)
                info.size = len(text.encode())
                archive.addfile(info, io.BytesIO(text.encode()))
    return buffer.getvalue()


@pytest.mark.parametrize("name", ["docs.tar.gz", "docs.zip"])
def test_an_archive_is_read_member_by_member_with_the_globs(tmp_path, embedder, name):
    archive = tmp_path / name
    archive.write_bytes(archive_bytes("zip" if name.endswith("zip") else "tar"))
    client = memory_store()
    report = run([archive], tmp_path, client, embedder, include=["*/doc_source/*.md"])
    (payload,) = payloads(client)
    assert report.documents == 1 and payload["origin"] == f"{archive}!/documents/guide/doc_source/intro.md"
    assert payload["title"] == "Intro" and list(tmp_path.iterdir()) == [archive]  # nothing unpacked


def test_a_page_is_fetched_and_indexed_as_markdown(tmp_path, embedder):
    http = serve({"https://docs.example.com/guide": html()})
    client = memory_store()
    report = ingest(["https://docs.example.com/guide"], online(tmp_path, collection="web"), store=client,
                    embedder=embedder, http=http, resolve=resolve)
    titles = {p["title"] for p in payloads(client, "web")}
    text = " ".join(p["text"] for p in payloads(client, "web"))
    assert report.documents == 1 and titles <= {"Widgets", "Widgets > Install"}
    assert "widget --calibrate" in text and "Home | About" not in text and "Widgets Inc" not in text
    assert PAGE  # the page the fake server answered with


@pytest.mark.parametrize("sources, message", [
    (["missing-folder"], "no such file or folder"), (["http://127.0.0.1/"], "local"), ([], "nothing to ingest")])
def test_bad_sources_are_refused_before_anything_changes(tree, tmp_path, embedder, sources, message):
    client = memory_store()
    with pytest.raises(IngestError, match=message):
        run([tree, *sources] if sources else [], tmp_path, client, embedder)
    assert not client.exists("mine") and embedder.texts == []
    for bad in ("../etc", "mine\n", "x" * 200):  # "mine\n" once passed here and failed the store later, with HTTP 500
        with pytest.raises(IngestError, match="bad collection name"):
            run([tree], tmp_path, client, embedder, collection=bad)


def test_the_cli_ingests_a_folder_and_prints_one_summary(tree, tmp_path, capsys):
    args = ["ingest", str(tree), "--collection", "cli", "--data-dir", str(tmp_path / "data"), "--no-progress"]
    assert main(args) == 0
    assert main(args) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert first.startswith("cli: 4 documents, 5 chunks, 5 embedded, 0 reused, 0 skipped, 0 deleted, 0 errors")
    assert second.startswith("cli: 4 documents, 5 chunks, 0 embedded, 0 reused, 5 skipped")
    assert main(["ingest", str(tmp_path / "nope"), "--data-dir", str(tmp_path / "data")]) == 1
    assert "error: no such file or folder" in capsys.readouterr().err


def test_a_page_read_twice_as_html_and_as_its_source_is_noted_and_both_indexed(tree, tmp_path, capsys):
    # Node's API docs ship fs.md beside fs.html: each passage would be found twice, so the user is told
    (tree / "guide.html").write_text("<html><body><article><h1>Widget guide</h1><p>Widgets turn gears into "
                                     "sprockets, and every widget we make is bolted to its frame.</p></article></body></html>")
    args = ["ingest", str(tree), "--collection", "cli", "--data-dir", str(tmp_path / "data"), "--no-progress"]
    assert main(args) == 0  # a note, not an error: both were read as asked
    out, err = capsys.readouterr()
    assert out.startswith("cli: 5 documents")
    assert err.count("note: ") == 1 and "1 page(s) were read twice" in err and "guide.md" in err
    assert main([*args, "--exclude", "*.md"]) == 0 and "note:" not in capsys.readouterr().err


def test_a_folder_whose_files_no_reader_selects_is_noted_not_silently_empty(tmp_path, capsys):
    # a docs site of .vue pages read nothing; "0 documents" alone did not say why
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.vue").write_text("<template><h1>Widgets</h1></template>\n")
    args = ["ingest", str(site), "--collection", "cli", "--data-dir", str(tmp_path / "data"), "--no-progress"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert out.startswith("cli: 0 documents")
    assert f"note: no file under {site} matches the suffixes ingest reads: --include '*.EXT'" in err
    assert main([*args, "--include", "*.vue"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("cli: 1 documents") and "note:" not in err


def test_a_new_chunking_chunks_every_held_document_again_but_embeds_no_text_it_holds(tree, tmp_path, embedder,
                                                                                      monkeypatch):
    # the same documents, cut another way: without the bump, held documents kept their old chunks
    import program.retrieval.indexing as indexing
    import program.retrieval.ingest as ingest_module

    client = memory_store()
    first = run([tree], tmp_path, client, embedder)
    assert run([tree], tmp_path, client, embedder).embedded == 0
    bumped = indexing.CHUNKING + 1
    for module in (indexing, ingest_module):
        monkeypatch.setattr(module, "CHUNKING", bumped)
    embedder.texts.clear()
    again = run([tree], tmp_path, client, embedder)
    # every chunk is written again; here the new chunking cuts the same texts, so the model reads none
    assert (again.embedded, again.reused, embedder.texts) == (0, first.chunks, [])
    assert run([tree], tmp_path, client, embedder).reused == 0


def test_new_readers_read_every_held_file_again_but_embed_only_what_came_out_different(tree, tmp_path, embedder,
                                                                                      monkeypatch):
    import program.retrieval.ingest as ingest_module

    client = memory_store()
    first = run([tree], tmp_path, client, embedder)
    parsed = []
    real_read = ingest_module.read
    monkeypatch.setattr(ingest_module, "read", lambda file, *args: parsed.append(file.path) or real_read(file, *args))
    monkeypatch.setattr(ingest_module, "READERS", ingest_module.READERS + 1)
    again = run([tree], tmp_path, client, embedder)
    assert len(parsed) == first.documents and again.embedded == 0
