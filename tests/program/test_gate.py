"""The gate's policy on hand-built signals and scores: every rule fires where it should, and only there."""

from dataclasses import replace

import pytest

from program.answer.acceptance import AnswerScore
from program.answer.criteria import CriteriaReport
from program.contract.result import Factuality, Resources
from program.gate import (
    Budget,
    Progress,
    Verdict,
    budget_left,
    decide,
    decide_acceptance,
    grade_retrieval,
    plateau,
    repair_refused,
    spend,
    web_queries,
)
from program.signals import Signals, measure, titled_after
from program.thresholds import Thresholds
from tests.conftest import passage

T = Thresholds(answer_confidence=0.7, cliff_to_answer=0.15, off_topic_similarity=0.3)
FULL = Budget(iterations=3, judge_calls=1, doc_queries=2, web_searches=1)
NO_WEB = Budget(iterations=3, judge_calls=1, doc_queries=2, web_searches=0)


def signals(uncovered: tuple[str, ...] = (), pageless_gaps: tuple[str, ...] = (), **changes) -> Signals:
    """Hand-built signals; `uncovered` sub-queries measure 0.0, `pageless_gaps` have no page."""
    base = dict(best=0.7, cliff=0.3, spread=1.0, min_coverage=0.7, entity_coverage=1.0, echoes=(),
                saturation=0.5, gain=1.0, sub_queries=tuple((q, 0.0) for q in uncovered), unsourced=pageless_gaps)
    return Signals(**(base | changes))


def test_covered_with_a_cliff_drafts_with_no_judge_then_answers():
    first = decide(signals(), Progress(), FULL, T)
    assert (first.action, first.rule) == ("draft", "covered_with_cliff")
    then = decide(signals(), Progress(has_draft=True, draft_current=True), FULL, T)
    assert (then.action, then.rule, then.ended) == ("answer", "covered_with_cliff", "answered")


def test_covered_but_flat_has_the_reader_draft_and_a_supported_draft_answers():
    assert decide(signals(cliff=0.05), Progress(), FULL, T).rule == "ambiguous"
    flat = signals(spread=0.01, best=0.55)
    assert plateau(flat, T) and decide(flat, Progress(), FULL, T).action == "draft"
    drafted = decide(flat, Progress(has_draft=True, draft_current=True), FULL, T)
    assert (drafted.action, drafted.rule) == ("answer", "reader_supported")


def test_an_uncovered_sub_query_with_no_page_and_a_weak_best_hit_goes_to_the_web_with_it_as_the_query():
    gap = ("Ed Wood nationality",)
    d = decide(signals(best=0.5, uncovered=gap, pageless_gaps=gap), Progress(), FULL, T)
    assert (d.action, d.rule, d.queries) == ("search_web", "gap_to_web", ("Ed Wood nationality",))


def test_with_a_strong_best_hit_a_sub_query_with_no_page_is_the_judge_s_call_not_the_web_s():
    gap = ("Shaka Smart third year head coach",)
    d = decide(signals(best=0.8, cliff=0.05, uncovered=gap, pageless_gaps=gap), Progress(), FULL, T)
    assert (d.action, d.rule) == ("draft", "ambiguous")


def test_an_uncovered_sub_query_whose_page_is_at_hand_is_no_web_gap():
    d = decide(signals(cliff=0.05, uncovered=("Buck-Tick hail",)), Progress(), FULL, T)
    assert (d.action, d.rule) == ("draft", "ambiguous")


def test_a_missing_entity_goes_to_the_web():
    d = decide(signals(entity_coverage=0.5, missing_entities=("For Against",)), Progress(), FULL, T)
    assert (d.action, d.queries) == ("search_web", ("For Against",))


def test_strong_hits_with_neighbours_are_read_before_the_web():
    d = decide(signals(uncovered=("q r",), pageless_gaps=("q r",), strong_neighbours=2), Progress(), FULL, T)
    assert (d.action, d.rule) == ("expand_locality", "strong_hit_neighbours")


def test_no_web_and_a_missing_entity_with_weak_but_on_topic_retrieval_is_read_not_refused():
    d = decide(signals(best=0.4, entity_coverage=0.5, missing_entities=("Ed Wood",)), Progress(), NO_WEB, T)
    assert (d.action, d.rule) == ("draft", "ambiguous")


