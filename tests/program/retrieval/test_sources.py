"""program/retrieval/sources.py: what a folder or an archive gives up, and what it never does."""

from __future__ import annotations

import zipfile

from program.retrieval.sources import source_files

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
    assert [f.path for f in source_files(root, ["*"], [], 1000)] == ["guide.md"]


def test_key_files_inside_an_archive_are_skipped(tmp_path):
    archive = tmp_path / "docs.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("guide.md", "# Guide\n")
        for name in KEYS:
            zipped.writestr(f"conf/{name}", "secret\n")
    assert [f.path for f in source_files(archive, ["*"], [], 1000)] == ["guide.md"]


def test_a_file_named_directly_is_always_read(tmp_path):
    key = tmp_path / "server.pem"
    key.write_text("the user's own choice, from the command line\n")
    assert [f.path for f in source_files(key, ["*.md"], [], 1000)] == ["server.pem"]
