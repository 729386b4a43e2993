"""Builders for hand-made examples and predictions."""

import dspy

from optimize.eval.example_schema import make_example
from program.contract.result import Citation, Resources, Result, Timing, Tokens, Trace
from tests.conftest import passage


def example(answer="Chief of Protocol", gold=("Shirley Temple", "Kiss and Tell"), answers=None, answerable=True):
    return make_example("q", "q", answers or ([answer] if answerable else []), list(gold), answerable=answerable)


def prediction(answer, citations=(), evidence_titles=(), seconds=10.0, calls=3, short_answer="", abstained=False):
    cites = [Citation(n=n, chunk_id=f"c{n}", source="index", title=title, quote=quote) for n, title, quote in citations]
    result = Result(question="q", answer=answer, short_answer=short_answer, abstained=abstained, citations=cites,
                    evidence=[passage(t, "text") for t in evidence_titles],
                    timing=Timing(total_s=seconds),
                    trace=Trace(resources=Resources(lm=Tokens(calls=calls, prompt=1000, completion=100), web_searches=1)))
    return dspy.Prediction(answer=answer, result=result, evidence=result.evidence)
