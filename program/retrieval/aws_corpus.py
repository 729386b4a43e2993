"""The AWS documentation domain: its guides, and which pages are held out to its offline web.

The 2,757 markdown pages of `aws_docs/aws_docs_referenced_guides.tar.gz` (under the shared
data dir) are split the way the HotpotQA corpora are: half of the labelled questions' gold
pages, and a tenth of the other pages as distractors, live only in the offline web corpus
(`aws_docs_web`); every other page is in the local collection (`aws_docs`). A page is in
exactly one of the two. The split is a seeded draw, so every machine makes the same one.
This module only reads the shared data; indexing the pages is `program.retrieval.ingest`'s job.
"""

from __future__ import annotations

import csv
import random
import tarfile
from pathlib import Path

from program.settings import Settings

FOLDER = "aws_docs"
TARBALL = "aws_docs_referenced_guides.tar.gz"
QUESTIONS = "QA_true.csv"
SEED = 20261123
GOLD_HELD_OUT = 0.5  # share of the gold pages found on the web only
OTHERS_ON_WEB = 0.1  # share of the other pages moved to the web, so it is not only answers


class AwsDataNotFoundError(FileNotFoundError):
    """The AWS docs files are missing where the settings say they are."""


def aws_file(settings: Settings, name: str) -> Path:
    path = settings.shared_data / FOLDER / name
    if not path.is_file():
        raise AwsDataNotFoundError(f"AWS docs file not found: {path}; set GATEDRAG_SHARED_DATA to the folder "
                                   f"that holds {FOLDER}/")
    return path


def page_key(path: str) -> str:
    """`<guide>/<page>.md`, the form the labels name a gold page in, from any path to it
    (`documents/<guide>/doc_source/<page>.md` in the tarball)."""
    parts = [p for p in path.strip().split("/") if p and p != "doc_source"]
    return "/".join(parts[-2:])


def gold_pages(settings: Settings) -> list[str]:
    """The labelled questions' gold pages, as page keys, each once, sorted."""
    with aws_file(settings, QUESTIONS).open(encoding="utf-8-sig", newline="") as rows:
        return sorted({page_key(row["Document_True"]) for row in csv.DictReader(rows)})


def tarball_pages(settings: Settings) -> list[str]:
    """The member paths of the guides' markdown pages, sorted."""
    with tarfile.open(aws_file(settings, TARBALL)) as archive:
        return sorted(m.name for m in archive.getmembers() if m.isfile() and m.name.endswith(".md"))


def web_pages(settings: Settings) -> set[str]:
    """Member paths of the pages held out to the offline web corpus."""
    draw = random.Random(SEED)
    gold = gold_pages(settings)
    held = set(draw.sample(gold, round(len(gold) * GOLD_HELD_OUT)))
    pages = tarball_pages(settings)
    others = [p for p in pages if page_key(p) not in set(gold)]
    return {p for p in pages if page_key(p) in held} | set(draw.sample(others, round(len(others) * OTHERS_ON_WEB)))