def test_nothing_on_topic_refuses_with_no_lm_call_and_the_web_comes_first():
    off = signals(best=0.2, entity_coverage=0.0, missing_entities=("Ed Wood",))
    d = decide(off, Progress(question="Q?"), NO_WEB, T)
    assert (d.action, d.rule, d.ended) == ("abstain", "nothing_on_topic", "abstained")
    web = decide(off, Progress(question="Q?"), FULL, T)
    assert (web.action, web.rule, web.queries[0]) == ("search_web", "off_topic_to_web", "Q?")
    after = Progress(question="Q?", searched_web=frozenset({"Q?"}), expansions=1)
    assert decide(off, after, replace(FULL, web_searches=0), T).action != "abstain"


def test_a_docs_question_whose_evidence_never_names_its_api_abstains_unread_once_expansions_are_done():
    # a documentation corpus: the evidence is headings and file names, none of them PutObject
    unnamed = signals(best=0.52, cliff=0.05, named=1, entity_coverage=0.0, missing_entities=("PutObject",),
                      unnamed=("PutObject",))
    d = decide(unnamed, Progress(question="What does PutObject return on a 403?"), NO_WEB, T)
    assert (d.action, d.rule, d.ended) == ("abstain", "names_off_topic", "abstained")
    assert "no passage mentions 'PutObject'" in d.reason
    assert decide(unnamed, Progress(), FULL, T).rule == "gap_to_web"  # the web is tried first
    assert decide(unnamed, Progress(), NO_WEB, T.model_copy(update={"names_on_topic": 0.0})).rule == "ambiguous"


def test_half_the_names_met_is_on_topic_and_read():
    half = signals(best=0.52, cliff=0.05, named=2, entity_coverage=0.5, missing_entities=("Annie Morton",),
                   unnamed=("Annie Morton",))
    assert decide(half, Progress(), NO_WEB, T).rule == "ambiguous"
    typo = signals(best=0.52, cliff=0.05, named=1, entity_coverage=0.0, missing_entities=("Livesey Hal",))
    assert decide(typo, Progress(), NO_WEB, T).rule == "ambiguous"  # unnamed is empty: close enough to be read
    assert decide(signals(named=0, entity_coverage=1.0, cliff=0.05), Progress(), NO_WEB, T).rule == "ambiguous"


def test_no_web_and_a_missing_entity_with_strong_retrieval_is_read():
    d = decide(signals(best=0.6, cliff=0.3, entity_coverage=0.5, missing_entities=("X",)), Progress(), NO_WEB, T)
    assert d.action == "draft"


def test_a_sufficient_confident_verdict_answers_with_the_judges_draft():
    p = Progress(has_draft=True, draft_current=True, verdict=Verdict(True, 0.9))
    d = decide(signals(cliff=0.0), p, FULL, T)
    assert (d.action, d.rule) == ("answer", "judge_sufficient")


def test_a_current_draft_that_says_unknown_is_an_abstention():
    p = Progress(has_draft=True, draft_current=True, draft_unknown=True, verdict=Verdict(True, 0.9))
    assert decide(signals(), p, FULL, T).action == "abstain"


def test_a_reader_s_unknown_over_a_clear_hit_is_read_again_by_the_judge_elsewhere_it_is_a_refusal():
    unknown = Progress(has_draft=True, draft_current=True, draft_unknown=True)
    again = decide(signals(), unknown, NO_WEB, T)
    assert (again.action, again.rule) == ("judge", "unknown_over_clear_hit")
    answered = replace(unknown, draft_unknown=False, verdict=Verdict(True, 0.9))  # the judge's draft answers
    assert decide(signals(), answered, NO_WEB, T).action == "answer"
    assert decide(signals(), replace(unknown, verdict=Verdict(True, 0.9)), NO_WEB, T).action == "abstain"
    # over a pool with no clear hit, or with the judge spent, the reader's "unknown" is the refusal
    assert decide(signals(cliff=0.05), unknown, NO_WEB, T).action == "abstain"
    assert decide(signals(), unknown, replace(NO_WEB, judge_calls=0), T).action == "abstain"


