"""The gate: all of the loop's policy, as pure functions from what was measured to the next action.

Signals first: a question whose sub-queries and entities are covered, with a clear score
cliff, is answered with no judge call; a reader's "unknown" there is the only draft the LM judge
reads again, and its verdict can send the loop on. A clear gap goes straight to the right
expansion (neighbouring chunks, the web, or a doc re-query); from a seed URL, the links of the
seed's pages are followed first when one good source is not enough.
The only refusals made with no LM call are for a question retrieval found nothing on topic for:
no passage similar enough, or none that mentions what the question names; every other "I don't
know" is the reader's, and a short answer that none of its cited passages uses is no answer.
Budgets are counted here too (`budget_left`), and web queries are chosen here (`web_queries`).
Once answered, the answer's score decides whether it gets its one repair (`decide_acceptance`).
No LM, no retrieval, no I/O: every rule can be tested with hand-built inputs, and each decision
names the rule that fired.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from program.answer.acceptance import AnswerScore
from program.answer.short_answer import says_unknown
from program.contract.result import Incident, Resources
from program.retrieval.passage import Passage
from program.sessions.follow_up import FollowUpCues
from program.signals import Signals, measured_queries, score_cliff
from program.thresholds import Thresholds

# subtle: the second passage after a cliff is often a two-hop question's bridge, so a cut keeps it
MIN_KEPT = 2
# a reported confidence (0-100) never exceeds what the retrieval supports; without a judge round, a prior stands in
CONFIDENCE_CAP: dict[str, int] = {"high": 100, "medium": 75, "low": 40, "none": 10}
CONFIDENCE_PRIOR: dict[str, int] = {"high": 60, "medium": 45, "low": 20, "none": 5}
UNFINISHED_CAP = 50  # the loop stopped before the judge was satisfied
FALLBACK_CAP = 20  # the answer is replaced by a fallback
INSUFFICIENT_CAP = 0.5  # the most confidence an answer keeps when the judge found its evidence insufficient
Action = Literal["draft", "refine", "judge", "answer", "abstain", "expand_locality", "query_docs", "search_web",
                 "expand_breadth", "score", "repair", "release"]
Ending = Literal["answered", "abstained", "budget_exhausted"]


@dataclass(frozen=True)
class Verdict:
    """The judge's reading of the evidence it was shown (with the draft it wrote in the same call)."""

    sufficient: bool = False
    confidence: float = 0.0
    gaps: tuple[str, ...] = ()  # the missing facts, each phrased to be searched as it stands
    readable: bool = True  # False: the output was malformed even after a retry


@dataclass(frozen=True)
class Budget:
    iterations: int
    judge_calls: int
    doc_queries: int
    web_searches: int  # 0 when there is no web backend
    seconds: float | None = None  # None: no time limit
    breadth_rounds: int = 0  # 0 without a seed URL
    pages: int = 0  # pages breadth expansion may still fetch


@dataclass(frozen=True)
class Progress:
    """Where the loop stands: whether its draft reads the current evidence, and the verdict on it."""

    has_draft: bool = False
    draft_current: bool = False  # the draft was written over the evidence as it is now
    draft_unknown: bool = False  # the draft's short answer says the evidence lacks it
    answer_support: float = 1.0  # how much of the draft's short answer its cited passages use (see signals.answer_support)
    answer_similarity: float | None = None  # how on topic the passage it comes from is (see signals.source_similarity)
    answer_reached: bool = True  # the passage it comes from is reached from the question's names (see signals.answer_reached)
    verdict: Verdict | None = None  # the judge's verdict over the current evidence, if any
    question: str = ""
    expansions: int = 0  # retrieval rounds after the first
    breadth_rounds: int = 0  # of those, rounds that followed links from a seed URL
    doc_rounds: int = 0  # of those, rounds on the collection
    last_found_nothing: bool = False  # the last expansion added no new passage
    tried_docs: frozenset[str] = frozenset()  # queries already run on the collection
    searched_web: frozenset[str] = frozenset()  # queries already sent to the web
    web_sourced_gaps: frozenset[str] = frozenset()  # the verdict's gaps using a term only web passages hold
    sufficiency: float | None = None  # P(the evidence holds the answer), when `read_sufficiency` asks for it


