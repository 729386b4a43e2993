"""A scripted engine for the serving tests: a fake LM that answers by signature, not by call order,
so concurrent requests all get the same outputs, and passages with chosen similarities."""

from __future__ import annotations

import threading

import dspy
from dspy.utils import DummyLM

from program.base.settings import Settings
from program.loop import GatedRAG
from program.serving.answerer import Answerer, Engine
from tests.conftest import FakeSearch, passage

DOCS = [
    passage("Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer.", similarity=0.7),
    passage("Shirley Temple", "Shirley Temple would later hold the office of Chief of Protocol of the United States.",
            similarity=0.7),
]
QUESTION = "Which office did the star of Kiss and Tell hold later?"
PLAN = {"sub_queries": ["Kiss and Tell film star"], "query_type": "factual", "key_concepts": ["Kiss and Tell", "Shirley Temple"]}
ANSWER = {"short_answer": "Chief of Protocol", "answer": "Chief of Protocol of the United States [2]."}
FOLLOW_UP = "Which office did she hold later?"  # after "Who is Shirley Temple?" in the same session
STANDALONE = "Which office did Shirley Temple hold later?"


def verdict(sufficient: bool, confidence: float, gaps=(), answer=ANSWER) -> dict:
    return {**answer, "sufficient": sufficient, "confidence": confidence, "gaps": list(gaps)}


def signature_lm(plan=PLAN, answer=ANSWER, judged=None, rewrite=None, standalone=None) -> DummyLM:
    """JSONAdapter prompts end with the output fields they ask for, which names the signature."""
    return DummyLM({"[[ ## gaps ## ]]": answer,  # RefineAnswer (its outputs are the synthesizer's too)
                    "then `sufficient`": judged or verdict(True, 0.9, answer=answer),
                    "fields: `sub_queries`": plan,
                    "fields: `queries`": rewrite or {"queries": ["Shirley Temple career"]},
                    "fields: `short_answer`": answer,
                    "fields: `standalone_question`": standalone or {"standalone_question": STANDALONE}},
                   adapter=dspy.JSONAdapter())


class BlockingSearch(FakeSearch):
    """A FakeSearch that holds any query containing `block_on` until `release` is set."""

    def __init__(self, passages, block_on: str = "slow"):
        super().__init__(passages)
        self.block_on, self.entered, self.release = block_on, threading.Event(), threading.Event()

    def __call__(self, query: str, k: int):
        if self.block_on in query:
            self.entered.set()
            self.release.wait(10)
        return super().__call__(query, k)


def fake_answerer(settings: Settings, search=None, lm=None, web=None) -> Answerer:
    rag = GatedRAG(search or FakeSearch(DOCS), web=web)
    return Answerer(lambda: Engine(rag, lm or signature_lm(), description="scripted"), settings)
