"""Two baselines for the gated loop, with the same LM, index, prompts and result contract.

`SinglePass`: retrieve for the question, answer once. `FixedHops`: the same first hop, then
always one more: rewrite a second-hop query from the draft, retrieve again, answer. No
signals, no judge, no gate, no web. Both reuse `GatedRAG`'s steps, so save/load, traces and
metrics work unchanged. They exist to measure what the signals, the judge and the gate add.
"""

from __future__ import annotations

import dspy

from program.lm.deadline import DeadlineExceeded
from program.loop import NO_ANSWER, GatedRAG
from program.run_state import RunState


class SinglePass(GatedRAG):
    def forward(self, question: str, time_limit_s: float | None = None) -> dspy.Prediction:
        run = RunState(question=question, thresholds=self.thresholds.model_copy(), time_limit_s=time_limit_s)
        run.sub_queries = [question]
        try:
            with run.step("retrieve", "hop 1: the question is the query") as step:
                self._retrieve(run, step, [question])
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
