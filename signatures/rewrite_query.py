"""RewriteQuery: new retrieval queries for what is missing, unlike the ones already tried."""

import dspy

from signatures.short_text import Query


class RewriteQuery(dspy.Signature):
    """Write new search queries to find the missing information. Use other words, synonyms or
    the entity that the missing fact is about; never repeat a query already tried."""

    question: str = dspy.InputField()
    missing: str = dspy.InputField(desc="what the evidence does not yet say")
    tried_queries: list[str] = dspy.InputField(desc="queries already run; do not repeat them")
    queries: list[Query] = dspy.OutputField(desc="1 to 2 new short search queries")