@dataclass(frozen=True)
class Decision:
    action: Action
    rule: str
    reason: str
    ended: Ending = "answered"
    queries: tuple[str, ...] = ()
    pages: int = 0  # expand_breadth: how many of the best links to fetch
    absent: tuple[str, ...] = ()  # draft: names the question compares that no passage mentions, told to the reader
    incident: Incident | None = None  # what went wrong, when that is why the loop ends here


def decide(s: Signals, p: Progress, b: Budget, t: Thresholds) -> Decision:
    """The next action. A draft is told which of the names a comparison compares no passage
    mentions: the reader cannot compare what it has not read."""
    decision = _next(s, p, b, t)
    if decision.action == "draft" and (absent := _absent_sides(s)):
        return replace(decision, absent=absent, reason=f"{decision.reason}; told no passage mentions {_names(absent)}")
    return decision


def _absent_sides(s: Signals) -> tuple[str, ...]:
    """The names a comparison compares that no word of the evidence is even close to."""
    return tuple(n for n in s.compared_pageless if n in s.unnamed)


def _next(s: Signals, p: Progress, b: Budget, t: Thresholds) -> Decision:
    """The next action. Rules are tried in order; the first that applies wins."""
    if b.seconds is not None and b.seconds <= 0:
        return replace(_finish("out_of_time", "the time limit is reached", p, t, ended="budget_exhausted"),
                       incident="timeout")
    verdict = p.verdict
    if verdict is not None and not verdict.readable:
        return _finish("judge_unreadable", "the judge's output could not be read; answering from the evidence", p, t)
    # subtle: the judge once read such a draft again. On the four corpora it did so for 50 of 190 questions,
    # a second LM call each, and none of the 7 answers it gave was right (F1 under 0.5)
    if _unsupported(p, t) and verdict is None:
        return Decision("abstain", "answer_unsupported", f"{_unsupported_reason(p, t)}: that is no answer",
                        ended="abstained")
    if verdict is not None and verdict.sufficient and verdict.confidence >= t.answer_confidence:
        return _finish("judge_sufficient", f"the judge finds the evidence sufficient (confidence {verdict.confidence:.2f})", p, t)
    if (breadth := _breadth(s, p, b, t)) is not None:
        return breadth
    if s.best < t.off_topic_similarity and not p.searched_web:
        return _off_topic(s, p, b, t)
    if (learned := _read_or_expand(s, p, b, t)) is not None:
        return learned
    if verdict is None and _clear_hit(s, p, t):
        if p.draft_current and p.draft_unknown and b.judge_calls > 0 and b.iterations > 0:
            return Decision("judge", "unknown_over_clear_hit", f"the reader found no answer, but every sub-query, "
                            f"entity and question term is covered with a score cliff {s.cliff:.2f}: the judge reads "
                            "the evidence again")
        return _finish("covered_with_cliff", f"every sub-query, entity and question term covered, score cliff {s.cliff:.2f}", p, t)
    if b.iterations > 0 and (expand := _expand(s, p, b, t)) is not None:
        return expand
    if verdict is None and not p.draft_current:
        if _names_off_topic(s, t):
            return Decision("abstain", "names_off_topic", f"no passage mentions {_names(s.unnamed)}: nothing "
                            "in the evidence is about what the question names", ended="abstained")
        # subtle: the reader decides here, not the judge: the 0.5B judge called nearly every
        # evidence set sufficient and wrote phrases for short answers; on 20 MuSiQue questions the
        # reader was as right (F1 0.020 against 0.026) in 6.9 s against 8.9 s at the median. A
        # draft its passages do not support is what buys the judge
        return _finish("ambiguous", f"signals are inconclusive (cliff {s.cliff:.2f}, best {s.best:.2f}, "
                       f"entities {s.entity_coverage:.0%}, terms {s.term_coverage:.0%}): the reader drafts", p, t)
    if verdict is None:
        return _finish("reader_supported", "the reader's short answer is in the passages it cites", p, t)
    if not verdict.sufficient:
        return _finish("gaps_left", f"the judge's gaps ({_names(verdict.gaps)}) remain and no budget can close them",
                       p, t, ended="budget_exhausted")
    return _finish("best_effort", "nothing left worth a round: answering from the evidence", p, t)


