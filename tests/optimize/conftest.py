"""Fakes for the eval harness: hand-built examples, fake programs with a hand-built Result, a scorer,
and a small in-memory index holding the examples' gold paragraphs."""

from __future__ import annotations

import time
from dataclasses import dataclass

import dspy
import pytest

from metrics import CompositeWeights, Scorecard, build_support_judge, score_example
from optimize.eval.example_schema import make_example
from optimize.eval.records import Record
from program.base.settings import Settings
from program.contract.result import (
    Citation,
    Resources,
    Result,
    Step,
    Timing,
    Tokens,
    Trace,
)
from program.retrieval.chunking import Document
from program.retrieval.edge_store import EdgeStore
from program.retrieval.embeddings import load_embedder
from program.retrieval.indexing import index_documents
from program.retrieval.retriever import HybridSearch
from program.retrieval.web_search import OfflineWeb
from program.thresholds import Thresholds
from tests.conftest import passage

GOLD = {"q1": ("Who directed Kiss and Tell?", "Richard Wallace", ["Kiss and Tell", "Richard Wallace"], "", "bridge"),
        "q2": ("Which is older, Alpha or Beta?", "Alpha", ["Alpha", "Beta"], "Beta", "comparison"),  # not "A": an article
        "q3": ("Where was Shirley Temple born?", "Santa Monica", ["Shirley Temple", "Santa Monica"], "Santa Monica", "")}


def examples(*qids: str) -> list[dspy.Example]:
    return [make_example(q, GOLD[q][0], [GOLD[q][1]], GOLD[q][2], holdout_title=GOLD[q][3], hotpot_type=GOLD[q][4])
            for q in qids or GOLD]


LM_ACTIONS = {"decompose", "draft", "judge", "refine"}


def result(question: str, answer: str, titles: list[str], actions=("retrieve", "draft", "answer"), ended="answered") -> Result:
    evidence = [passage(t, f"{t} is where {answer} comes from.") for t in titles]
    citations = [Citation(n=1, chunk_id=evidence[0].chunk_id, source="index", title=titles[0], quote=evidence[0].text)] if titles else []
    trace = Trace(steps=[Step(action=a, reason=f"fake {a}", queries=[question], top_scores=[0.5],
                              signals={"best_score": 0.5}, duration_s=0.001,
                              lm=Tokens(calls=1, prompt=300, completion=20) if a in LM_ACTIONS else Tokens())
                         for a in actions],
                  ended=ended, resources=Resources(iterations=sum(a in {"answer", "query_docs", "search_web", "refine"} for a in actions)))
    return Result(question=question, answer=f"{answer} [1]." if titles else answer, citations=citations, evidence=evidence,
                  evidence_shown=[p.text for p in evidence], timing=Timing(total_s=0.01), trace=trace)


def hand_record(qid: str, holdout: str = "", web_searches: int = 0, rules=(), abstained: bool = False) -> Record:
    """A record built by hand: its holdout label, web searches, the gate rules of its steps, abstention."""
    steps = [Step(action="judge", rule=rule) for rule in rules]
    trace = Trace(steps=steps, resources=Resources(web_searches=web_searches, lm=Tokens(calls=4, prompt=900)))
    return Record(qid=qid, system="gated", status="ok", question=qid, gold="g", holdout_title=holdout,
                  scores=Scorecard(abstained=abstained, lm_calls=4, prompt_tokens=900, web_searches=web_searches),
                  result=Result(question=qid, answer="", abstained=abstained, trace=trace))


# web: a, c, d searched; a, b, d have a held-out paragraph. Abstained: c, e.
HAND = [hand_record("a", "A page", 1, ("covered_with_cliff", "")), hand_record("b", "B page", 0, ("out_of_time",)),
        hand_record("c", "", 2, ("covered_with_cliff",), abstained=True), hand_record("d", "D page", 1),
        hand_record("e", "", 0, abstained=True)]


