"""program/assembly/factory.py: the program gets the web backend the settings name, or none, and
what answers when asked or served is the system they name."""

import pytest

from program.assembly import factory
from program.assembly.factory import build_program, build_served
from program.assembly.loading import ProgramLoadError
from program.base.settings import Settings
from program.baselines import SinglePass
from program.loop import GatedRAG
from program.retrieval.open_store import open_store
from program.retrieval.store import CollectionMissingError
from program.retrieval.web_search import OfflineWeb


def test_web_none_builds_no_web_backend_even_with_an_offline_corpus(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, web_backend="none")
    store = open_store(settings)
    for name in (settings.collection, settings.resolved_web_collection):
        store.ensure(name)
    assert settings.resolved_web_backend == "none"
    assert build_program(settings).web is None
    assert isinstance(build_program(settings.model_copy(update={"web_backend": "offline"})).web, OfflineWeb)


def test_a_collection_never_searches_another_domains_web_corpus(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, collection="aws_docs", web_backend="offline")
    store = open_store(settings)
    for name in ("aws_docs", "hotpotqa_web"):
        store.ensure(name)
    assert build_program(settings).web is None  # hotpotqa's web corpus is not aws_docs'
    store.ensure("aws_docs_web")
    web = build_program(settings).web
    assert web.label == "offline (aws_docs_web)"
    named = build_program(settings.model_copy(update={"web_collection": "hotpotqa_web"})).web
    assert named.label == "offline (hotpotqa_web)"  # told to: it may


def test_budget_overrides_are_validated_and_a_bad_one_is_one_line_naming_it(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, web_backend="none")
    open_store(settings).ensure(settings.collection)
    assert build_program(settings, overrides={"max_iterations": 1}).thresholds.max_iterations == 1
    with pytest.raises(ValueError) as refused:
        build_program(settings, overrides={"max_iterations": -5})
    assert "max_iterations -5" in str(refused.value) and "\n" not in str(refused.value)


def test_a_bad_program_fails_before_any_store_is_opened(tmp_path):
    bad = tmp_path / "program.json"
    bad.write_text('{"judge": ')
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")
    with pytest.raises(ProgramLoadError, match=r"program.json line 1: not JSON"):
        build_program(settings, program_path=bad)
    assert not (tmp_path / "data").exists()


def test_what_answers_when_asked_or_served_is_the_system_the_settings_name(tmp_path, monkeypatch):
    settings = Settings(_env_file=None, data_dir=tmp_path, web_backend="none")
    open_store(settings).ensure(settings.collection)
    assert type(build_served(settings)) is GatedRAG
    monkeypatch.setenv("GATEDRAG_SYSTEM", "single_pass")
    chosen = Settings(_env_file=None, data_dir=tmp_path, web_backend="none")
    assert type(build_served(chosen, overrides={"top_k": 5})) is SinglePass
    assert build_served(chosen, overrides={"top_k": 5}).thresholds.top_k == 5
    assert type(build_program(chosen)) is GatedRAG  # eval and optimize build the loop, whatever is served


def test_a_store_without_the_collection_is_closed_before_the_error_is_raised(tmp_path, monkeypatch):
    """A server store left open would be closed at interpreter exit, when qdrant-client can only
    warn on stderr under the one-line error."""
    closed = []

    class Missing:
        def require(self, collection):
            raise CollectionMissingError(f"no collection {collection!r}")

        def close(self):
            closed.append(True)

    monkeypatch.setattr(factory, "open_store", lambda settings: Missing())
    with pytest.raises(CollectionMissingError):
        build_program(Settings(_env_file=None, data_dir=tmp_path, web_backend="none"))
    assert closed == [True]