def test_an_unreadable_verdict_never_buys_a_retrieval_round():
    d = decide(signals(cliff=0.0), Progress(verdict=Verdict(readable=False)), FULL, T)
    assert (d.action, d.rule) == ("draft", "judge_unreadable")


@pytest.mark.parametrize("tried, budget, action, rule", [
    ((), FULL, "query_docs", "judge_gap_docs"),  # the collection first, even with web budget
    ((), Budget(3, 0, 0, 1), "search_web", "judge_gap_web"),  # no doc queries left
    (("TCS headquarters",), FULL, "search_web", "judge_gap_web"),  # the collection already had its try
])
def test_an_insufficient_verdict_searches_its_gaps_in_the_collection_then_on_the_web(tried, budget, action, rule):
    verdict = Verdict(False, 0.2, gaps=("TCS headquarters",))
    p = Progress(has_draft=True, draft_current=True, verdict=verdict, tried_docs=frozenset(tried))
    d = decide(signals(cliff=0.0), p, budget, T)
    assert (d.action, d.rule, d.queries) == (action, rule, ("TCS headquarters",))


def test_an_insufficient_verdict_naming_no_gap_has_the_loop_rewrite_the_query():
    p = Progress(has_draft=True, draft_current=True, verdict=Verdict(False, 0.2))
    d = decide(signals(cliff=0.0), p, FULL, T)
    assert (d.action, d.rule, d.queries) == ("query_docs", "judge_gap_docs", ())


def test_gaps_with_no_budget_end_budget_exhausted():
    p = Progress(has_draft=True, draft_current=True, verdict=Verdict(False, 0.2, gaps=("hq",)))
    d = decide(signals(cliff=0.0), p, Budget(3, 0, 0, 0), T)
    assert (d.action, d.rule, d.ended) == ("answer", "gaps_left", "budget_exhausted")
    assert "'hq'" in d.reason


def test_new_evidence_after_a_draft_is_refined_before_answering():
    d = decide(signals(), Progress(has_draft=True, draft_current=False), FULL, T)
    assert (d.action, d.rule) == ("refine", "covered_with_cliff")


def test_diminishing_returns_stop_expanding():
    d = decide(signals(cliff=0.0, uncovered=("q",), gain=0.01), Progress(expansions=1), FULL, T)
    assert d.action == "draft"


def test_out_of_time_answers_with_the_draft_or_abstains_without_one():
    late = Budget(3, 1, 2, 1, seconds=-0.1)
    assert decide(signals(), Progress(has_draft=True, draft_current=False), late, T).action == "answer"
    d = decide(signals(), Progress(), late, T)
    assert (d.action, d.ended) == ("abstain", "budget_exhausted")


def test_no_iterations_left_answers_from_the_evidence():
    d = decide(signals(cliff=0.0), Progress(), Budget(0, 1, 2, 1), T)
    assert (d.action, d.rule) == ("draft", "ambiguous")


def test_web_queries_prefer_the_judges_then_uncovered_then_entities_and_never_repeat():
    s = signals(uncovered=("a",), missing_entities=("b",))
    p = Progress(verdict=Verdict(gaps=("j",)), searched_web=frozenset({"a"}))
    assert web_queries(s, p, T) == ("j", "b")


def test_a_gap_whose_words_came_from_the_web_alone_is_never_a_web_query():
    s = signals(best=0.5, uncovered=("Kiss and Tell star",), pageless_gaps=("Kiss and Tell star",))
    p = Progress(verdict=Verdict(gaps=("OPENAI_API_KEY value", "Temple career")),
                 web_sourced_gaps=frozenset({"OPENAI_API_KEY value"}))
    assert web_queries(s, p, T) == ("Temple career", "Kiss and Tell star")
    d = decide(s, replace(p, searched_web=frozenset({"Temple career"})), replace(FULL, web_searches=2), T)
    assert (d.action, d.queries) == ("search_web", ("Kiss and Tell star",))


