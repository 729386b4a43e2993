"""Fakes for the eval harness: hand-built examples, a fake program with a hand-built Result, a scorer."""

from __future__ import annotations

import time

import dspy
import pytest

from metrics import CompositeWeights, build_support_judge, score_example
from program.result import Citation, Resources, Result, Step, Timing, Trace
from program.settings import Settings
from program.thresholds import Thresholds
from tests.conftest import passage

GOLD = {"q1": ("Who directed Kiss and Tell?", "Richard Wallace", ["Kiss and Tell", "Richard Wallace"], "", "bridge"),
        "q2": ("Which is older, Alpha or Beta?", "Alpha", ["Alpha", "Beta"], "Beta", "comparison"),  # not "A": an article
        "q3": ("Where was Shirley Temple born?", "Santa Monica", ["Shirley Temple", "Santa Monica"], "Santa Monica", "")}


def examples(*qids: str) -> list[dspy.Example]:
    return [dspy.Example(qid=q, question=GOLD[q][0], answer=GOLD[q][1], gold_titles=GOLD[q][2], holdout_title=GOLD[q][3],
                         hotpot_type=GOLD[q][4]).with_inputs("question") for q in qids or GOLD]


def result(question: str, answer: str, titles: list[str], actions=("retrieve", "draft", "answer"), ended="answered") -> Result:
    evidence = [passage(t, f"{t} is where {answer} comes from.") for t in titles]
    citations = [Citation(n=1, chunk_id=evidence[0].chunk_id, source="index", title=titles[0], quote=evidence[0].text)] if titles else []
    trace = Trace(steps=[Step(action=a, reason=f"fake {a}", queries=[question], top_scores=[0.5]) for a in actions],
                  ended=ended, resources=Resources(iterations=sum(a in {"answer", "query_docs", "search_web", "refine"} for a in actions)))
    return Result(question=question, answer=f"{answer} [1]." if titles else answer, citations=citations, evidence=evidence,
                  timing=Timing(total_s=0.01), trace=trace)


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


def score(example: dspy.Example, pred: dspy.Prediction):
    return score_example(example, pred, build_support_judge("lexical"), CompositeWeights())


@pytest.fixture(scope="session")
def mlflow_dir(tmp_path_factory):
    """One SQLite MLflow store for the session: creating its tables takes seconds."""
    return tmp_path_factory.mktemp("mlflow")


@pytest.fixture
def settings(mlflow_dir) -> Settings:
    return Settings(data_dir=mlflow_dir, mlflow_tracking_uri=None, openai_api_key="sk-test-SECRET-1234", tavily_api_key=None)
