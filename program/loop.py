"""GatedRAG: the evaluation-gated retrieval loop, as one DSPy module.

Read `forward` top to bottom: rewrite a session's follow-up to stand alone (only when
`program.sessions.follow_up` reads it as one), plan the sub-queries, retrieve, then ask the gate
(`program.gate.decide`) for the next action until it answers or abstains. The gate reads the
retrieval signals first (`program.signals`) and calls for the LM judge only when they are
inconclusive. Once it answers, the answer is scored against the caller's criteria and its cited
evidence (`program.answer.acceptance`, no LM), and the gate may give it one repair; then its fenced code
blocks are parsed (`program.answer.code_check`) and a block that does not parse gets one LM repair; a
fitted calibrator, when the program carries one (`program.answer.calibrator`), then replaces the judge's
confidence. Every action the loop can take is named in `forward`; the steps below only do the
work. Retrieval and web search come in as plain callables so optimizers can copy the program
freely; copies share the session store too. Serving concerns (a default LM, pickling for MLflow)
live in `program.assembly.served`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import dspy
from pydantic import ValidationError

from program.answer.acceptance import AnswerScore, acceptance, score_answer
from program.answer.answer_logprob import mean_logprob
from program.answer.calibrator import ConfidenceCalibrator
from program.answer.citations import cited_numbers
from program.answer.code_check import (
    check_block,
    check_code,
    find_blocks,
    replace_block,
    strip_fence,
)
from program.answer.criteria import judge_criteria
from program.answer.factuality import check_factuality
from program.base.redaction import redact
from program.contract.result import ExpansionStep
from program.decomposition import named_entities, rule_based_plan
from program.evidence import format_evidence
from program.gate import (
    Decision,
    Progress,
    Verdict,
    accepts,
    adaptive_cut,
    budget_left,
    decide,
    decide_acceptance,
    decide_release,
    follow_up,
    judged_confidence,
    keep_code_repair,
    repair_refused,
    spend,
)
from program.hints import Hints
from program.judges.acceptance import AcceptanceModel, draft_checks
from program.judges.sufficiency import SufficiencyModel
from program.judges.sufficiency import features as sufficiency_features
from program.lm.deadline import DeadlineExceeded, call_within
from program.retrieval.breadth import BreadthExpander
from program.retrieval.passage import Passage
from program.retrieval.web_search import WebSearch, WebSearchError
from program.run_state import RunState
from program.sessions.conversation import Conversation, Sessions, Turn
from program.sessions.follow_up import check_rewrite, follow_up_cues, substitute
from program.sessions.memory_store import SessionStore
from program.signals import Signals, link_terms, measure
from program.thresholds import Thresholds
from signatures import (
    Contextualize,
    Decompose,
    JudgeSufficiency,
    RefineAnswer,
    RepairAnswer,
    RepairCode,
    RewriteQuery,
    SynthesizeAnswer,
)

Search = Callable[[str, int], list[Passage]]
NO_ANSWER = "I could not find the answer in the evidence."
FORMAT = 3  # the saved-program layout; `program.load` refuses a newer one and reads formats 1 and 2
MAX_STEPS = 16  # a guard: every gate decision spends a budget or makes the draft current
RETRY_TOKENS = 2  # a malformed output is retried once with this many times the output cap
SHOWN_SKIPPED = 5  # links a breadth round scored but did not fetch, kept in the traversal for the reader


class GatedRAG(dspy.Module):
    PREDICTORS = ("decompose", "judge", "rewrite", "synthesize", "refine", "repair_code", "repair_answer",
                  "contextualize")
    # added within format 3: a program saved before them lacks them, and loads with their default prompt
    LATER_PREDICTORS = ("repair_code", "repair_answer", "contextualize")

    def __init__(self, search: Search, web: WebSearch | None = None, thresholds: Thresholds | None = None,
                 sessions: Sessions | None = None, breadth: BreadthExpander | None = None):
        super().__init__()
        # subtle: these attribute names are the keys of the saved JSON; renaming one breaks load().
        # Output caps sized to each signature's fields: every runaway token costs ~25 ms on 2 cores.
        self.decompose = dspy.Predict(Decompose, max_tokens=160)
        self.judge = dspy.Predict(JudgeSufficiency, max_tokens=256)
        self.rewrite = dspy.Predict(RewriteQuery, max_tokens=96)
        self.synthesize = dspy.Predict(SynthesizeAnswer, max_tokens=160)
        self.refine = dspy.Predict(RefineAnswer, max_tokens=160)
        self.repair_code = dspy.Predict(RepairCode, max_tokens=256)  # one block of an answer capped at 160, plus the fix
        self.repair_answer = dspy.Predict(RepairAnswer, max_tokens=160)
        self.contextualize = dspy.Predict(Contextualize, max_tokens=128)  # one question of at most 300 characters
        self.search = search
        self.web = web
        self.thresholds = thresholds or Thresholds()
        # recall(id) and record(id, turn); see program.sessions. subtle: an empty store is falsy, and the
        # configured one must not give way to a default while no session has started
        self.sessions = sessions if sessions is not None else SessionStore()
        self.breadth = breadth  # follows links from a seed URL; see program.retrieval.breadth
        self.calibrator: ConfidenceCalibrator | None = None  # fitted by `python -m optimize calibrate`
        self.sufficiency: SufficiencyModel = SufficiencyModel.shipped()  # P(the evidence holds the answer): an acceptance feature
        self.acceptance: AcceptanceModel = AcceptanceModel.shipped()  # P(this draft is right): the learned release
        self.compiled_with = ""  # the serving LM the optimize job chose its demos and thresholds with

    def forward(self, question: str, hints: Hints | None = None, time_limit_s: float | None = None,
                session_id: str | None = None, url: str | None = None) -> dspy.Prediction:
        """`hints`: see `program.hints.Hints`. `time_limit_s` bounds the whole call, an LM call in
        flight included: past it the loop returns its best draft, ended "budget_exhausted".
        `session_id`: the conversation this question continues; its recent turns resolve a follow-up.
        `url`: a seed page, ingested first; the gate may then follow its links (`expand_breadth`)."""
        hints = hints or Hints()
        conversation = self.sessions.recall(session_id) if session_id else Conversation()
        run = self._start(question.strip(), hints, time_limit_s, url)
        try:
            if (follow := follow_up(follow_up_cues(run.question, conversation), run.thresholds)).rewrite:
                with run.step("contextualize", follow.reason) as step:
                    step.rule = follow.rule
                    self._contextualize(run, conversation, step)
            if run.seed_url:
                with run.step("seed", "the seed page is ingested if it is new") as step:
                    self._seed(run, step)
            with run.step("decompose", f"mode {run.thresholds.decompose_mode}") as step:
                self._plan(run, hints, step)
            with run.step("retrieve", f"{run.query_type} question, {len(run.sub_queries)} queries") as step:
                self._retrieve(run, step, run.sub_queries)
            for _ in range(MAX_STEPS):
                decision, signals = self._decide(run)
                with run.step(decision.action, decision.reason) as step:
                    step.rule, step.signals = decision.rule, signals.as_trace()
                    if decision.action in ("answer", "abstain"):
                        self._end(run, decision)
                        break
                    match decision.action:
                        case "draft": self._draft(run, decision.absent)
                        case "refine": self._refine(run)
                        case "judge": self._judge(run)
                        case "expand_locality": self._expand_locality(run, step)
                        case "query_docs": self._retrieve(run, step, list(decision.queries) or self._rewrite(run))
                        case "search_web": self._search_web(run, step, list(decision.queries))
                        case "expand_breadth": self._expand_breadth(run, step, decision.pages)
            self._accept(run)  # the score, and its one repair: no LM unless a criterion fails or code does not parse
            if not run.gives_no_answer:
                run.draft_checks = self._draft_checks(run)  # what the acceptance model reads, whichever release
                if run.thresholds.release == "learned":
                    with run.step("release") as step:  # given or withheld on P(right), with no LM
                        self._release(run, step)
        except DeadlineExceeded as late:
            run.ended = "budget_exhausted"
            # subtle: a replay has no limit of its own; it re-raises where the recorded run's limit struck
            limit = f"time limit of {time_limit_s:g} s" if time_limit_s is not None else "time limit"
            run.warn(f"{limit} reached: {late}; returned the best draft so far", "timeout")
        except Exception as error:  # noqa: BLE001 - a question ends with a result, never a crash
            run.ended = "error"
            run.warn(f"the loop stopped: {type(error).__name__}: {error}", "loop_error")
        return self._finish(run, session_id)

    def _start(self, question: str, hints: Hints, time_limit_s: float | None, url: str | None) -> RunState:
        # subtle: the signals key each ranking by its query, so the question is stripped once, here
        run = RunState(question=question, thresholds=hints.apply(self.thresholds), time_limit_s=time_limit_s,
                       constraints=hints.requirements(), criteria=hints.criteria,
                       web=self.web.label if self.web else "none", seed_url=(url or "") if self.breadth else "")
        if url and not self.breadth:
            run.warn("a seed URL was given, but this program has no breadth expansion: the URL is ignored")
        return run

    def _decide(self, run: RunState) -> tuple[Decision, Signals]:
        """The gate's next decision on what retrieval measured, its budgets spent as it says."""
        signals = self._measure(run)
        progress = run.progress()
        if run.thresholds.read_sufficiency is not None:  # the learned read-or-expand weighs it
            progress = replace(progress, sufficiency=self._sufficient(run, signals, progress))
        decision = decide(signals, progress, self._budget(run), run.thresholds)
        run.resources = spend(run.resources, decision.action)
        run.ended = decision.ended
        return decision, signals

    def _end(self, run: RunState, decision: Decision) -> None:
        if decision.ended == "budget_exhausted":
            run.warn(f"ended before the evidence sufficed: {decision.reason}", decision.incident)
        if decision.action == "abstain":
            run.abstain(decision.reason)

    def _accept(self, run: RunState) -> None:
        """Score the answer (no LM), repair it once if the gate says so, then repair code that does not parse."""
        with run.step("score") as step:  # the step's time includes the scoring's
            score = self._score(run)  # the criteria, the judge's verdict and factuality
            scored = decide_acceptance(score, run.gives_no_answer, run.seconds_left(), run.thresholds)
            step.action, step.reason, step.rule = scored.action, scored.reason, scored.rule
            step.score_before, step.failed = score.total, list(score.failed)
            if scored.action == "repair":
                self._repair(run, score, step)
            else:
                run.acceptance = acceptance(score, None, kept=False, accepted=accepts(score, run.thresholds),
                                            t=run.thresholds)
        run.code_blocks = check_code(run.draft)
        broken = [c.block for c in run.code_blocks if c.status == "invalid"]
        if broken:
            with run.step("repair_code", f"code block(s) {broken} do not parse: one repair each"):
                self._repair_code(run)

    def _draft_checks(self, run: RunState) -> dict[str, float]:
        signals = run.current_signals() or self._measure(run)
        progress = run.progress()
        return draft_checks(progress, run.short_answer, self._sufficient(run, signals, progress), run.verdict_score(),
                            run.draft_logprob)

    def _sufficient(self, run: RunState, signals: Signals, progress: Progress) -> float:
        """The sufficiency model's P(the evidence holds the answer) on the evidence as it stands."""
        return self.sufficiency.probability(sufficiency_features(signals, run.thresholds, progress.expansions))

    def _release(self, run: RunState, step) -> None:
        """P(right) from the draft's checks, by the program's acceptance model, and the gate's release
        on it: an answer it withholds is an abstention; P(right) is the answer's confidence."""
        p_right = self.acceptance.probability(run.draft_checks)
        release = decide_release(p_right, run.thresholds, self.acceptance.threshold)
        step.rule, step.reason = release.rule, release.reason
        step.short_answer = run.short_answer  # the draft weighed, kept when withheld: its label for a refit
        run.confidence = p_right
        if release.action == "abstain":
            run.ended = release.ended
            run.abstain(release.reason)

    def _finish(self, run: RunState, session_id: str | None) -> dspy.Prediction:
        # subtle: an answer cut short by the time limit or an error still reports its code blocks
        run.code_blocks = run.code_blocks or check_code(run.draft)
        result = run.result(NO_ANSWER)
        released = run.thresholds.release == "learned"  # P(right) is the confidence
        if self.calibrator is not None and not released:  # a confidence fitted on labels replaces the judge's own
            result = self.calibrator.calibrate(result)
        if session_id:
            self._remember(session_id, run, result)
        return dspy.Prediction(answer=result.answer, short_answer=result.short_answer, result=result,
                               evidence=result.evidence)

    # --- steps -------------------------------------------------------------------------

    def _contextualize(self, run: RunState, conversation: Conversation, step) -> None:
        """The follow-up as a standalone question, by the LM; by substitution when its rewrite is unusable."""
        with run.timed("lm"):
            out = self._predict(run, self.contextualize, dict(standalone_question=""), question=run.question,
                                conversation=conversation.transcript(), topics=conversation.topics())
        standalone = (out.get("standalone_question") or "").strip()
        if problem := check_rewrite(run.question, standalone, conversation):
            standalone = substitute(run.question, conversation.main_entity())
            run.warn(f"the LM's rewrite was unusable ({problem}): substituted the last turn's topic", "rewrite_unusable")
        step.queries = [standalone]
        if standalone != run.question:
            run.stand_alone(standalone)

    def _remember(self, session_id: str, run: RunState, result) -> None:
        """This turn, for the session's next question: a store that cannot write loses the turn, not the answer."""
        try:
            self.sessions.record(session_id, Turn.of(result.question, run.question, result.short_answer))
        except OSError as error:
            result.warnings.append(redact(f"this turn was not kept in session {session_id!r}: {error}"))

    def _plan(self, run: RunState, hints: Hints, step) -> None:
        mode = run.thresholds.decompose_mode
        entities = named_entities(run.question)
        if mode == "llm":
            plan = self._predict(run, self.decompose, dict(sub_queries=[], query_type="factual", key_concepts=[]),
                                 question=run.question, known_context=hints.known_context or "(nothing)")
            queries, query_type = _as_list(plan.sub_queries), plan.query_type
        elif mode == "rule_based":
            plan = rule_based_plan(run.question)
            queries, query_type = list(plan.sub_queries), plan.query_type
        else:
            queries, query_type = [], "factual"
        # subtle: the question itself is always searched too: a small decomposer often drops
        # the very entity the question names ("How many people can a theater seat?")
        cleaned = _clean_queries([run.question, *queries], limit=4)
        run.sub_queries = [hints.query(q) for q in cleaned]
        run.query_type = hints.intent or query_type
        run.key_concepts = entities
        step.queries = run.sub_queries

    def _retrieve(self, run: RunState, step, queries: list[str]) -> None:
        t = run.thresholds
        with run.timed("retrieval"):
            hits = {q: self.search(q, t.candidates_k) for q in queries}
        kept = []
        for q, passages in hits.items():
            run.ranked[q] = sorted((p.similarity for p in passages if p.similarity is not None), reverse=True)
            kept += adaptive_cut(passages, t)
        step.queries, step.top_scores = queries, _top_scores(kept)
        step.new_passages = run.add_evidence(kept)
        run.memory.tried += queries

    def _expand_locality(self, run: RunState, step) -> None:
        neighbours = getattr(self.search, "neighbours", None)  # a plain callable search has no chunk order
        strong = run.strong_with_neighbours()
        found = [n for p in strong for n in (neighbours(p, 1) if neighbours else [])]
        run.expanded |= {p.chunk_id for p in strong}
        step.queries = [p.title for p in strong]
        step.new_passages = run.add_evidence(found)

    def _search_web(self, run: RunState, step, queries: list[str]) -> None:
        step.queries, found = queries, []
        with run.timed("web"):
            for q in queries:
                try:
                    # subtle: the search gets the time left, so a slow or throttled web cannot outlast the question
                    results = self.web.search(q, max_results=run.thresholds.web_results, seconds_left=run.seconds_left())
                except WebSearchError as error:
                    run.warn(f"web search failed for {q!r}: {error}", "web_failed")
                    continue
                if not results:
                    run.warn(f"web search found nothing for {q!r}", "web_empty")
                found += [r.to_passage() for r in results]
        step.top_scores = _top_scores(found)
        step.new_passages = run.add_evidence(found)
        run.memory.tried += queries
        run.searched_web |= set(queries)

    def _seed(self, run: RunState, step) -> None:
        with run.timed("web"):
            seeded = self.breadth.seed(run.seed_url, run.fetch_seconds())
        run.seed_url = seeded.url  # subtle: without its credentials from here on; the seed's own fetch alone used them
        run.expansion.append(seeded)
        run.depths[run.seed_url] = 0
        step.queries = [run.seed_url]
        if seeded.status == "failed":
            run.warn(f"the seed page could not be ingested: {seeded.reason}", "seed_failed")

    def _expand_breadth(self, run: RunState, step, pages: int) -> None:
        """The `pages` best links fetched and indexed, then the plan's queries searched again."""
        terms = link_terms(run.question, run.key_concepts)
        with run.timed("web"):
            unreachable = frozenset(s.url for s in run.expansion if s.status == "failed")
            ranked = self.breadth.candidates(run.question, terms, run.seed_url, run.depths, run.thresholds, unreachable)
            chosen = ranked[:pages]
            failed = self.breadth.fetch([c.url for c in chosen], run.fetch_seconds())
        rounds = run.resources.breadth_rounds
        if dropped := [reason for reason in failed.values() if reason]:
            run.warn(f"{len(dropped)} of {len(chosen)} pages of breadth round {rounds} were not indexed: {dropped[0]}")
        for rank, c in enumerate(ranked[:pages + SHOWN_SKIPPED]):
            status = "skipped" if rank >= pages else "failed" if failed[c.url] else "fetched"
            run.expansion.append(ExpansionStep(round=rounds, url=c.url, parent=c.parent, status=status, score=c.score,
                                               anchor=c.anchor, reason=failed.get(c.url, "")))
            if status == "fetched":
                run.depths[c.url] = c.depth
        run.resources = run.resources.model_copy(update={"pages_fetched": run.resources.pages_fetched + len(chosen)})
        self._retrieve(run, step, run.sub_queries)

    def _draft(self, run: RunState, absent: tuple[str, ...] = ()) -> None:
        evidence = self._show(run, cited=set()) + _absent_note(absent)
        with run.timed("lm"):
            out = self._predict(run, self.synthesize, dict(short_answer="", answer=""), question=run.asked,
                                evidence=evidence)
        _set_draft(run, out)

    def _judge(self, run: RunState) -> None:
        """Draft and judge in one call: the verdict and the answer read the same evidence."""
        evidence = self._show(run, cited=set(cited_numbers(run.draft)))
        with run.timed("lm"):
            out = self._predict(run, self.judge, dict(readable=False), question=run.asked, evidence=evidence)
        verdict = _verdict(out)
        run.set_verdict(verdict)
        if verdict.readable:
            _set_draft(run, out)
            run.confidence = judged_confidence(verdict.sufficient, verdict.confidence)

    def _rewrite(self, run: RunState) -> list[str]:
        gaps = run.memory.gaps
        with run.timed("lm"):
            out = self._predict(run, self.rewrite, dict(queries=[]), question=run.question,
                                missing="; ".join(gaps) or "the fact the answer needs", tried_queries=run.memory.tried)
        tried = {q.lower() for q in run.memory.tried}
        fresh = [q for q in _clean_queries(out.get("queries"), limit=2) if q.lower() not in tried]
        return fresh or [f"{run.question} {' '.join(gaps)}".strip()]

    def _refine(self, run: RunState) -> None:
        # subtle: after new evidence the refiner sees the new passages first, the ones the draft
        # cites, and only the best two earlier ones: with the whole pool in view the 0.5B kept
        # citing the old passages, and with none it lost the bridge to the new entity
        evidence = self._show(run, cited=set(cited_numbers(run.draft)), earlier=2)
        with run.timed("lm"):
            out = self._predict(run, self.refine, dict(short_answer=run.short_answer, answer=run.draft),
                                question=run.asked, draft=run.draft, gaps=run.memory.gaps, evidence=evidence)
        _set_draft(run, out)

    def _score(self, run: RunState) -> AnswerScore:
        passages = {i: f"{p.title}. {p.text}" for i, p in enumerate(run.pool.passages, 1)}
        embed = getattr(self.search, "embed", None)  # a plain callable search has no embedder
        # subtle: the index's vectors (of the same title and text) spare embedding the passages
        # again, a quarter of a second a question on 2 cores
        stored = {i: p.vector for i, p in enumerate(run.pool.passages, 1) if p.vector is not None}
        factuality = check_factuality(run.draft, run.question, passages, [s.n for s in run.shown], embed, stored)
        criteria = judge_criteria(run.draft, run.short_answer, run.criteria)
        return score_answer(criteria, run.verdict_score(), factuality, run.thresholds)

    def _repair(self, run: RunState, before: AnswerScore, step) -> None:
        """One LM answer again, told what the answer got wrong; it is scored again and kept only
        if it fixes something, scores no lower and is supported (`program.gate.repair_refused`)."""
        draft, short_answer = run.draft, run.short_answer
        evidence = self._show(run, cited=set(cited_numbers(run.draft)))
        with run.timed("lm"):
            out = self._predict(run, self.repair_answer, dict(short_answer=short_answer, answer=draft),
                                question=run.asked, problems=list(before.failed), evidence=evidence)
        _set_draft(run, out)
        after = self._score(run)
        step.score_after = after.total
        refused = repair_refused(before, after, run.progress(), run.thresholds)
        kept = not refused
        if refused:
            run.draft, run.short_answer = draft, short_answer
            run.warn(f"{refused}: kept the answer as it was")
        final = after if kept else before
        run.acceptance = acceptance(before, after, kept=kept, accepted=accepts(final, run.thresholds), t=run.thresholds)

    def _repair_code(self, run: RunState) -> None:
        """Each block that does not parse, rewritten once by the LM with its error: kept if the
        rewrite parses, else left as it was with a warning naming the block and its error."""
        # subtle: last block first, so the spans of the blocks before it hold as the draft changes
        for block, check in reversed(list(zip(find_blocks(run.draft), run.code_blocks))):
            if check.status != "invalid":
                continue
            error = f"line {check.line}: {check.error}"
            with run.timed("lm"):
                out = self._predict(run, self.repair_code, dict(fixed_code=""), language=check.language,
                                    code=block.code, error=error)
            fixed = strip_fence(out.get("fixed_code") or "")
            again = check_block(check.block, block.tag, fixed)
            if keep_code_repair(fixed, again.status == "valid"):
                run.draft = replace_block(run.draft, block, fixed)
                run.code_blocks[check.block - 1] = again.model_copy(update={"repaired": True})
            else:
                run.warn(f"code block {check.block} ({check.language}) does not parse, {error}; one repair failed")

    def _show(self, run: RunState, cited: set[int], earlier: int | None = None) -> str:
        t = run.thresholds
        # the key concepts and gaps pick which sentences of each passage survive the trim
        focus = " ".join([run.question, *run.sub_queries, *run.key_concepts, *run.memory.gaps])
        run.shown = run.pool.render(focus, t.evidence_tokens, t.passage_tokens, cited, earlier, t.relevance_weight)
        return format_evidence(run.shown) or "(no evidence found)"

    def _predict(self, run: RunState, predictor: dspy.Predict, fallback: dict, **inputs) -> dspy.Prediction:
        """Call a predictor within the time left; a malformed or truncated output is retried
        once with a larger output cap, then falls back to a safe default and a warning."""
        cap = predictor.config.get("max_tokens")
        for attempt in range(2):
            run.count_lm_call()
            config = {"max_tokens": cap * RETRY_TOKENS} if attempt and cap else {}
            try:
                return call_within(predictor, run.seconds_left(), config=config, **inputs)
            except (dspy.utils.exceptions.AdapterParseError, ValidationError, ValueError) as error:
                problem = type(error).__name__
        run.warn(f"{predictor.signature.__name__}: malformed LM output twice, used the safe default ({problem})",
                 "lm_unreadable")
        return dspy.Prediction(**fallback)

    def _measure(self, run: RunState):
        # subtle: coverage is of the plan's queries; a hop's own queries are means, and their
        # (low) similarity would read as a new gap and send every hop on to the web
        # subtle: the first planned query is the question with the caller's constraints appended;
        # its ranking is the question's own (without it the best hit reads as none found)
        planned = {(run.question if i == 0 else q): run.ranked[q] for i, q in enumerate(run.sub_queries) if q in run.ranked}
        signals = measure(planned, run.question, run.key_concepts, run.pool.passages, run.thresholds,
                          strong_neighbours=len(run.strong_with_neighbours()), searched_web=run.searched_web,
                          before=run.signals_before())
        run.remember(signals)
        return signals

    def _budget(self, run: RunState):
        return budget_left(run.thresholds, run.resources, self.web is not None, run.seconds_left(),
                           has_seed=bool(run.seed_url))

    # --- persistence: a compiled program carries its thresholds and calibrator ------------

    def dump_state(self, json_mode=True):
        calibrator = self.calibrator.model_dump() if self.calibrator else None
        return super().dump_state(json_mode=json_mode) | {"thresholds": self.thresholds.model_dump(),
                                                            "calibrator": calibrator,
                                                            "sufficiency": self.sufficiency.model_dump(),
                                                            "acceptance": self.acceptance.model_dump(),
                                                            "gatedrag": {"format": FORMAT, "reranker": self.reranker,
                                                                         "lm": self.compiled_with}}

    @property
    def reranker(self) -> str:
        """The reranker whose units the thresholds are in (`GATEDRAG_RERANKER`)."""
        return getattr(getattr(self.search, "reranker", None), "name", "none")

    def load_state(self, state, **kwargs):
        made = state.get("gatedrag", {}).get("format", 1)
        state = {name: getattr(self, name).dump_state() for name in self.LATER_PREDICTORS} | state
        thresholds = saved_thresholds(state)
        # added within format 3: a program saved before it has none, and reports the judge's confidence
        saved = state.get("calibrator")
        calibrator = ConfidenceCalibrator.model_validate(saved) if saved is not None else None
        super().load_state(_upgrade_predictors(state, made), **kwargs)
        self.thresholds, self.calibrator = thresholds, calibrator
        # added within format 3: a program saved before it carries none, and reads with the shipped one
        saved = state.get("sufficiency")
        self.sufficiency = SufficiencyModel.model_validate(saved) if saved is not None else SufficiencyModel.shipped()
        saved = state.get("acceptance")  # added within format 3: a program saved before it has the shipped one
        self.acceptance = AcceptanceModel.model_validate(saved) if saved is not None else AcceptanceModel.shipped()
        self.compiled_with = state.get("gatedrag", {}).get("lm", "")
        return self


