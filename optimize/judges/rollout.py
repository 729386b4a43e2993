"""A retrieval-only rollout of the loop on one labelled question: its states, each with the gate's
signals and the `sufficiency` label, before and after each retrieval expansion. No LM is called.

The loop's own steps do the work (`GatedRAG`'s planning, retrieval, neighbour reading, measuring and
showing), so a recorded state is the one the loop would be in: the plan is the rule-based one (the
loop's default, no LM), and the evidence is labelled as the reader would see it (`_show`, trimmed).
Expansions, up to the budget of rounds: the one the gate names when it names a retrieval expansion
(neighbouring chunks, a doc re-query for a bridge); otherwise neighbouring chunks of strong hits,
then one re-query with no LM (the bridge names, the missing names, or the question with the terms
the evidence never uses). Never the web, and no links: the labelled questions come with no seed URL.
This module rolls out one question; `optimize.judges.record` runs a dataset and writes the table.
"""

from __future__ import annotations

import dspy
from pydantic import BaseModel

from optimize.judges.evidence_label import answer_in_evidence
from program.gate import decide, spend
from program.hints import Hints
from program.judges.sufficiency import features
from program.loop import GatedRAG
from program.run_state import RunState
from program.signals import Signals

NEIGHBOURS, REQUERY = "expand_locality", "query_docs"


class State(BaseModel):
    qid: str
    round: int
    action: str  # what made this state: retrieve, expand_locality or query_docs
    sufficient: bool
    features: dict[str, float]
    passages: int  # in the pool
    shown: int  # of them, shown to the reader


def roll_out(program: GatedRAG, example: dspy.Example, rounds: int) -> list[State]:
    """The question's states: after the first retrieval, then after each of up to `rounds` expansions."""
    # subtle: the loop's own steps, called as `forward` calls them, so the signals are the gate's exactly
    run = program._start(example.question, Hints(), None, None)
    with run.step("decompose") as step:
        program._plan(run, Hints(), step)
    with run.step("retrieve") as step:
        program._retrieve(run, step, run.sub_queries)
    signals, states = _record(program, run, example, "retrieve", [])
    for _ in range(rounds):
        action, queries = next_expansion(program, run, signals)
        if action is None:
            break
        with run.step(action) as step:
            if action == NEIGHBOURS:
                program._expand_locality(run, step)
            else:
                program._retrieve(run, step, queries)
        run.resources = spend(run.resources, action)
        signals, states = _record(program, run, example, action, states)
    return states


def _record(program: GatedRAG, run: RunState, example: dspy.Example, action: str,
            states: list[State]) -> tuple[Signals, list[State]]:
    signals = program._measure(run)
    program._show(run, cited=set())
    round_ = len(states)
    state = State(qid=example.qid, round=round_, action=action, sufficient=answer_in_evidence(example, run.shown),
                  features=features(signals, run.thresholds, round_), passages=len(run.pool.passages),
                  shown=len(run.shown))
    return signals, [*states, state]


def next_expansion(program: GatedRAG, run: RunState, s: Signals) -> tuple[str | None, list[str]]:
    """The gate's retrieval expansion when it names one, else neighbours, else one re-query with no LM."""
    decision = decide(s, run.progress(), program._budget(run), run.thresholds)
    if decision.action == NEIGHBOURS or decision.action == REQUERY and decision.queries:
        return decision.action, list(decision.queries)
    if run.strong_with_neighbours():
        return NEIGHBOURS, []
    if run.resources.doc_queries >= run.thresholds.max_doc_queries:
        return None, []
    tried = {q.lower() for q in run.memory.tried}
    wanted = [*s.unmet_bridges, *s.missing_entities, " ".join([run.question, *s.missing_terms])]
    fresh = list(dict.fromkeys(q for q in wanted if q.strip() and q.lower() not in tried))[:2]
    return (REQUERY, fresh) if fresh else (None, [])
