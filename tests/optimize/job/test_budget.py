"""The spending guard stops at a cap; the dry-run estimate adds up the phases."""

import dspy
import pytest

from optimize.job.budget import (
    CALLS_PER_QUESTION,
    BudgetExceeded,
    SpendingGuard,
    estimate,
)
from optimize.job.config import Caps, load_config
from tests.conftest import scripted_lm


def test_guard_counts_lm_calls_and_stops_at_the_cap():
    guard = SpendingGuard(Caps(lm_calls=2), "dummy")
    predict = dspy.Predict("question -> answer")
    with dspy.context(lm=scripted_lm({"answer": "a"}, {"answer": "b"}), callbacks=[guard]):
        predict(question="q1")
        guard.check()
        predict(question="q2")
    assert guard.calls == 2
    with pytest.raises(BudgetExceeded, match="lm_calls cap of 2"):
        guard.check()


def test_estimate_counts_every_phase_and_prices_known_models():
    config = load_config("quick")
    e = estimate(config, select_size=4, report_size=5, model="gpt-4o-mini")
    # the demo set and the uncompiled prompts run on select; replayed threshold trials cost nothing
    assert e.phases == {"baseline eval (report)": 5, "single pass (report)": 5, "prompt candidates (select)": 8,
                        "chosen thresholds (select)": 4, "learned release (select)": 4, "compiled eval (report)": 5}
    assert e.lm_calls == round(31 * CALLS_PER_QUESTION) and e.dollars > 0
    assert estimate(config, 4, 4, "qwen2.5-coder-0.5b").dollars == 0.0
    assert "single pass (report)" not in estimate(load_config("quick", overrides={"single_pass": False}), 4, 5,
                                                  "gpt-4o-mini").phases


def test_a_resumed_guard_goes_on_from_what_the_killed_job_spent(tmp_path):
    ledger = tmp_path / "spent.json"
    first = SpendingGuard(Caps(lm_calls=3), "dummy", ledger=ledger)
    predict = dspy.Predict("question -> answer")
    with dspy.context(lm=scripted_lm({"answer": "a"}, {"answer": "b"}), callbacks=[first]):
        predict(question="q1")
        predict(question="q2")
    resumed = SpendingGuard(Caps(lm_calls=3), "dummy", ledger=ledger)  # a new process, as after a kill
    assert resumed.calls == 2
    with dspy.context(lm=scripted_lm({"answer": "c"}), callbacks=[resumed]):
        predict(question="q3")
    with pytest.raises(BudgetExceeded, match="lm_calls cap of 3"):
        resumed.check()