class LearnedGate(GatedRAG):
    """The loop with the learned release (`Thresholds.release` "learned"), whatever its saved thresholds say."""

    def _start(self, question: str, hints: Hints, time_limit_s: float | None, url: str | None) -> RunState:
        run = super()._start(question, hints, time_limit_s, url)
        run.thresholds = run.thresholds.model_copy(update={"release": "learned"})
        return run


def saved_thresholds(state: dict) -> Thresholds:
    """A saved program's thresholds, upgraded from the format it was saved in."""
    made = state.get("gatedrag", {}).get("format", 1)
    return Thresholds.model_validate(upgrade_thresholds(state.get("thresholds", {}), made))


def upgrade_thresholds(saved: dict, made: int) -> dict:
    """Format 1 had the judge in every round and no planning mode: keep its tuned numbers, and
    its LM decomposition, so an old compiled program behaves as it was tuned. `abstain_similarity`
    was the bar of a refusal with no LM call on any gap; today's refusal (`off_topic_similarity`)
    means nothing on topic at all, so a tuned value of the old one says nothing about it. A
    program saved before `answer_source_similarity` had `off_topic_similarity` as that bar too."""
    saved = {k: v for k, v in saved.items() if k != "abstain_similarity"}
    if "off_topic_similarity" in saved and "answer_source_similarity" not in saved:
        saved["answer_source_similarity"] = saved["off_topic_similarity"]
    return saved if made >= 2 else {"decompose_mode": "llm", **saved}


