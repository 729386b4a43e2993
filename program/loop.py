"""GatedRAG: the evaluation-gated retrieval loop, as one DSPy module.

Read `forward` top to bottom: decompose, retrieve per sub-query, draft an answer, then judge
and act until the gate says answer or a budget runs out. The actions are `answer`,
`query_docs`, `search_web` and `refine`; the policy that picks them is `program.gate.decide`.
Retrieval and web search come in as plain callables so optimizers can copy the program freely.
"""

from __future__ import annotations

import copy
from typing import Callable

import dspy
from pydantic import ValidationError

from signatures import Decompose, JudgeSufficiency, RefineAnswer, RewriteQuery, SynthesizeAnswer
from program.evidence import format_evidence
from program.gate import Budget, Verdict, decide
from program.hints import Hints
from program.passage import Passage
from program.citations import cited_numbers
from program.default_lm import default_lm
from program.run_state import RunState
from program.settings import Settings
from program.thresholds import Thresholds
from program.web_search import WebSearch, WebSearchError

Search = Callable[[str, int], list[Passage]]
NO_ANSWER = "I could not find the answer in the evidence."
FORMAT = 1  # the saved-program layout; `program.load` refuses a newer one
BEST_EARLIER_AFTER_WEB = 2  # earlier passages the refiner sees beside the web results


