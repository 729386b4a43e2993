"""program/retrieval/sources.py: what a folder or an archive gives up, and what it never does."""

from __future__ import annotations

import io
import tarfile
import time
import zipfile

import pytest

from program.base.errors import IngestError
from program.retrieval.sources import ArchiveCaps, source_files, twin_pages

CAPS = ArchiveCaps(members=100, total_bytes=10_000)
KEYS = ("id_rsa", "id_ed25519.pub", "server.pem", "api.KEY", "credentials", "credentials.json", "store.p12")


def test_key_files_hidden_files_and_symlinks_are_skipped_even_when_every_file_is_included(tmp_path):
    root = tmp_path / "docs"
    (root / "deep").mkdir(parents=True)
    (root / "guide.md").write_text("# Guide\n")
    (root / ".hidden.md").write_text("# Hidden\n")
    (tmp_path / "outside.md").write_text("# Outside\n")
    (root / "link.md").symlink_to(tmp_path / "outside.md")
    for name in KEYS:
        (root / "deep" / name).write_text("secret\n")
    assert [f.path for f in source_files(root, ["*"], [], 1000, CAPS)] == ["guide.md"]


def test_key_files_inside_an_archive_are_skipped(tmp_path):
    archive = tmp_path / "docs.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("guide.md", "# Guide\n")
        for name in KEYS:
            zipped.writestr(f"conf/{name}", "secret\n")
    assert [f.path for f in source_files(archive, ["*"], [], 1000, CAPS)] == ["guide.md"]


def test_a_file_named_directly_is_always_read(tmp_path):
    key = tmp_path / "server.pem"
    key.write_text("the user's own choice, from the command line\n")
    assert [f.path for f in source_files(key, ["*.md"], [], 1000, CAPS)] == ["server.pem"]


def zip_of(members: dict[str, bytes], path):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def tar_of(members: dict[str, bytes], path):
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("make", [zip_of, tar_of])
def test_an_archive_past_its_byte_cap_is_refused_naming_it_the_cap_and_the_setting(tmp_path, make):
    # 60 members of 5 MB in a 618 KB zip once held 314 M characters in memory before indexing
    bomb = make({f"m{i}.md": b"a" * 5_000 for i in range(60)}, tmp_path / f"bomb.{make.__name__[:3]}")
    started = time.perf_counter()
    with pytest.raises(IngestError, match="GATEDRAG_INGEST_ARCHIVE_MAX_BYTES") as error:
        list(source_files(bomb, ["*"], [], 5_000, CAPS))
    assert str(bomb) in str(error.value) and "10000" in str(error.value) and time.perf_counter() - started < 2


@pytest.mark.parametrize("make", [zip_of, tar_of])
def test_an_archive_of_too_many_files_is_refused(tmp_path, make):
    many = make({f"m{i}.txt": b"x" for i in range(101)}, tmp_path / f"many.{make.__name__[:3]}")
    with pytest.raises(IngestError, match="more than 100 files .GATEDRAG_INGEST_ARCHIVE_MAX_MEMBERS"):
        list(source_files(many, ["*.md"], [], 1_000, CAPS))  # every file counts, selected or not


def test_an_archive_within_its_caps_gives_up_every_member(tmp_path):
    fine = zip_of({f"m{i}.md": b"a" * 100 for i in range(50)}, tmp_path / "fine.zip")
    assert len(list(source_files(fine, ["*"], [], 1_000, CAPS))) == 50


def test_twin_pages_pair_each_html_page_with_the_source_it_was_built_from():
    read = ["/api/fs.html", "/api/fs.md",  # Node's API docs ship both
            "/b/html/guide/intro.html", "/b/html/_sources/guide/intro.rst.txt",  # Sphinx's copy of its source
            "/docs.zip!/html/index.html", "/docs.zip!/html/_sources/index.md.txt",
            "/api/path.md", "/api/v1.2.html", "/api/v1.md", "/api/notes.txt"]  # no page of theirs: no twin
    assert twin_pages(read) == [("/api/fs.html", "/api/fs.md"),
                                ("/b/html/guide/intro.html", "/b/html/_sources/guide/intro.rst.txt"),
                                ("/docs.zip!/html/index.html", "/docs.zip!/html/_sources/index.md.txt")]

