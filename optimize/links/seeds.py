"""Where a dataset's walks start: the site folder its questions' gold pages are in, and the page
each question is seeded at. A labelled question file names its site with `--site` and `--seed`;
`aws_docs` brings its guides, each question seeded at its own guide's index.
"""

from __future__ import annotations

from pathlib import Path

from program.base.command_line import UsageError

AWS_DOCS = "aws_docs"
AWS_SEED = "{top}/doc_source/index.md"


def has_site(dataset: str, site: Path | None) -> bool:
    """Whether the dataset's questions can be walked from a seed page."""
    return site is not None or dataset == AWS_DOCS


def seed_page(dataset: str, site: Path | None, seed: str | None) -> str:
    """The page each question starts from; a site folder given without one is a usage error."""
    if site is not None and seed is None:
        raise UsageError("--site needs --seed: the path of the page each question starts from")
    if not has_site(dataset, site):
        raise UsageError("give --site (a folder of the site's pages) and --seed (a page in it)")
    return seed or AWS_SEED