class GatedRAG(dspy.Module):
    PREDICTORS = ("decompose", "judge", "rewrite", "synthesize", "refine")

    def __init__(self, search: Search, web: WebSearch | None = None, thresholds: Thresholds | None = None):
        super().__init__()
        # subtle: these attribute names are the keys of the saved JSON; renaming one breaks load().
        # Output caps sized to each signature's fields: a small model in JSON-grammar mode can
        # loop on a list until the cap, and every runaway token costs ~25 ms on 2 cores.
        self.decompose = dspy.Predict(Decompose, max_tokens=160)
        self.judge = dspy.Predict(JudgeSufficiency, max_tokens=320)
        self.rewrite = dspy.Predict(RewriteQuery, max_tokens=96)
        self.synthesize = dspy.Predict(SynthesizeAnswer, max_tokens=192)
        self.refine = dspy.Predict(RefineAnswer, max_tokens=192)
        self.search = search
        self.web = web
        self.thresholds = thresholds or Thresholds()

    def forward(self, question: str, hints: Hints | None = None, time_limit_s: float | None = None) -> dspy.Prediction:
        """`hints`: see `program.hints.Hints`. `time_limit_s`: past it, the loop stops judging and
        returns its current draft, ended "budget_exhausted" with a warning (a service's
        per-request timeout, an eval's per-example one)."""
        if dspy.settings.lm is None:  # loaded on its own (an MLflow model, say): use the settings' LM
            with dspy.context(lm=default_lm(), adapter=dspy.JSONAdapter()):
                return self.forward(question, hints, time_limit_s)
        hints = hints or Hints()
        run = RunState(question=question, thresholds=hints.apply(self.thresholds), time_limit_s=time_limit_s,
                       constraints=hints.constraints)
        draft = NO_ANSWER
        try:
            self._decompose(run, hints)
            with run.step("retrieve", f"{run.query_type} question, {len(run.sub_queries)} sub-queries") as step:
                self._retrieve(run, step, run.sub_queries)
            with run.step("draft", "first answer from the retrieved evidence"):
                draft = self._draft(run)
            for _ in range(run.thresholds.max_iterations):
                if run.out_of_time():
                    break
                with run.step("answer") as step:  # the gate below sets the real action
                    verdict = self._judge(run, draft)
                    decision = decide(verdict, self._budget(run), run.thresholds, run.uncovered())
                    step.action, step.reason, step.confidence = decision.action, decision.reason, verdict.confidence
                    run.resources.iterations += 1
                    next_hop: tuple[str, ...] = ()
                    if decision.action == "answer":
                        run.ended = decision.ended
                        break
                    if decision.action == "query_docs":
                        run.resources.doc_queries += 1
                        self._retrieve(run, step, self._rewrite(run, verdict))
                        next_hop = run.uncovered() if self._budget(run).web_searches_left else ()
                        if not next_hop:
                            draft = self._draft(run)
                    elif decision.action == "search_web":
                        draft = self._web_round(run, step, list(decision.queries or verdict.queries) or [verdict.missing or question],
                                                draft, verdict)
                    elif decision.action == "refine":
                        draft = self._refine(run, draft, list(verdict.queries or verdict.gaps))
                if next_hop:
                    # a rewrite naming an entity the collection lacks (often the second hop)
                    # goes straight to the web instead of spending a judge round on a known gap
                    with run.step("search_web", f"the collection has no passage close to the rewritten "
                                  f"{', '.join(map(repr, next_hop))}") as step:
                        draft = self._web_round(run, step, list(next_hop), draft, verdict)
            else:
                run.ended = "max_iterations" if run.thresholds.max_iterations else "answered"
        except Exception as error:  # noqa: BLE001 - a question ends with a result, never a crash
            run.ended = "error"
            run.warn(f"the loop stopped: {type(error).__name__}: {error}")
        result = run.result(draft)
        return dspy.Prediction(answer=result.answer, result=result, evidence=result.evidence)

    # --- steps -------------------------------------------------------------------------

    def _decompose(self, run: RunState, hints: Hints) -> None:
        with run.step("decompose") as step, run.timed("decompose"):
            plan = self._predict(run, self.decompose, dict(sub_queries=[], query_type="factual", key_concepts=[]),
                                 question=run.question, known_context=hints.known_context or "(nothing)")
            # subtle: the question itself is always searched too: a small decomposer often drops
            # the very entity the question names ("How many people can a theater seat?")
            queries = _clean_queries([run.question, *_as_list(plan.sub_queries)], limit=4)
            run.sub_queries = [f"{q} {hints.constraints}".strip() for q in queries]
            run.query_type = hints.intent or plan.query_type
            run.key_concepts = _clean_queries(plan.key_concepts, limit=8)
            step.queries = run.sub_queries

    def _retrieve(self, run: RunState, step, queries: list[str]) -> None:
        t = run.thresholds
        with run.timed("retrieval"):
            hits = {q: self.search(q, t.top_k) for q in queries}
        for q, passages in hits.items():
            run.best_similarity[q] = max((p.similarity for p in passages if p.similarity is not None), default=None)
        found = [p for q in queries for p in hits[q]]
        kept = [p for p in found if p.similarity is None or p.similarity >= t.score_floor]
        if len(kept) < len(found):
            step.reason += f"; {len(found) - len(kept)} passages under the score floor dropped"
        step.queries, step.top_scores = queries, _top_scores(kept)
        step.new_passages = run.pool.add(kept)
        run.memory.tried += queries

    def _search_web(self, run: RunState, step, queries: list[str]) -> None:
        # a query the web already answered would only bring back the same pages
        given = [q for q in _clean_queries(queries, limit=len(queries)) if q not in run.searched_web][:2]
        fallback = [q for q in _clean_queries([" ".join(run.key_concepts), run.question], limit=2)
                    if q not in run.searched_web][:1]
        step.queries = queries = given or fallback or [run.question]
        found = []
        with run.timed("web"):
            for q in queries:
                try:
                    found += [r.to_passage() for r in self.web.search(q, max_results=run.thresholds.web_results)]
                except WebSearchError as error:
                    run.warn(f"web search failed for {q!r}: {error}")
        step.top_scores = _top_scores(found)
        step.new_passages = run.pool.add(found)
        run.memory.tried += queries
        run.searched_web |= set(queries)

    def _web_round(self, run: RunState, step, queries: list[str], draft: str, verdict: Verdict) -> str:
        """Search the web, then refine the draft over the new results and its cited passages."""
        run.resources.web_searches += 1
        self._search_web(run, step, queries)
        return self._refine(run, draft, list(verdict.gaps) or [verdict.missing], earlier=BEST_EARLIER_AFTER_WEB)

    def _draft(self, run: RunState) -> str:
        evidence = self._show(run, cited=set())
        with run.timed("lm"):
            out = self._predict(run, self.synthesize, dict(answer=NO_ANSWER), question=run.question, evidence=evidence)
        return out.answer or NO_ANSWER

    def _judge(self, run: RunState, draft: str) -> Verdict:
        evidence = self._show(run, cited=set(cited_numbers(draft)))
        with run.timed("lm"):
            out = self._predict(run, self.judge, {}, question=run.question, evidence=evidence, draft=draft,
                                known_facts=run.memory.facts, constraints=run.constraints or "(none)")
        verdict = _verdict(out)
        run.confidence = verdict.confidence if verdict.sufficient else min(verdict.confidence, 0.5)
        run.memory.facts = list(dict.fromkeys(run.memory.facts + list(verdict.facts)))[-8:]
        run.memory.gaps, run.memory.summary = list(verdict.gaps), verdict.missing
        return verdict

    def _rewrite(self, run: RunState, verdict: Verdict) -> list[str]:
        with run.timed("lm"):
            out = self._predict(run, self.rewrite, dict(queries=list(verdict.queries)), question=run.question,
                                missing=verdict.missing or "; ".join(verdict.gaps), tried_queries=run.memory.tried)
        tried = {q.lower() for q in run.memory.tried}
        fresh = [q for q in _clean_queries(out.queries, limit=2) if q.lower() not in tried]
        return fresh or [f"{run.question} {verdict.missing}".strip()]

    def _refine(self, run: RunState, draft: str, focus: list[str], earlier: int | None = None) -> str:
        # subtle: after a web search the refiner sees the new results first, the passages the
        # draft cites, and only the best few earlier ones: with the whole pool in view the 0.5B
        # kept citing the old passages, and with none it lost the bridge to the new entity
        evidence = self._show(run, cited=set(cited_numbers(draft)), earlier=earlier)
        with run.timed("lm"):
            out = self._predict(run, self.refine, dict(answer=draft), question=run.question, draft=draft,
                                evidence=evidence, focus=[f for f in focus if f])
        return out.answer or draft

    def _show(self, run: RunState, cited: set[int], earlier: int | None = None) -> str:
        t = run.thresholds
        # the key concepts and gaps pick which sentences of each passage survive the trim
        focus = " ".join([run.question, *run.sub_queries, *run.key_concepts, *run.memory.gaps])
        run.shown = run.pool.render(focus, t.evidence_tokens, t.passage_tokens, cited, earlier)
        return format_evidence(run.shown) or "(no evidence found)"

    def _predict(self, run: RunState, predictor: dspy.Predict, fallback: dict, **inputs) -> dspy.Prediction:
        """Call a predictor; a malformed LM output falls back to a safe default and a warning."""
        run.count_lm_call()
        try:
            return predictor(**inputs)
        except (dspy.utils.exceptions.AdapterParseError, ValidationError, ValueError) as error:
            run.warn(f"{predictor.signature.__name__}: malformed LM output, used the safe default ({type(error).__name__})")
            return dspy.Prediction(**fallback)

    def _budget(self, run: RunState) -> Budget:
        t, used = run.thresholds, run.resources
        last = next((s for s in reversed(run.steps) if s.action == "query_docs"), None)
        return Budget(doc_queries_left=t.max_doc_queries - used.doc_queries,
                      web_searches_left=(t.max_web_searches - used.web_searches) if self.web else 0,
                      docs_stale=last is not None and last.new_passages == 0)

    # --- persistence: a compiled program carries its thresholds ------------------------

    def __deepcopy__(self, memo):
        # the default deep copy; spelled out because pickling (below) must differ from it
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        new.__dict__.update({k: copy.deepcopy(v, memo) for k, v in self.__dict__.items()})
        return new

    def __reduce__(self):
        # subtle: a pickled program (an MLflow model) keeps only its saved state; the loading
        # process rebuilds search and web from its own settings, so no store handle, file
        # lock or API key ever lands in a pickle
        return _rebuild, (type(self), self.dump_state())

    def dump_state(self, json_mode=True):
        return super().dump_state(json_mode=json_mode) | {"thresholds": self.thresholds.model_dump(),
                                                            "gatedrag": {"format": FORMAT}}

    def load_state(self, state, **kwargs):
        thresholds = Thresholds.model_validate(state.get("thresholds", {}))
        super().load_state(state, **kwargs)
        self.thresholds = thresholds
        return self


