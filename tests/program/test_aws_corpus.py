"""program/retrieval/aws_corpus.py: the AWS guides' split into the local collection and the offline web."""

import pytest

from program.retrieval.aws_corpus import AwsDataNotFoundError, gold_pages, page_key, tarball_pages, web_pages
from program.settings import Settings


@pytest.fixture(scope="module")
def settings():
    return Settings(_env_file=None)


def test_a_page_key_is_the_labels_form_of_any_path_to_the_page():
    assert page_key("documents/amazon-ec2-user-guide/doc_source/AmazonEBS.md") == "amazon-ec2-user-guide/AmazonEBS.md"
    assert page_key(" amazon-ec2-user-guide/AmazonEBS.md ") == "amazon-ec2-user-guide/AmazonEBS.md"


def test_half_the_gold_pages_and_a_tenth_of_the_rest_are_web_only_the_same_way_every_time(settings):
    gold, pages, web = set(gold_pages(settings)), tarball_pages(settings), web_pages(settings)
    assert len(pages) == 2757 and len(gold) == 56
    assert {page_key(p) for p in pages} >= gold  # every labelled page is in the guides
    held = {page_key(p) for p in web} & gold
    assert len(held) == 28
    assert len(web - {p for p in pages if page_key(p) in gold}) == round((2757 - 56) * 0.1)
    assert web == web_pages(settings)


def test_missing_data_says_where_it_looked(tmp_path):
    with pytest.raises(AwsDataNotFoundError, match="GATEDRAG_SHARED_DATA"):
        gold_pages(Settings(_env_file=None, shared_data=tmp_path))