def _read_or_expand(s: Signals, p: Progress, b: Budget, t: Thresholds) -> Decision | None:
    """The learned read-or-expand, when `read_sufficiency` is set and nothing is drafted yet: the reader
    drafts once P(the evidence holds the answer) reaches it, whatever gaps the rules see; below it, a
    round is spent on the expansion the rules pick, while one is left. None leaves it to the rules."""
    if t.read_sufficiency is None or p.sufficiency is None or p.verdict is not None or p.draft_current:
        return None
    if p.sufficiency >= t.read_sufficiency:
        return _finish("likely_sufficient", f"P(the evidence holds the answer) {p.sufficiency:.2f} reaches "
                       f"{t.read_sufficiency:.2f}: the reader drafts", p, t)
    return _expand(s, p, b, t) if b.iterations > 0 else None


def _breadth(s: Signals, p: Progress, b: Budget, t: Thresholds) -> Decision | None:
    """From a seed URL, the links are followed when one good source is not enough: nothing on topic
    yet, a gap in the evidence, a clear best passage nothing corroborates ("cliff + low redundancy"),
    or good scores over thin evidence ("good scores + low token fill"); until a round adds nothing."""
    if b.breadth_rounds <= 0 or b.pages <= 0 or b.iterations <= 0:
        return None
    if p.breadth_rounds and (p.last_found_nothing or s.gain < t.min_gain):
        return None  # diminishing returns: the links followed so far added nothing worth another round
    pages = min(t.breadth_pages, b.pages)
    if s.best < t.off_topic_similarity:
        rule, why = "off_topic_to_links", f"the best passage is only {s.best:.2f} similar"
    elif not covered(s, t):
        rule, why = "gap_to_links", f"the evidence misses {_names(s.missing_entities or s.missing_terms or uncovered(s, t))}"
    elif s.cliff >= t.cliff_to_answer and redundancy(s, t) < t.breadth_redundancy:
        rule, why = "lone_source", f"one clear source (cliff {s.cliff:.2f}) that nothing corroborates"
    elif s.best >= t.coverage_similarity and s.saturation < t.breadth_fill:
        rule, why = "thin_evidence", f"good scores (best {s.best:.2f}) over evidence filling {s.saturation:.0%} of its budget"
    else:
        return None
    return Decision("expand_breadth", rule, f"{why}: following the best {pages} link(s) from the seed's pages",
                    pages=pages)


def _clear_hit(s: Signals, p: Progress, t: Thresholds) -> bool:
    """Everything the question asks is covered and one passage stands out: the evidence is on topic.
    subtle: over every recorded run of the four corpora and the documentation sets, the reader said
    "unknown" there on 17 questions, and 16 were answerable (ClapNQ, the AWS guides, libxslt, Nettle,
    npm, Git's notes, Python-Markdown; the one that was not, on Cargo's book): so it buys the judge's
    reading, not a refusal."""
    return (covered(s, t) and not s.compared_pageless and not _hop_pending(s, p) and s.cliff >= t.cliff_to_answer
            and not plateau(s, t))


def _names_off_topic(s: Signals, t: Thresholds) -> bool:
    """The question names something and the evidence, expansions done, mentions (nearly) none of it:
    retrieval found nothing on what the question asks about, whatever its other words match.
    subtle: read from the passages' text, not titles, so it holds on any corpus. With the gold pages
    of 30 HotpotQA questions hidden, the 0.5B read an answer into passages that never named the
    question's subject ("Sachin Bansal" for where Sachin Warrier's company is) on 7. With the gold
    shown, 3 questions of HotpotQA, MuSiQue, ClapNQ and the AWS docs (160) met no name, and the
    reader got none of them right. A typo in a name is forgiven (`signals.loosely_mentions`): "Livesey
    Hal War Memorial" was refused once though its passage names Livesey Hall War Memorial."""
    return s.named > 0 and 1.0 - len(s.unnamed) / s.named < t.names_on_topic


