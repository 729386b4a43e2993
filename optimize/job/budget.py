"""Hard caps on an optimize job's LM spending, and the dry-run estimate of what it will spend.

`SpendingGuard` is a DSPy callback that counts every LM call and its tokens (cache hits count
as calls, not tokens: they cost nothing). The job asks `check()` between questions, trials and
phases; past a cap it raises `BudgetExceeded` and the job stops cleanly with its best so far.
`estimate()` multiplies the job's questions by the per-question costs measured on smoke.
This module does not run LM calls.
"""

from __future__ import annotations

import threading
from pathlib import Path

from dspy.utils.callback import BaseCallback
from pydantic import BaseModel

from metrics.cost import dollars
from optimize.durable import read_state, write_atomic
from optimize.job.config import Caps, OptimizeConfig

# measured with bench/smoke_loop.py on the local 0.5B: LM calls and tokens per gated question
CALLS_PER_QUESTION = 6.8
PROMPT_TOKENS_PER_CALL = 875
COMPLETION_TOKENS_PER_CALL = 90


SINGLE_PASS = "single pass (report)"
CHOSEN_THRESHOLDS = "chosen thresholds (select)"
LEARNED_RELEASE = "learned release (select)"  # the judges phase: its drafts refit acceptance
COMPILED_EVAL = "compiled eval (report)"  # or the candidate kept out, with `report_rejected`
CONDITIONAL = (CHOSEN_THRESHOLDS, COMPILED_EVAL)  # run only when the replay's pick gains held out, or something ships


class BudgetExceeded(RuntimeError):
    pass


class Spent(BaseModel):
    """The ledger's counts, as spent.json holds them."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class SpendingGuard(BaseCallback):
    """`ledger`: a JSON file the counts are kept in after every call, so a resumed job (even
    after a kill) goes on from what the killed one spent instead of starting its caps at zero.
    Only a ledger that cannot be parsed (cut by a crash of a version that wrote in place)
    starts from zero, with a warning naming it."""

    def __init__(self, caps: Caps, model: str, ledger: Path | None = None):
        self.caps, self.model, self.ledger = caps, model, ledger
        spent = (read_state(ledger, Spent) if ledger is not None else None) or Spent()
        self.calls, self.prompt_tokens, self.completion_tokens = spent.calls, spent.prompt_tokens, spent.completion_tokens
        self._lock = threading.Lock()

        self._started: dict[str, object] = {}

    def on_lm_start(self, call_id, instance, inputs):
        self._started[call_id] = instance

    def on_lm_end(self, call_id, outputs, exception=None):
        lm = self._started.pop(call_id, None)
        # subtle: one LM serves one request at a time here, so its last history entry is this
        # call; a cache hit keeps its old usage there, but costs nothing now
        entry = lm.history[-1] if lm is not None and getattr(lm, "history", None) else {}
        hit = getattr(entry.get("response"), "cache_hit", False)
        usage = {} if hit else entry.get("usage") or {}
        with self._lock:
            self.calls += 1
            self.prompt_tokens += usage.get("prompt_tokens") or usage.get("input_tokens") or 0
            self.completion_tokens += usage.get("completion_tokens") or usage.get("output_tokens") or 0
            self._save()

    def _save(self) -> None:
        if self.ledger is None:
            return
        spent = Spent(calls=self.calls, prompt_tokens=self.prompt_tokens, completion_tokens=self.completion_tokens)
        write_atomic(self.ledger, spent.model_dump_json())

    @property
    def dollars(self) -> float | None:
        return dollars(self.model, self.prompt_tokens, self.completion_tokens)

    def check(self) -> None:
        spent = {"lm_calls": self.calls, "tokens": self.prompt_tokens + self.completion_tokens, "dollars": self.dollars}
        for cap, value in spent.items():
            limit = getattr(self.caps, cap)
            if limit is not None and value is not None and value >= limit:
                raise BudgetExceeded(f"the {cap} cap of {limit} is reached ({value:g} spent)")


class Estimate(BaseModel):
    phases: dict[str, int]  # questions run per phase
    lm_calls: int
    prompt_tokens: int
    completion_tokens: int
    dollars: float | None


def estimate(config: OptimizeConfig, select_size: int, report_size: int, model: str) -> Estimate:
    """An upper bound on the real LM runs: threshold trials are replayed and cost none, but the
    chosen point runs once more on the select questions."""
    candidates = config.demo_sets if config.optimizer == "labelled" else 1
    phases = {"baseline eval (report)": report_size} | ({SINGLE_PASS: report_size} if config.single_pass else {}) | {
        "prompt candidates (select)": select_size * (candidates + 1), CHOSEN_THRESHOLDS: select_size,
        LEARNED_RELEASE: select_size, COMPILED_EVAL: report_size}
    calls = round(sum(phases.values()) * CALLS_PER_QUESTION)
    prompt, completion = calls * PROMPT_TOKENS_PER_CALL, calls * COMPLETION_TOKENS_PER_CALL
    return Estimate(phases=phases, lm_calls=calls, prompt_tokens=prompt, completion_tokens=completion,
                    dollars=dollars(model, prompt, completion))
