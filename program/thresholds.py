"""The tunable numbers of the loop: gates, budgets and evidence size.

They live on the program and travel with `save()`/`load()`, so a compiled program carries
the thresholds it was tuned with. Validation keeps a hand-edited JSON from loading nonsense.
"""

from pydantic import BaseModel, ConfigDict, Field


class Thresholds(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    answer_confidence: float = Field(0.7, ge=0.0, le=1.0, description="judge confidence at or above which a sufficient verdict answers")
    top_k: int = Field(3, ge=1, le=50, description="passages retrieved per query")
    score_floor: float = Field(0.2, ge=-1.0, le=1.0, description="dense similarity below which a retrieved passage is dropped")
    coverage_similarity: float = Field(0.55, ge=-1.0, le=1.0, description="a sub-query whose best indexed passage is less similar than this is not covered by the collection, so the web is searched")
    max_iterations: int = Field(3, ge=0, le=10, description="judge rounds after the first draft")
    max_doc_queries: int = Field(2, ge=0, le=10, description="extra doc retrieval rounds after the first")
    max_web_searches: int = Field(2, ge=0, le=10)
    web_results: int = Field(3, ge=1, le=10)
    evidence_tokens: int = Field(450, ge=50, le=8000, description="token budget for the evidence shown to the LM")
    passage_tokens: int = Field(100, ge=20, le=2000, description="token cap for one passage after trimming to its best sentences")
