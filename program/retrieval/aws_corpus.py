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

from program.base.settings import Settings
from program.retrieval.corpora import DataNotFoundError

FOLDER = "aws_docs"
TARBALL = "aws_docs_referenced_guides.tar.gz"
QUESTIONS = "QA_true.csv"
SEED = 20261123
GOLD_HELD_OUT = 0.5  # share of the gold pages found on the web only
OTHERS_ON_WEB = 0.1  # share of the other pages moved to the web, so it is not only answers


def aws_file(settings: Settings, name: str) -> Path:
    path = settings.shared_data / FOLDER / name
    if not path.is_file():
        raise DataNotFoundError(f"AWS docs file not found: {path}; set GATEDRAG_SHARED_DATA to the folder "
                                f"that holds {FOLDER}/")
    return path


def gold_page(document: str) -> str:
    """A label's gold page (`amazon-ec2-user-guide/ EBSEncryption.md `) as the tail of its path in
    the guides (`amazon-ec2-user-guide/doc_source/EBSEncryption.md`), stray spaces dropped."""
    parts = [p.strip() for p in document.strip().split("/") if p.strip()]
    if len(parts) == 2:
        parts.insert(1, "doc_source")
    return "/".join(parts)


def member_page(path: str) -> str:
    """The same tail of a page's path in the tarball (`documents/<guide>/doc_source/<page>.md`)."""
    return "/".join(path.split("/")[-3:])


def gold_pages(settings: Settings) -> list[str]:
    """The labelled questions' gold pages, each once, sorted."""
    with aws_file(settings, QUESTIONS).open(encoding="utf-8-sig", newline="") as rows:
        return sorted({gold_page(row["Document_True"]) for row in csv.DictReader(rows)})


def tarball_pages(settings: Settings) -> list[str]:
    """The member paths of the guides' markdown pages, sorted."""
    with tarfile.open(aws_file(settings, TARBALL)) as archive:
        return sorted(m.name for m in archive.getmembers() if m.isfile() and m.name.endswith(".md"))


def unpack_guides(settings: Settings, folder: Path) -> Path:
    """Every guide unpacked into `folder`, as a site to follow links in: the folder of the guides."""
    with tarfile.open(aws_file(settings, TARBALL)) as archive:
        archive.extractall(folder, filter="data")
    return folder / "documents"


def held_out_gold(settings: Settings) -> set[str]:
    """The gold pages found on the web only."""
    gold = gold_pages(settings)
    return set(random.Random(SEED).sample(gold, round(len(gold) * GOLD_HELD_OUT)))


def web_pages(settings: Settings) -> set[str]:
    """Member paths of the pages held out to the offline web corpus."""
    gold, held = set(gold_pages(settings)), held_out_gold(settings)
    pages = tarball_pages(settings)
    others = [p for p in pages if member_page(p) not in gold]
    distractors = random.Random(SEED + 1).sample(others, round(len(others) * OTHERS_ON_WEB))
    return {p for p in pages if member_page(p) in held} | set(distractors)