def _rebuild(cls: type[GatedRAG], state: dict) -> GatedRAG:
    from program.factory import build_program

    rag = build_program(Settings(), program_class=cls)
    rag.load_state(state)
    return rag


def _as_list(items) -> list:
    return [items] if isinstance(items, str) else list(items or [])


def _clean_queries(queries, limit: int) -> list[str]:
    queries = _as_list(queries)
    cleaned = [q.strip() for q in queries if isinstance(q, str) and q.strip()]
    return list(dict.fromkeys(cleaned))[:limit]


def _top_scores(passages: list[Passage], n: int = 3) -> list[float]:
    return sorted((round(p.similarity if p.similarity is not None else p.score, 3) for p in passages), reverse=True)[:n]


def _verdict(out: dspy.Prediction) -> Verdict:
    """A verdict from the judge's output; anything missing or malformed reads as "not sufficient"."""
    try:
        confidence = min(1.0, max(0.0, float(out.get("confidence") or 0.0)))
    except (TypeError, ValueError):
        confidence = 0.0
    return Verdict(sufficient=out.get("sufficient") is True, confidence=confidence, missing=str(out.get("missing") or ""),
                   next_action=out.get("next_action") or "query_docs", queries=tuple(_clean_queries(out.get("queries"), 2)),
                   facts=tuple(_clean_queries(out.get("facts"), 8)), gaps=tuple(_clean_queries(out.get("gaps"), 4)))
