"""A hard wall-clock limit on one predictor call: `call_within(predictor, seconds_left, **inputs)`.

The call runs as `predictor.acall(**inputs)` on its own event loop in a worker thread, under
`asyncio.timeout(seconds_left)`. When time is up the task is cancelled. DSPy's async engines
then close the HTTP connection, llama.cpp sees the client go and frees its slot, and the caller
gets `DeadlineExceeded`. This works for any DSPy LM (llama.cpp, OpenAI, the LiteLLM fallback),
with DSPy's cache on or off. The request, its cache key and the LM stay as they are.

llama.cpp looks for a hung-up client when a second passes with no result for any request, then
stops at its next decode step: within ~1 s while generating, after the prompt chunk in progress
while reading the prompt (`program.lm.local_lm.N_BATCH`). Polling its /slots or /metrics more often
than once a second postpones that look.

This module does not decide how much time a call gets (the loop does) and never retries.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time

import dspy

GRACE_S = 0.5  # the latest the caller hears of a timeout whose cancellation got stuck (a blocking LM)

# subtle: why not `config={"timeout": seconds_left}`, the obvious way in DSPy 3.4.1? Measured and
# read in dspy/clients: a timed-out request is retried `num_retries` (3) times with backoff, so
# 3 s left took 19 s. The timeout is lm15's wait for the *next byte*, not for the whole call. And
# it enters the response-cache key, so no call made with a deadline would hit the cache, and each
# new value builds another connection pool. llama.cpp's `t_max_predict_ms` only bounds generation,
# only after its first newline, only on llama.cpp, and is in the cache key too; DSPy's native
# engine refuses it anyway ("'t_max_predict_ms' cannot be carried by a canonical Request").
# Capping max_tokens from a tokens/s guess truncates the JSON, and tokens/s swings 4x when other
# work shares the cores.
#
# subtle: DSPy keys async calls apart from sync ones in its cache ("alitellm_completion"), so
# the loop sends every call through here, with or without a limit, to keep one cache.


class DeadlineExceeded(TimeoutError):
    """A predictor call did not finish in the time it was given; its request was cancelled."""


def call_within(predictor, seconds_left: float | None, **inputs) -> dspy.Prediction:
    """`predictor(**inputs)`, cancelled after `seconds_left` seconds (None: no limit).

    Raises `DeadlineExceeded` at `seconds_left` (at worst `GRACE_S` later), or at once if no time
    is left. Any other error of the call propagates unchanged. DSPy settings set with
    `dspy.context` in the calling thread (lm, adapter, usage tracking) apply to the call.
    """
    if seconds_left is None:
        return predictor(**inputs)  # nothing to cancel: no worker thread, no event loop
    if seconds_left <= 0:
        raise DeadlineExceeded(f"{_name(predictor)}: no time left to call the LM")
    call = _Call(predictor, seconds_left, inputs)
    worker = threading.Thread(target=contextvars.copy_context().run, args=(call.run,),
                              name=f"call_within:{_name(predictor)}", daemon=True)
    worker.start()
    try:
        # subtle: not worker.join(): on Python 3.11 a Ctrl-C inside join() marks the still
        # running thread as stopped (bpo-45274), so is_alive() would lie and nothing would cancel.
        call.finished.wait(None if call.deadline is None else max(0.0, call.deadline - time.monotonic()) + GRACE_S)
    finally:
        if not call.finished.is_set():  # stuck past the grace, or the caller was interrupted (Ctrl-C)
            call.cancel()
    return call.outcome()


class _Call:
    """One predictor call on a private event loop; the worker thread runs it, the caller reads it."""

    def __init__(self, predictor, seconds_left: float | None, inputs: dict):
        self.predictor, self.seconds_left, self.inputs = predictor, seconds_left, inputs
        # subtle: the limit runs from the call, not from when the worker's event loop starts: on a
        # starved machine starting a thread and a loop took a second
        self.deadline = None if seconds_left is None else time.monotonic() + seconds_left
        self.finished, self.result, self.error = threading.Event(), None, None
        self._loop = self._task = None
        self._cancelled = False

    def run(self) -> None:
        try:
            self.result = asyncio.run(self._bounded())
        except BaseException as error:  # noqa: BLE001 - handed to the caller's thread by outcome()
            self.error = error
        finally:
            self.finished.set()

    async def _bounded(self) -> dspy.Prediction:
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        if self._cancelled:  # cancel() ran before the task existed
            raise asyncio.CancelledError
        limit = asyncio.timeout(None if self.deadline is None else max(0.0, self.deadline - time.monotonic()))
        try:
            async with limit:
                return await self.predictor.acall(**self.inputs)
        except TimeoutError:
            if limit.expired():
                raise DeadlineExceeded(self._late()) from None
            raise

    def cancel(self) -> None:
        self._cancelled = True
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            try:
                loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:
                pass  # the loop has closed: the call is already over

    def outcome(self) -> dspy.Prediction:
        if self.error is not None:
            raise self.error
        if not self.finished.is_set():
            raise DeadlineExceeded(self._late() + f" (it has not stopped after {GRACE_S:g} s more)")
        return self.result

    def _late(self) -> str:
        return f"{_name(self.predictor)}: no answer within {self.seconds_left:.1f} s; the LM request was cancelled"


def _name(predictor) -> str:
    signature = getattr(predictor, "signature", None)
    return getattr(signature, "__name__", type(predictor).__name__)
