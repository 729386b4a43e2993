"""gatedrag's metrics: plain functions of (example, prediction), and the composite for optimizers."""

from metrics.answer_in_evidence import answer_in_evidence
from metrics.answer_quality import (
           answer_coverage,
           exact_match,
           normalize_answer,
           token_f1,
)
from metrics.citation_faithfulness import (
           CitationScores,
           citation_precision,
           citation_recall,
           score_citations,
)
from metrics.composite import (
           CompositeMetric,
           CompositeWeights,
           Scorecard,
           score_example,
)
from metrics.cost import Cost, latency_and_cost
from metrics.evidence_recall import evidence_recall
from metrics.gold_citations import gold_citation_precision
from metrics.gold_sources import source_matches
from metrics.net_right import net_right
from metrics.outcome import Outcome, outcome
from metrics.risk_coverage import RiskCoverage, risk_coverage
from metrics.support_judge import (
           LexicalSupportJudge,
           LMSupportJudge,
           SupportJudge,
           build_support_judge,
)

__all__ = ["CitationScores", "CompositeMetric", "CompositeWeights", "Cost", "LMSupportJudge", "LexicalSupportJudge",
           "Outcome", "RiskCoverage", "Scorecard", "SupportJudge", "answer_coverage", "answer_in_evidence",
           "build_support_judge", "citation_precision", "citation_recall", "evidence_recall", "exact_match",
           "gold_citation_precision", "latency_and_cost", "net_right", "normalize_answer", "outcome", "risk_coverage",
           "score_citations", "score_example", "source_matches", "token_f1"]
