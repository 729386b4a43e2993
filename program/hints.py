"""Hints a caller (an agent, a service request) can give the loop with a question.

They steer the loop without changing the compiled program: the intent skips the decomposer's
classification, known context keeps it from planning queries for what the caller has, the
constraints ride along with every retrieval query and every LM call, and the expansion budget caps
the rounds after the first retrieval. The acceptance criteria (required and prohibited elements, a
domain check; see `program.answer.criteria`) are shown to every LM call and scored on the answer, which
gets one repair when they fail. A bad pattern or check name is rejected here, before anything runs.
This module only describes them; `GatedRAG` applies them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from program.answer.criteria import CHECKS, Criteria, compile_element, known_check
from program.thresholds import Thresholds
from signatures import QueryType


def _valid_element(element: str) -> str:
    compile_element(element)
    return element


Element = Annotated[str, StringConstraints(min_length=1, max_length=200), AfterValidator(_valid_element)]
_ELEMENTS = 'plain text (case-insensitive, whole words) or "re:" and a regular expression'


class Hints(BaseModel):
    model_config = ConfigDict(extra="forbid")

    intent: QueryType | None = Field(None, description="the question's type, if the caller knows it")
    known_context: str = Field("", max_length=4000, description="what the caller already knows; not fetched again")
    constraints: str = Field("", max_length=500, description='a requirement every query and the judge read, e.g. '
                             '"must include code examples"')
    expansion_budget: int | None = Field(None, ge=0, le=10, description="extra retrieval rounds; 0 = one retrieval pass")
    required: list[Element] = Field([], max_length=10, description=f"what the answer must contain: {_ELEMENTS}")
    prohibited: list[Element] = Field([], max_length=10, description=f"what the answer must not contain: {_ELEMENTS}")
    check: Annotated[str, AfterValidator(known_check), Field(json_schema_extra={"enum": sorted(CHECKS)})] | None = Field(
        None, description=f"a named domain check of the answer: {', '.join(sorted(CHECKS))}")

    @property
    def criteria(self) -> Criteria:
        return Criteria(required=tuple(self.required), prohibited=tuple(self.prohibited), check=self.check)

    def query(self, text: str) -> str:
        """A retrieval query with the constraints riding along."""
        return f"{text} {self.constraints}".strip()

    def requirements(self) -> str:
        """What every LM call reads with the question: the constraints, then the criteria."""
        return "; ".join(part for part in (self.constraints, self.criteria.prompt()) if part)

    def apply(self, thresholds: Thresholds) -> Thresholds:
        """The thresholds with the expansion budget's caps; the program's own stay untouched."""
        if self.expansion_budget is None:
            return thresholds.model_copy()
        b = self.expansion_budget
        return thresholds.model_copy(update={
            "max_iterations": min(thresholds.max_iterations, b), "max_doc_queries": min(thresholds.max_doc_queries, b),
            "max_web_searches": min(thresholds.max_web_searches, b)})