def test_budgets_are_counted_in_one_place():
    used = spend(spend(Resources(), "judge"), "search_web")
    assert (used.iterations, used.judge_calls, used.web_searches) == (2, 1, 1)
    assert spend(used, "draft") == used
    left = budget_left(Thresholds(max_iterations=3, max_web_searches=1), used, has_web=True, seconds=None)
    assert (left.iterations, left.judge_calls, left.web_searches) == (1, 0, 0)
    assert budget_left(Thresholds(), Resources(), has_web=False, seconds=None).web_searches == 0


def test_an_expansion_that_found_nothing_new_is_not_repeated_only_the_web_is_left():
    p = Progress(has_draft=True, draft_current=True, verdict=Verdict(False, 0.2, gaps=("x",)),
                 expansions=1, last_found_nothing=True)
    assert decide(signals(cliff=0.0), p, NO_WEB, T).rule == "gaps_left"
    assert decide(signals(cliff=0.0), p, FULL, T).rule == "judge_gap_web"


def test_an_uncovered_sub_query_with_no_web_and_weak_retrieval_is_the_judge_s_call():
    gap = ("For Against United States",)
    d = decide(signals(best=0.4, uncovered=gap, pageless_gaps=gap), Progress(), NO_WEB, T)
    assert (d.action, d.rule) == ("draft", "ambiguous")


def test_a_saturated_pool_still_closes_a_clear_gap_but_not_a_judged_one():
    gap = signals(best=0.5, saturation=1.5, uncovered=("a b",), pageless_gaps=("a b",))
    assert decide(gap, Progress(), FULL, T).rule == "gap_to_web"
    p = Progress(has_draft=True, draft_current=True, verdict=Verdict(False, 0.2, gaps=("x",)))
    assert decide(signals(saturation=1.5, cliff=0.0), p, FULL, T).rule == "gaps_left"


def test_a_term_gap_hops_through_the_docs_first_then_the_web_once():
    gap = signals(term_coverage=0.5, missing_terms=("headquartered",), bridges=("TCS",), unmet_bridges=("TCS",))
    first = decide(gap, Progress(question="Q?"), FULL, T)
    assert (first.action, first.rule, first.queries) == ("query_docs", "term_gap_to_docs", ("TCS",))
    assert first.reason == "the evidence never uses 'headquartered': a second hop through 'TCS'"
    hopped = Progress(question="Q?", expansions=1, doc_rounds=1, tried_docs=frozenset({"TCS"}))
    then = decide(replace(gap, gain=0.0), hopped, FULL, T)
    assert (then.action, then.rule, then.queries) == ("search_web", "term_gap_to_web", ("Q?", "TCS headquartered"))
    assert then.reason == "the collection has no page on 'TCS' and never uses 'headquartered'"
    searched = replace(hopped, expansions=2, searched_web=frozenset({"Q?", "TCS headquartered"}))
    assert decide(replace(gap, gain=0.0), searched, FULL, T).action == "draft"


def test_a_bridge_the_collection_has_a_page_on_never_goes_to_the_web():
    gap = signals(term_coverage=0.5, missing_terms=("x",), bridges=("A", "B"), unmet_bridges=("B",), gain=0.0)
    hopped = Progress(question="Q?", expansions=1, doc_rounds=1, tried_docs=frozenset({"A", "B"}))
    assert decide(gap, hopped, FULL, T).rule == "ambiguous"


def test_a_term_gap_with_no_bridge_or_no_web_asks_the_judge():
    assert decide(signals(term_coverage=0.5, missing_terms=("x",)), Progress(), FULL, T).rule == "ambiguous"
    gap = signals(term_coverage=0.5, missing_terms=("x",), bridges=("b",), unmet_bridges=("b",), gain=0.0)
    hopped = Progress(question="Q?", expansions=1, doc_rounds=1, tried_docs=frozenset({"b"}))
    assert decide(gap, hopped, NO_WEB, T).rule == "ambiguous"


def test_covered_needs_the_questions_terms_too():
    assert decide(signals(term_coverage=0.8, missing_terms=("x",)), Progress(), Budget(0, 0, 0, 0), T).rule == "ambiguous"


