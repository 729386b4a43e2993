"""program/factory.py: the program gets the web backend the settings name, or none."""

from program.factory import build_program
from program.settings import Settings
from program.retrieval.store import ensure_collection, open_client
from program.retrieval.web_search import OfflineWeb


def test_web_none_builds_no_web_backend_even_with_an_offline_corpus(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, web_backend="none")
    client = open_client(settings)
    for name in (settings.collection, settings.web_collection):
        ensure_collection(client, name)
    assert settings.resolved_web_backend == "none"
    assert build_program(settings).web is None
    assert isinstance(build_program(settings.model_copy(update={"web_backend": "offline"})).web, OfflineWeb)