def _unsupported(p: Progress, t: Thresholds) -> bool:
    """The current draft answers, but no passage it cites uses its short answer, or the one that
    does is off topic (under `answer_source_similarity`) or reached from none of the question's
    names: that is no answer. With the learned release these checks are the acceptance model's
    features, weighed with the others, not refusals."""
    return t.release == "rules" and p.draft_current and not p.draft_unknown and (p.answer_support < t.answer_support or _off_topic_source(p, t)
                                                        or not p.answer_reached)


def _off_topic_source(p: Progress, t: Thresholds) -> bool:
    return p.answer_similarity is not None and p.answer_similarity < t.answer_source_similarity


def _unsupported_reason(p: Progress, t: Thresholds) -> str:
    if p.answer_support < t.answer_support:
        return f"no passage the answer cites uses its short answer (support {p.answer_support:.2f})"
    if _off_topic_source(p, t):
        return f"the passage its short answer comes from is off topic (similarity {p.answer_similarity:.2f})"
    return "the passage its short answer comes from is reached from none of the question's names"


def _off_topic(s: Signals, p: Progress, b: Budget, t: Thresholds) -> Decision:
    """Retrieval found nothing on topic: the web if there is one, else a refusal with no LM call."""
    found = f"the best passage is only {s.best:.2f} similar" if s.best >= 0 else "no passage was found"
    web = web_queries(s, p, t, own=(p.question,))
    if b.web_searches > 0 and b.iterations > 0 and web:
        return Decision("search_web", "off_topic_to_web", f"{found}: nothing in the collection is on topic", queries=web)
    return Decision("abstain", "nothing_on_topic", f"{found}: nothing in the collection is on topic",
                    ended="abstained")


def decide_acceptance(score: AnswerScore, abstained: bool, seconds: float | None, t: Thresholds) -> Decision:
    """Whether the answer gets its one repair ("repair") or stands as scored ("score"). The loop
    asks once per question, so an answer is never repaired twice.

    subtle: the cost guard. A score under the threshold is not enough: only a criterion the
    caller set and the answer fails, or a clear contradiction of its own cited passages, buys
    the repair's LM call. An ordinary answer under the threshold (a low judge confidence, thin
    lexical support) stands as it is, so a question asked with no criteria keeps the loop's
    budget of LM calls and prompt tokens; a repair there could only reword the same evidence."""
    stands = f"score {score.total:.2f}"
    if abstained:
        return Decision("score", "abstained", "an abstention has no answer to repair")
    if accepts(score, t):
        return Decision("score", "score_accepted", f"{stands} is at least {t.accept_score:.2f}")
    rule = "criteria_failed" if score.criteria.failed else "contradiction" if score.factuality.contradictions else ""
    if not rule:
        return Decision("score", "under_threshold_no_trigger", f"{stands} is under {t.accept_score:.2f}, but no "
                        "criterion fails and nothing contradicts the evidence: no repair")
    if seconds is not None and seconds <= 0:
        return Decision("score", "out_of_time", f"{stands}, and the time limit is reached")
    return Decision("repair", rule, f"{stands} is under {t.accept_score:.2f}: {'; '.join(score.failed[:3])}")


def decide_release(p_right: float, t: Thresholds, threshold: float | None = None) -> Decision:
    """The last decision on a final answer: give it, or abstain. With the learned release, answer only
    when the acceptance model's P(right) reaches `threshold` (chosen to bound the wrong rate) or,
    without one, when answering pays: a right answer earns 1 and a wrong one costs `wrong_answer_cost`,
    so answer when P(right) > cost (1 - P(right)), that is P(right) > cost / (1 + cost)."""
    if t.release == "rules":
        return Decision("answer", "released_by_rules", "no acceptance model weighs it: the gate's rules released it")
    cost = t.wrong_answer_cost
    bar, why = (threshold, "the bounded wrong rate's threshold") if threshold is not None else (
        cost / (1 + cost), f"where a wrong answer's cost {cost:g} is paid for")
    if p_right >= bar if threshold is not None else p_right > bar:
        return Decision("answer", "likely_right", f"P(right) {p_right:.2f} passes {bar:.2f}, {why}")
    return Decision("abstain", "likely_wrong", f"P(right) {p_right:.2f} is under {bar:.2f}, {why}", ended="abstained")