@dataclass
class FakeHandle:
    """What `build_lm` returns, around a fake LM."""
    lm: object
    description: str = "fake LM"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def empty_prompt_cache(self):
        pass  # a fake LM caches no prompt


class FakeProgram(dspy.Module):
    """Answers right with the gold titles as evidence, except the `answers` given and the `fail` question."""

    def __init__(self, answers: dict[str, str] | None = None, fail: str = "", sleep_s: dict[str, float] | None = None,
                 actions=("retrieve", "draft", "answer")):
        super().__init__()
        self.answers = {GOLD[q][0]: GOLD[q][1] for q in GOLD} | (answers or {})
        self.fail, self.sleep_s, self.actions, self.calls = fail, sleep_s or {}, actions, []
        self.thresholds = Thresholds()

    def forward(self, question: str, time_limit_s: float | None = None) -> dspy.Prediction:
        self.calls.append(question)
        time.sleep(self.sleep_s.get(question, 0.0))
        if question == self.fail:
            raise RuntimeError("the fake program broke")
        titles = next(GOLD[q][2] for q in GOLD if GOLD[q][0] == question)
        r = result(question, self.answers.get(question, "no idea"), titles, self.actions)
        return dspy.Prediction(answer=r.answer, result=r, evidence=r.evidence)


class SearchingProgram(dspy.Module):
    """Shows what retrieval lets through: its evidence is the top hits of its search and web for the question."""

    def __init__(self, search: HybridSearch, web: OfflineWeb | None = None):
        super().__init__()
        self.search, self.web, self.thresholds = search, web, Thresholds()

    def forward(self, question: str, time_limit_s: float | None = None) -> dspy.Prediction:
        found = self.search(question, 3) + [r.to_passage() for r in (self.web.search(question, 3) if self.web else [])]
        r = Result(question=question, answer=found[0].title, evidence=found, evidence_shown=[p.text for p in found],
                   timing=Timing(total_s=0.01))
        return dspy.Prediction(answer=r.answer, result=r, evidence=r.evidence)


@pytest.fixture(scope="session")
def gold_program(tmp_path_factory) -> SearchingProgram:
    """A SearchingProgram over an embedded index of GOLD's gold paragraphs and a few others, with the held-out
    ones on an offline web instead: each paragraph repeats its question, so it is that question's top hit."""
    embedder, store = load_embedder(Settings()), EdgeStore(tmp_path_factory.mktemp("gold"))
    gold = {title: f"{title} answers this: {question}" for question, _, titles, _, _ in GOLD.values() for title in titles}
    others = {"Eiffel Tower": "The Eiffel Tower is a lattice tower in Paris.", "Photosynthesis": "Plants turn light into sugar."}

    def collection(name: str, pages: dict[str, str]) -> HybridSearch:
        documents = [Document(doc_id=t.replace(" ", "_"), title=t, text=x) for t, x in pages.items()]
        index_documents(store, name, documents, progress=False, embedder=embedder)
        return HybridSearch(store, name, "web" if name == "web" else "index", embedder=embedder)

    held_out = {GOLD[q][3] for q in GOLD if GOLD[q][3]}
    web = collection("web", {t: x for t, x in gold.items() if t in held_out} | others)
    index = collection("index", {t: x for t, x in gold.items() if t not in held_out} | others)
    return SearchingProgram(index, OfflineWeb(web))


def score(example: dspy.Example, pred: dspy.Prediction):
    return score_example(example, pred, build_support_judge("lexical"), CompositeWeights())


@pytest.fixture(scope="session")
def mlflow_dir(tmp_path_factory):
    """One SQLite MLflow store for the session: creating its tables takes seconds."""
    return tmp_path_factory.mktemp("mlflow")


@pytest.fixture
def settings(mlflow_dir) -> Settings:
    return Settings(data_dir=mlflow_dir, mlflow_tracking_uri=None, openai_api_key="sk-test-SECRET-1234", tavily_api_key=None)