def test_a_hop_that_found_no_page_on_the_bridge_goes_to_the_web_even_if_other_hits_used_the_terms():
    # the hop's other hits used "formerly" and "known"; none is the bridge's page
    after_hop = signals(term_coverage=1.0, bridges=("America East Conference",),
                        unmet_bridges=("America East Conference",), gain=0.0)
    hopped = Progress(question="Q?", expansions=1, doc_rounds=1, tried_docs=frozenset({"America East Conference"}))
    d = decide(after_hop, hopped, FULL, T)
    assert (d.action, d.rule) == ("search_web", "term_gap_to_web")
    assert d.reason == "the collection has no page on 'America East Conference'"
    searched = replace(hopped, expansions=2, searched_web=frozenset({"Q?"}))
    assert decide(after_hop, searched, FULL, T).rule == "covered_with_cliff"  # the web had its try


def test_covered_names_do_not_answer_while_the_evidence_names_a_bridge_never_looked_up():
    # "Who was the first president of Damerjog's country?": every name covered, the cliff clear,
    # and the evidence says "Damerjog is a town in ... Djibouti"; no passage is about Djibouti yet
    covered = signals(term_coverage=1.0, bridges=("Djibouti",), unmet_bridges=("Djibouti",))
    d = decide(covered, Progress(question="Q?"), NO_WEB, T)
    assert (d.action, d.rule, d.queries) == ("query_docs", "term_gap_to_docs", ("Djibouti",))
    assert d.reason == "no passage is about 'Djibouti': a second hop through 'Djibouti'"  # no term is missing
    found = replace(covered, unmet_bridges=())
    hopped = Progress(question="Q?", expansions=1, doc_rounds=1, tried_docs=frozenset({"Djibouti"}))
    assert decide(found, hopped, NO_WEB, T).rule == "covered_with_cliff"


def test_a_comparison_side_with_no_page_goes_to_the_web_first():
    s = signals(best=0.9, named=2, pageless=("Annie Morton",), compared=2, compared_pageless=("Annie Morton",))
    d = decide(s, Progress(question="q"), FULL, T)
    assert (d.action, d.rule) == ("search_web", "no_page_to_web") and "Annie Morton" in d.queries


def test_a_question_none_of_whose_names_has_a_page_is_answered_by_reading_when_its_signals_are_covered():
    s = signals(best=0.4, named=1, pageless=("Ralph Hefferline",))
    assert decide(s, Progress(question="q"), FULL, T).rule == "covered_with_cliff"


def test_with_no_web_a_name_with_no_page_of_its_own_is_never_refused_unread():
    # a documentation question says "Python"; no page is titled "Python", and search ranked the right page first
    d = decide(signals(best=0.5, named=1, pageless=("Python",)), Progress(), NO_WEB, T)
    assert d.action != "abstain"
    side = signals(best=0.9, cliff=0.05, named=2, pageless=("Annie Morton",), compared=2,
                   compared_pageless=("Annie Morton",))
    assert decide(side, Progress(), NO_WEB, T).action == "draft"


def test_the_reader_is_told_which_compared_name_no_passage_mentions():
    # a documentation comparison: the evidence is all about `tomllib`, and nothing names `pickle`
    side = signals(best=0.6, cliff=0.05, named=2, pageless=("pickle",), compared=2, compared_pageless=("pickle",),
                   missing_entities=("pickle",), unnamed=("pickle",))
    d = decide(side, Progress(), NO_WEB, T)
    assert (d.action, d.absent) == ("draft", ("pickle",)) and "told no passage mentions 'pickle'" in d.reason
    # a side the evidence mentions, though no page is its own, is the reader's to read
    mentioned = replace(side, unnamed=())
    assert decide(mentioned, Progress(), NO_WEB, T).absent == ()


def test_a_name_with_its_own_page_or_a_strong_best_hit_is_not_a_missing_page():
    assert decide(signals(best=0.4, named=1, pageless=()), Progress(), FULL, T).rule == "covered_with_cliff"
    assert decide(signals(best=0.9, named=1, pageless=("X",)), Progress(), FULL, T).rule == "covered_with_cliff"


def test_a_comparison_side_is_pageless_by_the_pool_s_subjects():
    q = "Who is older, Annie Morton or Terry Richardson?"
    pool = [passage("Terry Richardson", "Terry Richardson (born 1965) is a photographer."),
            passage("Annie Belle", "Annie Belle is an actress; Annie Morton modelled with her.")]
    s = measure({q: [0.9]}, q, ["Annie Morton", "Terry Richardson"], pool, T)
    assert s.compared_pageless == ("Annie Morton",)


