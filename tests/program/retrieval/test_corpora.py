"""program/retrieval/corpora.py: the local and web HotpotQA corpora, read from the shared data folder."""

import pytest

from program.base.settings import Settings
from program.retrieval.corpora import (
    DataNotFoundError,
    holdout_titles,
    local_documents,
    web_documents,
    wikipedia_url,
)


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return Settings(data_dir=tmp_path_factory.mktemp("data"))


@pytest.fixture(scope="module")
def local(settings):
    return local_documents(settings)


@pytest.fixture(scope="module")
def web(settings):
    return web_documents(settings)


def test_local_corpus_is_every_dev_paragraph_but_the_held_out(local, settings):
    assert len(local) == 4858 - 250
    assert len({d.doc_id for d in local}) == len(local)
    assert not holdout_titles(settings) & {d.title for d in local}


def test_held_out_text_never_reaches_the_local_corpus(local, web, settings):
    held_out = holdout_titles(settings)
    held_out_texts = {d.text for d in web if d.title in held_out}
    assert len(held_out_texts) == 250
    assert not held_out_texts & {d.text for d in local}


def test_web_corpus_is_held_out_paragraphs_plus_train_pages(web, settings):
    titles = {d.title for d in web}
    assert len(web) == len(titles) == 250 + 994  # no train page shares a held-out title
    assert holdout_titles(settings) <= titles


def test_train_pages_join_sentences_like_dev_paragraphs(web, local):
    # "Primary rock" is both a train page and a dev paragraph: the two joins must agree
    page = next(d for d in web if d.title == "Primary rock")
    assert page.text == next(d for d in local if d.title == "Primary rock").text


def test_documents_are_paragraphs_with_wikipedia_urls(local):
    doc = next(d for d in local if d.title == "Meet Corliss Archer")
    assert (doc.doc_id, doc.kind) == ("Meet_Corliss_Archer", "paragraphs")
    assert doc.url == "https://en.wikipedia.org/wiki/Meet_Corliss_Archer"
    assert doc.text.startswith("Meet Corliss Archer, a program from radio's Golden Age")


def test_wikipedia_url_escapes_what_a_url_cannot_hold():
    assert wikipedia_url("Marco Da Silva (dancer)") == "https://en.wikipedia.org/wiki/Marco_Da_Silva_(dancer)"
    assert wikipedia_url("Café/Bar?") == "https://en.wikipedia.org/wiki/Caf%C3%A9%2FBar%3F"


def test_missing_data_names_where_it_looked(tmp_path):
    settings = Settings(data_dir=tmp_path, shared_data=tmp_path / "nowhere")
    with pytest.raises(DataNotFoundError) as error:
        local_documents(settings)
    assert isinstance(error.value, FileNotFoundError)
    assert str(tmp_path / "nowhere" / "hotpotqa") in str(error.value)
    assert "GATEDRAG_SHARED_DATA" in str(error.value)
