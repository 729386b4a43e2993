"""The gold-source matcher: titles compare loosely, paths and URLs by suffix on `/` boundaries."""

import pytest

from metrics.gold_sources import matched, normalize_location, source_matches
from tests.conftest import passage


@pytest.mark.parametrize("gold, title, location, hit", [
    ("Shirley Temple", "shirley  temple", "", True),  # HotpotQA: by title, case- and space-insensitively
    ("guide/doc_source/page.md", "Page", "documents/guide/doc_source/page.md", True),
    ("guide/doc_source/page.md", "Page", "aws_docs_referenced_guides.tar.gz/documents/guide/doc_source/page.md", True),
    (" ./guide/doc_source/page.md ", "Page", "file://documents/guide/doc_source/page.md", True),
    ("guide/doc_source/page.md", "Page", "documents/xguide/doc_source/page.md", False),  # not on a / boundary
    ("guide/doc_source/page.md", "Page", "documents/other/doc_source/page.md", False),
    ("guide/doc_source/Page.md", "Page", "documents/guide/doc_source/page.md", False),  # paths are case-sensitive
    ("https://example.org/a", "A", "https://example.org/a", True),
    ("", "", "", False),
])
def test_source_matches(gold, title, location, hit):
    assert source_matches(gold, title, [location]) is hit


def test_normalize_location_and_matched_passages():
    assert normalize_location(" file://./a/b.md ") == "a/b.md"
    passages = [passage("Kiss and Tell", "x")]  # its url is https://example.org/Kiss and Tell
    assert matched(["Kiss and Tell", "example.org/Kiss and Tell", "Other"], passages) == [
        "Kiss and Tell", "example.org/Kiss and Tell"]


def test_an_ingested_passage_matches_by_the_archive_member_it_came_from():
    ingested = passage("Page", "x").model_copy(update={"origin": "/data/guides.tar.gz!/documents/guide/doc_source/page.md"})
    assert matched(["guide/doc_source/page.md", "other/doc_source/page.md"], [ingested]) == ["guide/doc_source/page.md"]