def test_a_draft_whose_short_answer_no_cited_passage_uses_is_refused_with_no_judge_call():
    draft = Progress(has_draft=True, draft_current=True, answer_support=0.0)
    for budget in (NO_WEB, FULL):  # a judge call left in the budget changes nothing
        d = decide(signals(), draft, budget, T)
        assert (d.action, d.rule, d.ended) == ("abstain", "answer_unsupported", "abstained")
    assert decide(signals(), replace(draft, answer_support=0.5), NO_WEB, T).action == "answer"
    # a judge's draft over the same evidence is held to the same bar
    judged = replace(draft, verdict=Verdict(True, 0.9))
    assert decide(signals(), judged, NO_WEB, T).rule == "answer_unsupported"
    assert decide(signals(), replace(judged, answer_support=0.5), NO_WEB, T).action == "answer"


def test_a_span_read_from_an_off_topic_passage_is_refused():
    # "Mauna Kea", for where life is found around hydrothermal vents, from a passage 0.27 similar
    draft = Progress(has_draft=True, draft_current=True, answer_support=1.0, answer_similarity=0.27)
    d = decide(signals(), draft, NO_WEB, T)
    assert (d.action, d.rule) == ("abstain", "answer_unsupported") and "off topic (similarity 0.27)" in d.reason
    for known in (0.3, None):  # on topic, or a web page whose similarity nothing measured
        assert decide(signals(), replace(draft, answer_similarity=known), NO_WEB, T).action == "answer"


def test_a_span_from_a_passage_no_question_name_leads_to_is_refused():
    # "Phil Mitchell", a soap character, for who wrote a song on Phil Spector's box set
    draft = Progress(has_draft=True, draft_current=True, answer_support=1.0, answer_similarity=0.45,
                     answer_reached=False)
    d = decide(signals(), draft, NO_WEB, T)
    assert (d.action, d.rule) == ("abstain", "answer_unsupported") and "none of the question's names" in d.reason
    assert decide(signals(), replace(draft, answer_reached=True), NO_WEB, T).action == "answer"


def test_the_answer_source_bar_is_apart_from_the_bar_for_refusing_unread():
    # a corpus whose unanswerable questions sit beside on-topic passages raises the bar for a span's source alone
    raised = T.model_copy(update={"answer_source_similarity": 0.5})
    draft = Progress(has_draft=True, draft_current=True, answer_support=1.0, answer_similarity=0.42)
    assert decide(signals(), draft, NO_WEB, T).action == "answer"
    assert decide(signals(), draft, NO_WEB, raised).rule == "answer_unsupported"
    assert decide(signals(best=0.42), Progress(), NO_WEB, raised).action == "draft"  # a hit as good is still read


def test_a_comparison_with_both_pages_at_hand_takes_no_second_hop():
    gap = signals(term_coverage=0.5, missing_terms=("taller",), bridges=("Red Eye Grill",),
                  unmet_bridges=("Red Eye Grill",), compared=2)
    assert decide(gap, Progress(question="Q?"), FULL, T).rule == "ambiguous"
    one_side_missing = replace(gap, compared_pageless=("888 7th Avenue",))
    assert decide(one_side_missing, Progress(question="Q?"), FULL, T).rule == "term_gap_to_docs"


# --- the answer's one repair ---------------------------------------------------------

def answer_score(total, failed=(), contradictions=()):
    criteria = CriteriaReport(given=len(failed) + 1, failed=tuple(failed))
    factuality = Factuality(score=0.5, support=0.5, claims=1, contradictions=list(contradictions))
    return AnswerScore(total=total, judge=None, factuality=factuality, criteria=criteria)


def test_a_score_at_the_threshold_is_accepted_even_with_a_failed_criterion():
    d = decide_acceptance(answer_score(0.7, failed=["must mention 'x'"]), abstained=False, seconds=None, t=T)
    assert (d.action, d.rule) == ("score", "score_accepted")


