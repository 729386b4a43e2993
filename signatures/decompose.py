"""Decompose: split a question into the retrieval queries that together answer it."""

from typing import Literal

import dspy

from signatures.short_text import Query, Term

QueryType = Literal["factual", "comparison", "how_to", "exploratory"]


class Decompose(dspy.Signature):
    """Plan retrieval for the question. Write one to four short search queries, one per fact
    the answer needs; for a two-hop question, one query per hop, naming each entity. Keep
    the question's exact names and titles in the queries."""

    question: str = dspy.InputField()
    known_context: str = dspy.InputField(desc="what the asker already knows; plan no query for it")
    sub_queries: list[Query] = dspy.OutputField(desc="1 to 4 short search queries, most important first")
    query_type: QueryType = dspy.OutputField(desc="comparison when two things are compared, else factual unless a how-to or open topic")
    key_concepts: list[Term] = dspy.OutputField(desc="the named entities and terms the answer depends on")