def _upgrade_predictors(state: dict, made: int) -> dict:
    """Older demos have other output fields, so they are dropped: format 1's judge, synthesizer
    and refiner keep their instructions. Format 2's judge had a constraints input and
    next_action and search_queries outputs; DSPy matches saved field texts by position, so its
    tuned prompt is dropped whole and the judge starts from today's."""
    changed = {"judge", "synthesize", "refine"} if made < 2 else {"judge"} if made < 3 else set()
    upgraded = {k: ({**v, "demos": []} if k in changed and isinstance(v, dict) else v) for k, v in state.items()}
    if made < 3 and isinstance(upgraded.get("judge"), dict) and "signature" in upgraded["judge"]:
        upgraded["judge"] = {**upgraded["judge"], "signature": JudgeSufficiency.dump_state()}
    return upgraded


def _as_list(items) -> list:
    return [items] if isinstance(items, str) else list(items or [])


def _absent_note(absent: tuple[str, ...]) -> str:
    """The line that tells the reader what no passage mentions, after the passages."""
    return "".join(f"\n(no passage mentions {name})" for name in absent)


def _set_draft(run: RunState, out: dspy.Prediction) -> None:
    short_answer = out.get("short_answer")
    run.set_draft(out.get("answer"), short_answer, mean_logprob(out.get("logprobs"), short_answer or ""))


def _clean_queries(queries, limit: int) -> list[str]:
    cleaned = [q.strip() for q in _as_list(queries) if isinstance(q, str) and q.strip()]
    return list(dict.fromkeys(cleaned))[:limit]


def _top_scores(passages: list[Passage], n: int = 3) -> list[float]:
    return sorted((round(p.similarity if p.similarity is not None else p.score, 3) for p in passages), reverse=True)[:n]


def _verdict(out: dspy.Prediction) -> Verdict:
    """A verdict from the judge's output; a malformed one reads as unreadable, never as a gap."""
    if out.get("readable") is False:
        return Verdict(readable=False)
    try:
        confidence = min(1.0, max(0.0, float(out.get("confidence") or 0.0)))
    except (TypeError, ValueError):
        confidence = 0.0
    return Verdict(sufficient=out.get("sufficient") is True, confidence=confidence,
                   gaps=tuple(_clean_queries(out.get("gaps"), 2)))