def test_a_failed_criterion_under_the_threshold_buys_the_repair():
    d = decide_acceptance(answer_score(0.4, failed=['must mention "us-east-1"']), abstained=False, seconds=5.0, t=T)
    assert (d.action, d.rule) == ("repair", "criteria_failed") and 'must mention "us-east-1"' in d.reason


def test_a_contradiction_under_the_threshold_buys_the_repair_without_criteria():
    d = decide_acceptance(answer_score(0.3, contradictions=["it says 1946 where [1] says 1945"]), False, None, T)
    assert (d.action, d.rule) == ("repair", "contradiction")


def test_an_ordinary_answer_under_the_threshold_gets_no_repair():
    d = decide_acceptance(answer_score(0.2), abstained=False, seconds=None, t=T)
    assert (d.action, d.rule) == ("score", "under_threshold_no_trigger")


def test_an_abstention_or_an_exhausted_clock_gets_no_repair():
    failing = answer_score(0.1, failed=["must mention 'x'"])
    assert decide_acceptance(failing, abstained=True, seconds=None, t=T).rule == "abstained"
    assert decide_acceptance(failing, abstained=False, seconds=0.0, t=T).rule == "out_of_time"


REPAIRED = Progress(has_draft=True, draft_current=True)


def test_a_repair_is_kept_only_when_it_fixes_something_and_scores_no_lower():
    failing = answer_score(0.4, failed=['must mention "x"'])
    assert repair_refused(failing, answer_score(0.9), REPAIRED, T) == ""
    nothing_fixed = repair_refused(failing, answer_score(0.41, failed=['must mention "x"']), REPAIRED, T)
    assert nothing_fixed.startswith("the repair fixed none of 1 problem(s)")  # a higher score, nothing fixed
    assert repair_refused(failing, answer_score(0.3), REPAIRED, T).startswith("the repair fixed none")  # worse overall


def test_a_repair_whose_short_answer_its_passages_do_not_support_is_refused():
    failing = answer_score(0.3, contradictions=["it says 1946 where [1] says 1945"])
    unused = replace(REPAIRED, answer_support=0.0)
    assert "no passage the answer cites uses its short answer" in repair_refused(failing, answer_score(0.9), unused, T)
    stranger = replace(REPAIRED, answer_similarity=0.1)
    assert "off topic" in repair_refused(failing, answer_score(0.9), stranger, T)
    unreached = replace(REPAIRED, answer_reached=False)
    assert "reached from none" in repair_refused(failing, answer_score(0.9), unreached, T)
    says_unknown = replace(unused, draft_unknown=True)  # "unknown" is no span to support
    assert repair_refused(failing, answer_score(0.9), says_unknown, T) == ""


def test_an_uncovered_sub_query_with_its_page_at_hand_does_not_keep_a_question_from_the_cliff():
    d = decide(signals(uncovered=("Buck-Tick hail",)), Progress(), FULL, T)
    assert (d.action, d.rule) == ("draft", "covered_with_cliff")


def test_a_documentation_question_naming_a_language_with_no_page_of_its_own_is_read_not_refused():
    # a Sphinx reference: no page is titled "Python"; the right page ranks first, and its text never says "Python"
    q = "What does shutil.which return in Python if no command is found?"
    which = passage("shutil — High-level file operations", "shutil.which(cmd) returns the path to an executable; "
                    "if no cmd would be called, None is returned.", similarity=0.58).model_copy(
        update={"heading_path": ["shutil — High-level file operations", "Directory and files operations"],
                "origin": "html/library/shutil.html"})
    s = measure({q: [0.58, 0.41]}, q, ["Python", "shutil.which"], [which], T)
    assert "Python" in s.pageless and s.missing_entities == ("Python",)
    assert decide(s, Progress(question=q), NO_WEB, T).action == "draft"
    assert titled_after("shutil", which)


SEEDED = replace(FULL, breadth_rounds=2, pages=10)


