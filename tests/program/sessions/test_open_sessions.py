"""program/sessions/open_sessions.py: memory by default, files under the data dir when configured."""

from program.base.settings import Settings
from program.sessions.file_store import FileSessionStore
from program.sessions.memory_store import SessionStore
from program.loop import GatedRAG
from program.sessions.open_sessions import open_sessions
from tests.conftest import FakeSearch


def test_the_setting_picks_the_store(tmp_path):
    assert isinstance(open_sessions(Settings(_env_file=None, data_dir=tmp_path)), SessionStore)
    files = open_sessions(Settings(_env_file=None, data_dir=tmp_path, session_store="file", session_turns=3))
    assert isinstance(files, FileSessionStore) and files.folder == tmp_path / "sessions" and files.turns == 3


def test_the_loop_keeps_the_configured_memory_store_while_it_is_still_empty(tmp_path):
    store = open_sessions(Settings(_env_file=None, data_dir=tmp_path, session_turns=2))
    assert GatedRAG(FakeSearch([]), sessions=store).sessions is store and store.turns == 2