@dataclass(frozen=True)
class FollowUp:
    rewrite: bool
    rule: str
    reason: str


def follow_up(c: FollowUpCues, t: Thresholds) -> FollowUp:
    """Whether a question leans on the session's earlier turns (then an LM rewrites it to stand
    alone first), and the rule that says so: an ellipsis, a pronoun its own names cannot explain,
    or a short question naming nothing soon after the last turn."""
    if not c.has_turns:
        return FollowUp(False, "no_session", "no earlier turn in this session")
    if c.opener:
        return FollowUp(True, "ellipsis", f"opens with {c.opener!r}: continues the last turn")
    if c.pronoun:
        return FollowUp(True, "pronoun", f"{c.pronoun!r} points to no name of the question: to an earlier turn")
    if c.words <= t.follow_up_words and c.idle_s <= t.follow_up_seconds and not c.names_something:
        return FollowUp(True, "short_soon", f"{c.words} words naming nothing, {c.idle_s:.0f} s after the last turn")
    return FollowUp(False, "standalone", "names what it asks about")


def covered(s: Signals, t: Thresholds) -> bool:
    """Every name mentioned, every question term used, and no uncovered sub-query without a page
    at hand: a fragment about a name whose page is in the pool is that page's to answer."""
    return not pageless_gaps(s, t) and s.entity_coverage >= t.entity_coverage and s.term_coverage >= t.term_coverage


def plateau(s: Signals, t: Thresholds) -> bool:
    """A flat top-k with a mediocre best score: no passage stands out, so no cliff is trusted."""
    return s.spread <= t.plateau_spread and s.best < t.plateau_best


def redundancy(s: Signals, t: Thresholds) -> float:
    """The share of pool passages with a near-duplicate (cosine at or above `redundancy_cosine`) before them."""
    if len(s.echoes) < 2:
        return 0.0
    return sum(e >= t.redundancy_cosine for e in s.echoes) / len(s.echoes)


def below_coverage(best_by_query: dict[str, float | None], floor: float) -> list[str]:
    """The measured queries whose best passage is less similar than `floor` (`coverage_similarity`):
    the one definition the gate and the agent metadata both use."""
    return [q for q, best in measured_queries(best_by_query).items() if best < floor]


def uncovered(s: Signals, t: Thresholds) -> tuple[str, ...]:
    """The sub-queries no indexed passage comes close to."""
    return tuple(below_coverage(dict(s.sub_queries), t.coverage_similarity))


def pageless_gaps(s: Signals, t: Thresholds) -> tuple[str, ...]:
    """The uncovered sub-queries the collection has no page for: the ones worth the web."""
    return tuple(q for q in uncovered(s, t) if q in s.unsourced)


def adaptive_cut(passages: list[Passage], t: Thresholds) -> list[Passage]:
    """Which of a search's hits the loop keeps: as many as stand above the similarity cliff when the
    list has one (Adaptive-k), at most `top_k` and at least `MIN_KEPT`; those under the score floor dropped.
    subtle: the engine's (fused) order is kept: by dense similarity alone, recall drops."""
    kept = [p for p in passages if p.similarity is None or p.similarity >= t.score_floor]
    gap, before_gap = score_cliff([p.similarity for p in kept if p.similarity is not None])
    return kept[: max(MIN_KEPT, min(before_gap, t.top_k))] if gap >= t.cut_cliff else kept[: t.top_k]


def strong_hits(passages: list[Passage], t: Thresholds) -> list[Passage]:
    """The passages close enough to the question that their document's neighbouring chunks are worth reading."""
    return [p for p in passages if p.similarity is not None and p.similarity >= t.locality_similarity]