@pytest.mark.parametrize("changes,rule", [
    (dict(best=0.2), "off_topic_to_links"),
    (dict(entity_coverage=0.5, missing_entities=("For Against",)), "gap_to_links"),
    (dict(), "lone_source"),  # a clear cliff, and no second passage says the same
    (dict(cliff=0.05, saturation=0.2), "thin_evidence"),
])
def test_from_a_seed_url_the_links_are_followed_when_one_good_source_is_not_enough(changes, rule):
    d = decide(signals(**changes), Progress(), SEEDED, T)
    assert (d.action, d.rule, d.pages) == ("expand_breadth", rule, T.breadth_pages)


def test_breadth_stops_on_diminishing_returns_its_budget_or_corroborated_full_evidence():
    assert decide(signals(), Progress(breadth_rounds=1, expansions=1, last_found_nothing=True), SEEDED, T).action \
        != "expand_breadth"
    assert decide(signals(gain=0.01), Progress(breadth_rounds=1, expansions=1), SEEDED, T).action != "expand_breadth"
    assert decide(signals(), Progress(), replace(SEEDED, pages=0), T).action != "expand_breadth"
    assert decide(signals(), Progress(), FULL, T).action != "expand_breadth"  # no seed URL: no breadth budget
    corroborated = signals(cliff=0.05, echoes=(-1.0, 0.99), saturation=0.8)  # one of two a near-duplicate
    assert decide(corroborated, Progress(), SEEDED, T).action != "expand_breadth"
    assert decide(signals(), Progress(), replace(SEEDED, pages=3), T).pages == 3  # never past the pages left


def test_breadth_budgets_count_rounds_and_pages_only_with_a_seed():
    used = Resources(breadth_rounds=1, pages_fetched=4)
    assert (budget_left(T, used, False, None, has_seed=True).breadth_rounds,
            budget_left(T, used, False, None, has_seed=True).pages) == (T.max_breadth_rounds - 1, T.max_breadth_pages - 4)
    assert budget_left(T, used, False, None).pages == 0
    assert spend(Resources(), "expand_breadth").model_dump(include={"breadth_rounds", "iterations"}) == \
        {"breadth_rounds": 1, "iterations": 1}


@pytest.mark.parametrize("covered, evidence, web, grade", [
    (1.0, True, False, "high"), (0.5, True, False, "medium"), (0.2, True, False, "low"), (0.0, True, False, "none"),
    (0.0, True, True, "medium"), (1.0, False, True, "none")])
def test_retrieval_is_graded_by_the_share_of_queries_covered_and_a_cited_web_page_lifts_it(covered, evidence, web, grade):
    assert grade_retrieval(covered, evidence, web) == grade


# --- the learned read-or-expand: P(the evidence holds the answer) against `read_sufficiency` ---

LEARNED_READ = T.model_copy(update={"read_sufficiency": 0.6})
GAP = dict(uncovered=("q r",), pageless_gaps=("q r",), strong_neighbours=2)  # the rules read the neighbours


@pytest.mark.parametrize("p_sufficient", [0.6, 0.9])
def test_at_or_over_read_sufficiency_the_reader_drafts_whatever_gap_the_rules_see(p_sufficient):
    d = decide(signals(**GAP), Progress(sufficiency=p_sufficient), FULL, LEARNED_READ)
    assert (d.action, d.rule) == ("draft", "likely_sufficient") and f"{p_sufficient:.2f} reaches 0.60" in d.reason


def test_under_read_sufficiency_a_round_goes_to_the_expansion_the_rules_pick():
    d = decide(signals(**GAP), Progress(sufficiency=0.59), FULL, LEARNED_READ)
    assert (d.action, d.rule) == ("expand_locality", "strong_hit_neighbours")


def test_under_read_sufficiency_with_no_round_left_the_rules_decide():
    spent = replace(FULL, iterations=0)
    assert decide(signals(**GAP), Progress(sufficiency=0.1), spent, LEARNED_READ) == decide(signals(**GAP), Progress(), spent, T)


def test_without_read_sufficiency_the_rules_decide_whatever_the_model_says():
    assert decide(signals(**GAP), Progress(sufficiency=0.99), FULL, T).rule == "strong_hit_neighbours"


def test_a_current_draft_is_the_rules_to_answer_or_refuse():
    drafted = Progress(has_draft=True, draft_current=True, sufficiency=0.99)
    assert decide(signals(), drafted, FULL, LEARNED_READ) == decide(signals(), drafted, FULL, T)
