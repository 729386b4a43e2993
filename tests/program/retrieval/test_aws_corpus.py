"""program/retrieval/aws_corpus.py: the AWS guides' split into the local collection and the offline web."""

import pytest

from program.base.settings import Settings
from program.retrieval.aws_corpus import (
    gold_page,
    gold_pages,
    held_out_gold,
    member_page,
    tarball_pages,
    web_pages,
)
from program.retrieval.corpora import DataNotFoundError


@pytest.fixture(scope="module")
def settings():
    return Settings(_env_file=None)


def test_a_label_and_a_tarball_member_name_a_page_the_same_way():
    assert member_page("documents/amazon-ec2-user-guide/doc_source/AmazonEBS.md") == "amazon-ec2-user-guide/doc_source/AmazonEBS.md"
    assert gold_page(" amazon-ec2-user-guide/ AmazonEBS.md ") == "amazon-ec2-user-guide/doc_source/AmazonEBS.md"


def test_half_the_gold_pages_and_a_tenth_of_the_rest_are_web_only_the_same_way_every_time(settings):
    gold, pages, web = set(gold_pages(settings)), tarball_pages(settings), web_pages(settings)
    assert len(pages) == 2757 and len(gold) == 56
    assert {member_page(p) for p in pages} >= gold  # every labelled page is in the guides
    held = {member_page(p) for p in web} & gold
    assert held == held_out_gold(settings) and len(held) == 28
    assert len(web - {p for p in pages if member_page(p) in gold}) == round((2757 - 56) * 0.1)
    assert web == web_pages(settings)


def test_missing_data_says_where_it_looked(tmp_path):
    with pytest.raises(DataNotFoundError, match="GATEDRAG_SHARED_DATA"):
        gold_pages(Settings(_env_file=None, shared_data=tmp_path))
