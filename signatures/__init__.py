"""The prompts of gatedrag: one DSPy signature per step of the loop."""

from signatures.contextualize import Contextualize
from signatures.decompose import Decompose, QueryType
from signatures.judge_sufficiency import JudgeSufficiency
from signatures.judge_support import JudgeSupport
from signatures.refine_answer import RefineAnswer
from signatures.repair_answer import RepairAnswer
from signatures.repair_code import RepairCode
from signatures.rewrite_query import RewriteQuery
from signatures.synthesize_answer import SynthesizeAnswer

__all__ = ["Contextualize", "Decompose", "JudgeSufficiency", "JudgeSupport", "QueryType", "RefineAnswer", "RepairAnswer",
           "RepairCode", "RewriteQuery", "SynthesizeAnswer"]
