"""program/sessions/memory_store.py: 5 turns a session, forgotten after 10 idle minutes, at most N sessions (LRU)."""

import copy

import pytest

from program.base.settings import Settings
from program.sessions.conversation import Turn
from program.sessions.memory_store import SessionStore


class FakeClock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def turn(i: int) -> Turn:
    return Turn.of(f"Question {i}?", f"Question {i}?", f"answer {i}")


def test_a_session_keeps_its_last_five_turns_in_order():
    clock = FakeClock()
    store = SessionStore(turns=5, clock=clock)
    for i in range(7):
        clock.now += 1
        store.record("s1", turn(i))
    conversation = store.recall("s1")
    assert [t.question for t in conversation.turns] == [f"Question {i}?" for i in range(2, 7)]
    assert conversation.turns[-1].at == 1007.0


def test_a_session_idle_for_ten_minutes_is_forgotten_and_starts_afresh():
    clock = FakeClock()
    store = SessionStore(idle_s=600, clock=clock)
    store.record("s1", turn(1))
    clock.now += 600
    assert len(store.recall("s1").turns) == 1 and store.recall("s1").idle_s == 600
    clock.now += 1
    assert store.recall("s1").turns == () and len(store) == 0
    store.record("s1", turn(2))
    assert [t.question for t in store.recall("s1").turns] == ["Question 2?"]


def test_sessions_are_bounded_and_the_least_recently_used_goes_first():
    clock = FakeClock()
    store = SessionStore(max_sessions=2, clock=clock)
    store.record("a", turn(1))
    store.record("b", turn(1))
    store.record("a", turn(2))  # a is now more recent than b
    store.record("c", turn(1))
    assert len(store) == 2 and store.recall("b").turns == ()
    assert len(store.recall("a").turns) == 2 and len(store.recall("c").turns) == 1


def test_sessions_are_apart_a_bad_id_changes_nothing_and_copies_share_the_store():
    store = SessionStore()
    store.record("a", turn(1))
    assert store.recall("b").turns == ()
    with pytest.raises(ValueError, match="session id"):
        store.record("../a", turn(2))
    assert len(store) == 1 and copy.deepcopy(store) is store


def test_the_settings_set_the_rules():
    store = SessionStore.from_settings(Settings(_env_file=None, session_turns=2, session_idle_s=30, session_max=7))
    assert (store.turns, store.idle_s, store.max_sessions) == (2, 30, 7)