def gives_no_answer(abstained: bool, short_answer: str) -> bool:
    """The loop gives no answer when it abstained, or when its short answer says the evidence lacks
    one, however the loop ended (a draft cut short by the time limit included)."""
    return abstained or says_unknown(short_answer)


def judged_confidence(sufficient: bool, confidence: float) -> float:
    """The confidence an answer keeps from the judge: never above an even chance when the judge
    itself found the evidence insufficient."""
    return confidence if sufficient else min(confidence, INSUFFICIENT_CAP)


def grade_retrieval(share: float, has_evidence: bool, cites_web: bool) -> Literal["high", "medium", "low", "none"]:
    """How well retrieval served the question, from the share of doc queries it covered: high, all of
    them; medium, at least half; low, some; none, no query or no evidence. A web passage the answer
    cites lifts low or none to medium."""
    if not has_evidence:
        return "none"
    quality = "high" if share == 1 else "medium" if share >= 0.5 else "low" if share > 0 else "none"
    return "medium" if quality in ("low", "none") and cites_web else quality


def needs_fallback(ended: str, quality: str, cited: bool) -> bool:
    """The caller gets a structured fallback instead of the answer when the loop did not end
    answered, retrieval found nothing close (quality "none"), or the answer cites nothing."""
    return ended != "answered" or quality == "none" or not cited


def capped_confidence(judge: int | None, quality: str, finished: bool, fallback: bool) -> int:
    """The confidence an agent is told: the judge's (a prior from the retrieval quality when no judge
    ran), capped by that quality, lower when the loop did not finish, lowest under a fallback."""
    cap = CONFIDENCE_CAP[quality] if finished else min(CONFIDENCE_CAP[quality], UNFINISHED_CAP)
    confidence = min(CONFIDENCE_PRIOR[quality] if judge is None else judge, cap)
    return min(confidence, FALLBACK_CAP) if fallback else confidence


def keep_code_repair(fixed: str, parses: bool) -> bool:
    """A rewritten code block replaces the broken one only when it parses and is not empty (an
    empty block parses, but repairs nothing)."""
    return bool(fixed.strip()) and parses


def accepts(score: AnswerScore, t: Thresholds) -> bool:
    """An answer whose score reaches `accept_score` stands accepted."""
    return score.total >= t.accept_score


def repair_refused(before: AnswerScore, after: AnswerScore, repaired: Progress, t: Thresholds) -> str:
    """Why a repaired answer does not replace the draft ("" when it does): it must fail less, score
    no lower, and have a short answer its cited passages support, as a draft must (`_unsupported`).
    subtle: a higher score alone is not enough: a rambling rewrite that fixed nothing once scored
    0.001 higher on word overlap. And a repair is one more reading of the same evidence, so the
    support rule binds it too: a span it brings that no cited passage uses is a guess."""
    if len(after.failed) >= len(before.failed) or after.total < before.total:
        return (f"the repair fixed none of {len(before.failed)} problem(s) without lowering the score "
                f"({before.total:.2f} -> {after.total:.2f})")
    if _unsupported(repaired, t):
        return f"the repair's short answer is no answer: {_unsupported_reason(repaired, t)}"
    return ""


