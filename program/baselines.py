"""Two baselines for the gated loop, with the same LM, index, prompts and result contract.

`SinglePass`: retrieve top-k for the question, answer once. `FixedHops`: the same first hop,
then always one more: rewrite a second-hop query from the draft, retrieve again, answer. No
judge, no gate, no web. Both reuse `GatedRAG`'s steps, so save/load, traces and metrics work
unchanged. They exist to measure what the judge and the gate add.
"""

from __future__ import annotations

import dspy

from program.gate import Verdict
from program.loop import NO_ANSWER, GatedRAG
from program.run_state import RunState


class SinglePass(GatedRAG):
    def forward(self, question: str, time_limit_s: float | None = None) -> dspy.Prediction:
        run = RunState(question=question, thresholds=self.thresholds.model_copy(), time_limit_s=time_limit_s)
        run.sub_queries = [question]
        draft = NO_ANSWER
        try:
            with run.step("retrieve", "hop 1: the question is the query") as step:
                self._retrieve(run, step, [question])
            with run.step("draft", "hop 1: answer from the first retrieval"):
                draft = self._draft(run)
            draft = self._next_hops(run, draft)
        except Exception as error:  # noqa: BLE001 - like GatedRAG, a question ends with a result, never a crash
            run.ended = "error"
            run.warn(f"the baseline stopped: {type(error).__name__}: {error}")
        result = run.result(draft)
        return dspy.Prediction(answer=result.answer, result=result, evidence=result.evidence)

    def _next_hops(self, run: RunState, draft: str) -> str:
        return draft  # a single pass ends with its first draft


class FixedHops(SinglePass):
    def _next_hops(self, run: RunState, draft: str) -> str:
        if run.out_of_time():
            return draft
        with run.step("query_docs", "hop 2: a query rewritten from the first draft, always") as step:
            run.resources.iterations += 1
            run.resources.doc_queries += 1
            # subtle: RewriteQuery reads `missing`; the first draft usually names the bridge
            # entity, which is what the second hop must look up.
            missing = f"the fact that completes the answer, beyond this first draft: {draft}"
            self._retrieve(run, step, self._rewrite(run, Verdict(missing=missing)))
            return self._draft(run)
