"""Two baselines for the gated loop, with the same LM, index, prompts and result contract.

`SinglePass`: retrieve for the question, answer once. `FixedHops`: the same first hop, then
always one more: rewrite a second-hop query from the draft, retrieve again, answer. No
signals, no judge, no gate, no web. Both reuse `GatedRAG`'s steps, so save/load, traces and
metrics work unchanged. They exist to measure what the signals, the judge and the gate add, and
to be served instead of the loop (`SYSTEMS`, the `system` setting) where, on a user's own
questions, they give more right answers a minute.
"""

from __future__ import annotations

import dspy

from program.hints import Hints
from program.lm.deadline import DeadlineExceeded
from program.loop import NO_ANSWER, GatedRAG, LearnedGate
from program.run_state import RunState

UNREAD = "a baseline answers the question as asked: it reads no session turns and no seed URL"


class SinglePass(GatedRAG):
    def forward(self, question: str, hints: Hints | None = None, time_limit_s: float | None = None,
                session_id: str | None = None, url: str | None = None) -> dspy.Prediction:
        """Called as the loop is, so that it can be served in its place. `hints`: their thresholds
        apply and their constraints join the query; their criteria are not checked (no score, no repair)."""
        hints = hints or Hints()
        run = RunState(question=question.strip(), thresholds=hints.apply(self.thresholds), time_limit_s=time_limit_s,
                       constraints=hints.requirements())
        run.sub_queries = [hints.query(run.question)]
        if session_id or url:
            run.warn(UNREAD)
        try:
            with run.step("retrieve", "hop 1: the question is the query") as step:
                self._retrieve(run, step, run.sub_queries)
            with run.step("draft", "hop 1: answer from the first retrieval"):
                self._draft(run)
            self._next_hops(run)
        except DeadlineExceeded as late:
            run.ended = "budget_exhausted"
            run.warn(f"time limit of {time_limit_s:g} s reached: {late}", "timeout")
        except Exception as error:  # noqa: BLE001 - like GatedRAG, a question ends with a result, never a crash
            run.ended = "error"
            run.warn(f"the baseline stopped: {type(error).__name__}: {error}", "loop_error")
        result = run.result(NO_ANSWER)
        return dspy.Prediction(answer=result.answer, short_answer=result.short_answer, result=result,
                               evidence=result.evidence)

    def _next_hops(self, run: RunState) -> None:
        """A single pass ends with its first draft."""


class FixedHops(SinglePass):
    def _next_hops(self, run: RunState) -> None:
        with run.step("query_docs", "hop 2: a query rewritten from the first draft, always") as step:
            run.resources.iterations += 1
            run.resources.doc_queries += 1
            # subtle: RewriteQuery reads the gaps; the first draft usually names the bridge
            # entity, which is what the second hop must look up
            run.memory.gaps = [f"the fact that completes the answer, beyond this first draft: {run.draft}"]
            self._retrieve(run, step, self._rewrite(run))
        with run.step("draft", "hop 2: answer again over both hops"):
            self._draft(run)


# what `ask`, the HTTP service, the MCP server and an MLflow model answer with, by the `system` setting
SYSTEMS: dict[str, type[GatedRAG]] = {"gated": GatedRAG, "learned": LearnedGate, "single_pass": SinglePass,
                                      "fixed_hops": FixedHops}
