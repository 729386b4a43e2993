"""Two baselines for the gated loop, with the same LM, index, prompts and result contract.

`SinglePass`: retrieve top-k for the question, answer once. `FixedHops`: retrieve, draft,
rewrite one second-hop query from the draft, retrieve again, answer; always two hops, no judge,
no web. Both reuse `GatedRAG`'s steps and override only `forward`, so save/load, traces and
metrics work unchanged. They exist to measure what the judge and the gate add.
"""

from __future__ import annotations

import dspy

from program.gate import Verdict
from program.loop import NO_ANSWER, GatedRAG
from program.run_state import RunState


class SinglePass(GatedRAG):
    def forward(self, question: str, time_limit_s: float | None = None) -> dspy.Prediction:
        run = _start(self, question, time_limit_s)
        draft = NO_ANSWER
        try:
            with run.step("retrieve", "single pass: the question is the only query") as step:
                self._retrieve(run, step, [question])
            with run.step("draft", "single pass: the answer from the first retrieval"):
                draft = self._draft(run)
        except Exception as error:  # noqa: BLE001 - like GatedRAG, a question ends with a result
            _failed(run, error)
        return _finish(run, draft)


class FixedHops(GatedRAG):
    def forward(self, question: str, time_limit_s: float | None = None) -> dspy.Prediction:
        run = _start(self, question, time_limit_s)
        draft = NO_ANSWER
        try:
            with run.step("retrieve", "hop 1: the question as the query") as step:
                self._retrieve(run, step, [question])
            with run.step("draft", "hop 1 draft"):
                draft = self._draft(run)
            if not run.out_of_time():
                with run.step("query_docs", "hop 2: a query rewritten from the first draft, always") as step:
                    run.resources.iterations += 1
                    run.resources.doc_queries += 1
                    self._retrieve(run, step, self._rewrite(run, _second_hop(draft)))
                    draft = self._draft(run)
        except Exception as error:  # noqa: BLE001
            _failed(run, error)
        return _finish(run, draft)


def _second_hop(draft: str) -> Verdict:
    # subtle: RewriteQuery reads `missing`; the first draft usually names the bridge entity,
    # which is what the second hop must look up.
    return Verdict(missing=f"the fact that completes the answer, beyond this first draft: {draft}")


def _start(program: GatedRAG, question: str, time_limit_s: float | None) -> RunState:
    run = RunState(question=question, thresholds=program.thresholds.model_copy(), time_limit_s=time_limit_s)
    run.sub_queries = [question]
    return run


def _failed(run: RunState, error: Exception) -> None:
    run.ended = "error"
    run.warn(f"the baseline stopped: {type(error).__name__}: {error}")


def _finish(run: RunState, draft: str) -> dspy.Prediction:
    result = run.result(draft)
    return dspy.Prediction(answer=result.answer, result=result, evidence=result.evidence)
