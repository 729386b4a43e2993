"""The tunable numbers of the loop: signal thresholds, budgets, evidence size and the planning mode.

They live on the program and travel with `save()`/`load()`, so a compiled program carries
the thresholds it was tuned with, and `optimize.job.threshold_search` tunes any of them.
Validation keeps a hand-edited JSON from loading nonsense. This module decides nothing; the
gate (`program.gate`) reads these numbers.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DecomposeMode = Literal["llm", "rule_based", "none"]


class Thresholds(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # planning
    decompose_mode: DecomposeMode = Field("rule_based", description="llm: an LM call plans the sub-queries; "
                                          "rule_based: patterns and named entities, no LM; none: the question alone")
    # retrieval and the adaptive cut
    top_k: int = Field(3, ge=1, le=50, description="most passages kept per query after the score-cliff cut")
    candidates_k: int = Field(8, ge=1, le=100, description="passages ranked per query, where the cliff is looked for")
    # subtle: at `answer_source_similarity`'s default: a passage under it can source no answer, and
    # shown anyway it cost prompt tokens and lent the 0.5B wrong spans ("Joey", for American Idol's
    # judges, from a 0.24 passage kept after a 0.62 cliff). From 0.2, on the four corpora: MuSiQue
    # refused 9 of 40, not 14, and every corpus's median question was faster
    score_floor: float = Field(0.3, ge=-1.0, le=1.0, description="dense similarity below which a retrieved passage is dropped")
    # signals the gate answers on without a judge
    coverage_similarity: float = Field(0.45, ge=-1.0, le=1.0, description="a sub-query whose best indexed passage is "
                                       "less similar than this is not covered by the collection")
    entity_coverage: float = Field(1.0, ge=0.0, le=1.0, description="share of the question's named entities the "
                                   "evidence must mention to count as covered")
    term_coverage: float = Field(1.0, ge=0.0, le=1.0, description="share of the question's own terms (outside its "
                                 "names) the evidence must use to count as covered; below it, a second hop")
    cliff_to_answer: float = Field(0.1, ge=0.0, le=1.0, description="relative score gap after the best hits at or "
                                   "above which a covered question is answered with no judge call")
    cut_cliff: float = Field(0.1, ge=0.0, le=1.0, description="relative score gap after the best hits at or above "
                             "which retrieval keeps only the hits before it (Adaptive-k)")
    plateau_spread: float = Field(0.03, ge=0.0, le=1.0, description="top-k similarities within this spread are a plateau")
    plateau_best: float = Field(0.6, ge=-1.0, le=1.0, description="a plateau whose best similarity is under this is "
                                "mediocre: no clear answer passage")
    redundancy_cosine: float = Field(0.95, ge=0.0, le=1.0, description="passages at least this similar are near-duplicates")
    saturation: float = Field(0.9, ge=0.0, le=2.0, description="pool tokens / evidence budget past which more retrieval "
                              "only crowds the prompt")
    min_gain: float = Field(0.05, ge=0.0, le=1.0, description="a round that adds less coverage than this shows "
                            "diminishing returns")
    locality_similarity: float = Field(0.6, ge=-1.0, le=1.0, description="a hit at least this similar is strong: its "
                                       "neighbouring chunks are tried before any LM rewrite")
    # the judge, called only where the reader said "unknown" over a clear hit
    answer_confidence: float = Field(0.7, ge=0.0, le=1.0, description="judge confidence at or above which a "
                                     "sufficient verdict answers")
    off_topic_similarity: float = Field(0.3, ge=-1.0, le=1.0, description="a question whose best hit is under "
                                        "this found nothing on topic: a refusal made with no LM call (after the "
                                        "web, when there is one), as is `names_on_topic`'s; every other \"I don't "
                                        "know\" comes from reading")
    names_on_topic: float = Field(0.25, ge=0.0, le=1.0, description="a question that names something, whose "
                                  "evidence mentions under this share of its names (after any expansion), found "
                                  "nothing on what it names: the loop abstains with no LM call; 0 never does")
    answer_source_similarity: float = Field(0.3, ge=-1.0, le=1.0, description="a short answer read from a passage "
                                            "less similar than this to the query that found it answers nothing (a span "
                                            "from a passage about something else): the loop abstains. Apart from "
                                            "`off_topic_similarity`, so a corpus whose unanswerable questions sit on topic "
                                            "can raise it without refusing any unread question")
    answer_support: float = Field(0.5, ge=0.0, le=1.0, description="share of a short answer's words that one of the "
                                  "passages it cites must use; under it the answer is not in its evidence, and the "
                                  "loop abstains")
    release: Literal["rules", "learned"] = Field("rules", description="who gives or withholds a final answer: rules: "
                                                 "the support, source and reach checks refuse a draft; learned: they "
                                                 "are features, and the acceptance model's P(right) decides")
    wrong_answer_cost: float = Field(1.0, gt=0.0, le=100.0, description="with the learned release, what a wrong "
                                     "answer costs against a right one's 1: answer when P(right) > cost / (1 + cost)")
    read_sufficiency: float | None = Field(None, ge=0.0, le=1.0, description="the learned read-or-expand: the reader "
                                           "drafts once the sufficiency model's P(the evidence holds the answer) "
                                           "reaches this, and below it the gate expands while a round is left; "
                                           "None: the rules decide when the evidence is read")
    web_gap_similarity: float = Field(0.55, ge=-1.0, le=1.0, description="a sub-query the collection has no page "
                                      "for goes to the web only when the question's best hit is under this")
    # budgets
    max_iterations: int = Field(3, ge=0, le=10, description="rounds after the first retrieval (judge, expansions)")
    max_judge_calls: int = Field(1, ge=0, le=5, description="LM judgements per question")
    max_doc_queries: int = Field(2, ge=0, le=10, description="extra doc retrieval rounds after the first")
    max_web_searches: int = Field(1, ge=0, le=10)
    web_results: int = Field(3, ge=1, le=10)
    # breadth expansion from a seed URL (program/retrieval/breadth.py): the link score's weights and the budgets
    link_path_weight: float = Field(0.15, ge=0.0, le=1.0, description="weight of the question's terms in a link's URL path")
    link_title_weight: float = Field(0.40, ge=0.0, le=1.0, description="weight of the question's similarity to the "
                                     "link's anchor text")
    link_description_weight: float = Field(0.30, ge=0.0, le=1.0, description="weight of the question's similarity to "
                                           "the heading the link sits under")
    link_in_degree_weight: float = Field(0.05, ge=0.0, le=1.0, description="weight of how many pages link there")
    link_depth_weight: float = Field(0.10, ge=0.0, le=1.0, description="weight of closeness to the seed (1/(1+hops))")
    breadth_pages: int = Field(5, ge=1, le=20, description="pages fetched in one expansion round")
    max_breadth_rounds: int = Field(2, ge=0, le=5, description="expansion rounds from a seed URL")
    max_breadth_pages: int = Field(10, ge=0, le=100, description="pages fetched for one question in all")
    breadth_redundancy: float = Field(0.34, ge=0.0, le=1.0, description="a clear best source with less redundancy "
                                      "than this stands alone: its links are followed")
    breadth_fill: float = Field(0.5, ge=0.0, le=2.0, description="good scores over evidence filling less than this "
                                "share of its token budget: the links are followed for more")
    # evidence shown to the LM
    evidence_tokens: int = Field(400, ge=50, le=8000, description="token budget for the evidence shown to the LM")
    relevance_weight: float = Field(0.7, ge=0.0, le=1.0, description="MMR weight of relevance against novelty when "
                                    "ordering the evidence across sub-queries; 1.0 orders by fused score alone")
    passage_tokens: int = Field(100, ge=20, le=2000, description="token cap for one passage after trimming to its best sentences")
    # the answer's score (program/answer/acceptance.py) and its one repair (program/gate.py)
    judge_weight: float = Field(0.7, ge=0.0, le=1.0, description="weight of the judge part (criteria met x the LM "
                                "judge's confidence) in the answer's score")
    factuality_weight: float = Field(0.3, ge=0.0, le=1.0, description="weight of factuality (support by the cited "
                                     "passages, contradictions, hedging) in the answer's score")
    accept_score: float = Field(0.7, ge=0.0, le=1.0, description="an answer scoring this or more is accepted; under "
                                "it, a failed criterion or a clear contradiction buys one repair")
    # follow-ups in a session (program/sessions/follow_up.py)
    follow_up_words: int = Field(6, ge=0, le=30, description="a question of at most this many words that names "
                                 "nothing, asked within follow_up_seconds of its session's last turn, is a follow-up")
    follow_up_seconds: float = Field(120.0, ge=0.0, le=3600.0, description="see follow_up_words")

    @model_validator(mode="after")
    def _some_weight(self):
        if self.judge_weight + self.factuality_weight <= 0:
            raise ValueError("judge_weight and factuality_weight cannot both be 0")
        return self
