"""Hints a caller (an agent, a service request) can give the loop with a question.

They steer the loop without changing the compiled program: the intent skips the decomposer's
classification, known context keeps it from planning queries for what the caller has, the
constraints ride along with every retrieval query and every LM call, and the expansion budget caps
the rounds after the first retrieval. This module only describes them; `GatedRAG` applies them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from signatures import QueryType
from program.thresholds import Thresholds


class Hints(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: QueryType | None = Field(None, description="the question's type, if the caller knows it")
    known_context: str = Field("", max_length=4000, description="what the caller already knows; not fetched again")
    constraints: str = Field("", max_length=500, description='e.g. "must include code examples"')
    expansion_budget: int | None = Field(None, ge=0, le=10, description="extra retrieval rounds; 0 = one retrieval pass")

    def apply(self, thresholds: Thresholds) -> Thresholds:
        """The thresholds with the expansion budget's caps; the program's own stay untouched."""
        if self.expansion_budget is None:
            return thresholds.model_copy()
        b = self.expansion_budget
        return thresholds.model_copy(update={
            "max_iterations": min(thresholds.max_iterations, b), "max_doc_queries": min(thresholds.max_doc_queries, b),
            "max_web_searches": min(thresholds.max_web_searches, b)})
