"""JudgeSufficiency: the gate. Decides if the evidence answers the question, and what to do if not."""

from typing import Literal

import dspy

from signatures.short_text import Fact, Query

NextAction = Literal["answer", "query_docs", "search_web", "refine"]


class JudgeSufficiency(dspy.Signature):
    """Judge whether the numbered evidence fully answers the question, and choose the next step.
    The evidence suffices only if its passages state every fact the answer needs (a claim
    found only in the draft is not established). Choose:
    - answer: the evidence suffices and the draft answers the question from it;
    - refine: the evidence suffices but the draft is wrong, incomplete or uncited;
    - query_docs: a missing fact is likely in the document collection under other words;
    - search_web: a missing fact is about an entity the evidence never describes."""

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(desc="numbered passages [n], best first")
    draft: str = dspy.InputField(desc="the current draft answer with [n] citations")
    known_facts: list[str] = dspy.InputField(desc="facts established in earlier steps")
    constraints: str = dspy.InputField(desc="requirements the answer must meet, e.g. include code examples")
    sufficient: bool = dspy.OutputField(desc="true only if the evidence states every fact the answer needs")
    confidence: float = dspy.OutputField(desc="0.0 to 1.0: how sure you are the draft is correct and supported")
    missing: str = dspy.OutputField(desc="the fact still unknown; empty when sufficient")
    next_action: NextAction = dspy.OutputField()
    queries: list[Query] = dspy.OutputField(desc="for query_docs or search_web: 1 to 2 search queries for what is missing; for refine: the focus areas")
    facts: list[Fact] = dspy.OutputField(desc="short facts the evidence establishes, each ending with its [n]")
    gaps: list[Fact] = dspy.OutputField(desc="what the answer still needs; empty when sufficient")
