"""program/sessions/file_store.py: the memory store's rules, kept in files that outlive the process."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from program.sessions.conversation import Turn
from program.sessions.file_store import FileSessionStore
from tests.program.sessions.test_memory_store import FakeClock, turn


def test_turns_written_by_one_store_are_read_by_another_as_a_later_process_would(tmp_path):
    clock = FakeClock()
    FileSessionStore(tmp_path, clock=clock).record("s1", Turn.of("What is S3 Glacier?", "What is S3 Glacier?", "storage"))
    clock.now += 30
    conversation = FileSessionStore(tmp_path, clock=clock).recall("s1")
    assert [t.topics for t in conversation.turns] == [["S3 Glacier"]] and conversation.idle_s == 30
    assert [p.name for p in tmp_path.glob("*.json")] == ["s1.json"]


def test_five_turns_and_ten_idle_minutes_as_in_memory(tmp_path):
    clock = FakeClock()
    store = FileSessionStore(tmp_path, turns=5, idle_s=600, clock=clock)
    for i in range(7):
        store.record("s1", turn(i))
    assert [t.question for t in store.recall("s1").turns] == [f"Question {i}?" for i in range(2, 7)]
    clock.now += 601
    assert store.recall("s1").turns == () and not (tmp_path / "s1.json").exists()


def test_files_are_bounded_and_the_least_recently_written_goes_first(tmp_path):
    clock = FakeClock()
    store = FileSessionStore(tmp_path, max_sessions=2, clock=clock)
    for name in ("a", "b", "a", "c"):
        clock.now += 1
        store.record(name, turn(1))
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["a.json", "c.json"] and sorted(p.name for p in tmp_path.glob(".*.lock")) == [".a.json.lock", ".c.json.lock"]


def test_a_torn_file_reads_as_a_fresh_session_and_a_bad_id_writes_nothing(tmp_path):
    store = FileSessionStore(tmp_path)
    (tmp_path / "s1.json").write_text('[{"question": "Who', encoding="utf-8")
    assert store.recall("s1").turns == ()
    store.record("s1", turn(1))
    assert [t.question for t in store.recall("s1").turns] == ["Question 1?"]
    with pytest.raises(ValueError, match="session id"):
        store.record("../escape", turn(1))
    assert [p.name for p in tmp_path.glob("*.json")] == ["s1.json"] and not (tmp_path.parent / "escape.json").exists()


def test_concurrent_writers_of_one_session_lose_no_turn(tmp_path):
    store = FileSessionStore(tmp_path, turns=1_000, idle_s=1e9)

    def write(writer):
        for i in range(150):
            store.record("shared", Turn(question=f"{writer}-{i}", standalone=f"{writer}-{i}"))

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(write, range(6)))
    questions = [t.question for t in store.recall("shared").turns]
    assert len(questions) == len(set(questions)) == 900
    assert not list(tmp_path.glob("*.tmp"))
