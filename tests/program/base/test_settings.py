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


def test_the_lm_is_gatedrag_lm_or_its_older_name_and_records_name_it_by_its_model_string(monkeypatch):
    for name in ("GATEDRAG_LM", "GATEDRAG_PROFILE", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    local = Settings(_env_file=None)
    assert (local.resolved_profile, local.serving_model) == ("local", "qwen2.5-coder-0.5b")
    monkeypatch.setenv("GATEDRAG_PROFILE", "openai")
    assert Settings(_env_file=None, openai_model="gpt-4o-mini").serving_model == "openai/gpt-4o-mini"
    monkeypatch.setenv("GATEDRAG_LM", "ollama_chat/qwen2.5:7b")  # the new name wins over the older one
    chosen = Settings(_env_file=None)
    assert chosen.resolved_profile == chosen.serving_model == "ollama_chat/qwen2.5:7b"
    assert Settings(_env_file=None, profile="local").resolved_profile == "local"  # a flag wins over the environment