def _expand(s: Signals, p: Progress, b: Budget, t: Thresholds) -> Decision | None:
    """An expansion for a clear gap, or for the gap the judge named; None when there is none worth a round."""
    gap = uncovered(s, t) or s.missing_entities
    term_gap = s.term_coverage < t.term_coverage or _hop_pending(s, p)
    if not gap and term_gap and (hop := _second_hop(s, p, b, t)) is not None:
        return hop  # before diminishing returns: a doc hop that found nothing is what sends it to the web
    if (unsourced := s.compared_pageless) and b.web_searches > 0 and not p.searched_web:
        return Decision("search_web", "no_page_to_web", f"no passage is the page of {_names(unsourced)}",
                        # the best gap query says what is asked of the side; its bare name finds its page
                        queries=web_queries(s, p, t, own=(*web_queries(s, p, t, limit=1), *unsourced)))
    if p.expansions and (p.last_found_nothing or s.gain < t.min_gain):
        return _judged_gap_to_web(s, p, b, t)  # diminishing returns: only the web is left to try
    if gap and s.strong_neighbours:
        return Decision("expand_locality", "strong_hit_neighbours", f"{s.strong_neighbours} strong hit(s) have "
                        "unread neighbouring chunks; reading them before any rewrite")
    web = web_queries(s, p, t)
    # subtle: a name the pool mentions but has no page on is often a side character of a page at
    # hand (a coach, a voting body); only with a weak best hit is its page likely missing
    unpaged = pageless_gaps(s, t) if s.best < t.web_gap_similarity else ()
    if (s.missing_entities or unpaged) and b.web_searches > 0 and web:
        return Decision("search_web", "gap_to_web", f"the collection has no page to cover "
                        f"{_names(s.missing_entities or unpaged)}", queries=web)
    verdict = p.verdict
    if not _judged_gap_open(s, p, t):
        return None
    # the collection first: it is milliseconds away, and the web only sees what it lacks
    docs = tuple(q for q in verdict.gaps if q not in p.tried_docs)
    if b.doc_queries > 0 and (docs or not verdict.gaps):
        return Decision("query_docs", "judge_gap_docs", f"the judge names gaps: {_names(verdict.gaps)}; "
                        "re-querying the collection", queries=docs)  # no gaps named: the loop rewrites the query
    return _judged_gap_to_web(s, p, b, t)


def _judged_gap_to_web(s: Signals, p: Progress, b: Budget, t: Thresholds) -> Decision | None:
    """The judge's gaps, still open over the current evidence after the collection had its try: the web."""
    web = web_queries(s, p, t)
    if not _judged_gap_open(s, p, t) or b.web_searches <= 0 or not web:
        return None
    return Decision("search_web", "judge_gap_web", f"the judge's gaps ({_names(p.verdict.gaps)}) are still open "
                    "after the collection had its try", queries=web)


def _judged_gap_open(s: Signals, p: Progress, t: Thresholds) -> bool:
    """The judge found the current evidence insufficient, and the pool has room for more: when it
    is saturated, the judge's gaps are for it to read in the evidence, not more retrieval."""
    return p.verdict is not None and not p.verdict.sufficient and s.saturation < t.saturation


def _second_hop(s: Signals, p: Progress, b: Budget, t: Thresholds) -> Decision | None:
    """A bridge question whose second page is missing: no passage is about the name it goes
    through (and often the evidence never uses some of the question's terms). First the collection,
    for a page on that name (milliseconds, no LM); if it has a page on none of them, the web, once."""
    if not s.unmet_bridges or (s.compared and not s.compared_pageless):
        return None  # a comparison with both pages at hand has its answer there: no name to go through
    hop = tuple(q for q in s.unmet_bridges if q not in p.tried_docs)
    if p.doc_rounds == 0 and b.doc_queries > 0 and hop:
        return Decision("query_docs", "term_gap_to_docs", f"{_hop_gap(s)}: a second hop through {_names(hop)}",
                        queries=hop)
    met_any = len(s.unmet_bridges) < len(s.bridges)
    web = web_queries(s, p, t, own=(p.question, " ".join((s.unmet_bridges[0], *s.missing_terms))))
    if p.doc_rounds and not met_any and not p.searched_web and b.web_searches > 0 and web:
        unused = f" and never uses {_names(s.missing_terms)}" if s.missing_terms else ""
        return Decision("search_web", "term_gap_to_web", f"the collection has no page on {_names(s.unmet_bridges)}"
                        f"{unused}", queries=web)
    return None


def _hop_gap(s: Signals) -> str:
    """What the evidence lacks for a second hop, in words: the question's terms it never uses, or,
    with every term used, a passage about the names the hop goes through (the rule fires on either)."""
    if s.missing_terms:
        return f"the evidence never uses {_names(s.missing_terms)}"
    return f"no passage is about {_names(s.unmet_bridges)}"


