"""program/base/settings.py: defaults that depend on other settings, and what a key in the environment switches."""

from pydantic import SecretStr

from program.base.settings import Settings
from program.retrieval.web_search import TavilyWeb


def test_models_are_cached_outside_the_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    one, two = Settings(_env_file=None, data_dir=tmp_path / "a"), Settings(_env_file=None, data_dir=tmp_path / "b")
    assert one.model_cache == two.model_cache == tmp_path / "cache" / "gatedrag" / "models"
    monkeypatch.setenv("GATEDRAG_MODEL_CACHE", str(tmp_path / "mine"))
    assert Settings(_env_file=None).model_cache == tmp_path / "mine"


def test_the_web_corpus_follows_the_collection():
    assert Settings(_env_file=None, collection="aws_docs").resolved_web_collection == "aws_docs_web"
    assert Settings(_env_file=None, collection="aws_docs", web_collection="x").resolved_web_collection == "x"


def test_a_tavily_key_that_switches_the_web_says_so_in_the_backend_label(tmp_path, monkeypatch):
    monkeypatch.delenv("GATEDRAG_WEB_BACKEND", raising=False)
    keyed = Settings(_env_file=None, data_dir=tmp_path, tavily_api_key=SecretStr("tvly-secret"))
    assert keyed.resolved_web_backend == "tavily"
    assert "TAVILY_API_KEY is set" in keyed.web_backend_note
    label = TavilyWeb(keyed).label
    assert label.startswith("tavily (") and "tvly-secret" not in label
    chosen = keyed.model_copy(update={"web_backend": "tavily"})
    assert chosen.web_backend_note == "" and TavilyWeb(chosen).label == "tavily"