def _hop_pending(s: Signals, p: Progress) -> bool:
    """The evidence names bridges, none with a passage about it, that the collection was never
    searched for, or was searched for in vain ("Damerjog is a town in ... Djibouti": the question asks about
    Djibouti's president, and no passage on Djibouti is at hand). Covered names are not enough."""
    if s.compared and not s.compared_pageless:
        return False  # a comparison with both pages at hand has its answer there: no name to go through
    untried = not any(b in p.tried_docs for b in s.bridges)
    return bool(s.bridges) and s.unmet_bridges == s.bridges and (untried or _hop_missed(s, p))


def _hop_missed(s: Signals, p: Progress) -> bool:
    """The collection was searched for a bridge name and still has no page on any, and the web
    has not been tried: the hop missed, whatever terms its other hits happened to use
    ("formerly known" in some other conference's page does not say what this one was called)."""
    tried = any(b in p.tried_docs for b in s.bridges)
    return tried and s.unmet_bridges == s.bridges and not p.searched_web


def _finish(rule: str, reason: str, p: Progress, t: Thresholds, ended: Ending = "answered") -> Decision:
    """Answer with the draft if it reads the current evidence; otherwise write (or rewrite) it
    first. A current draft whose short answer is "unknown", or that its passages do not
    support, is an abstention."""
    if p.draft_current and p.draft_unknown:
        return Decision("abstain", rule, f"{reason}; the answer says the evidence lacks it", ended="abstained")
    if _unsupported(p, t):
        return Decision("abstain", "answer_unsupported", f"{reason}; but {_unsupported_reason(p, t)}", ended="abstained")
    if p.draft_current:
        return Decision("answer", rule, reason, ended=ended)
    if ended == "budget_exhausted" and rule == "out_of_time":
        return Decision("answer" if p.has_draft else "abstain", rule, reason, ended=ended)
    return Decision("refine" if p.has_draft else "draft", rule, reason, ended=ended)


def web_queries(s: Signals, p: Progress, t: Thresholds, own: tuple[str, ...] = (), limit: int = 2) -> tuple[str, ...]:
    """What to search the web for, in one place: the rule's `own` queries (a comparison side's
    name, a bridge hop), then the judge's gaps, then the uncovered sub-queries the collection has
    no page for, then the missing entities; never a query already searched, nor a gap whose
    words came from the web alone (a web page never picks the next web search on its own)."""
    judged = [g for g in p.verdict.gaps if g not in p.web_sourced_gaps] if p.verdict else ()
    wanted = [*own, *judged, *pageless_gaps(s, t), *s.missing_entities]
    return tuple(dict.fromkeys(q for q in wanted if q and q not in p.searched_web))[:limit]


def budget_left(t: Thresholds, used: Resources, has_web: bool, seconds: float | None, has_seed: bool = False) -> Budget:
    """What is left of each budget: the one place spending is counted against the thresholds."""
    return Budget(iterations=t.max_iterations - used.iterations, judge_calls=t.max_judge_calls - used.judge_calls,
                  doc_queries=t.max_doc_queries - used.doc_queries,
                  web_searches=(t.max_web_searches - used.web_searches) if has_web else 0, seconds=seconds,
                  breadth_rounds=(t.max_breadth_rounds - used.breadth_rounds) if has_seed else 0,
                  pages=(t.max_breadth_pages - used.pages_fetched) if has_seed else 0)


def spend(used: Resources, action: Action) -> Resources:
    """The resources after one more `action`: expansions and judge calls are iterations."""
    counts = {"judge": "judge_calls", "query_docs": "doc_queries", "search_web": "web_searches",
              "expand_breadth": "breadth_rounds"}
    update = {"iterations": used.iterations + 1} if action in (*counts, "expand_locality") else {}
    if action in counts:
        update[counts[action]] = getattr(used, counts[action]) + 1
    return used.model_copy(update=update)


def _names(items: tuple[str, ...]) -> str:
    return ", ".join(map(repr, items[:3])) or "nothing named"
