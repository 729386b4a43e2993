"""program/serving/answerer.py: a request that names a collection gets the served program over it."""

import pytest

from program.assembly.factory import build_program
from program.base.settings import Settings
from program.retrieval.open_store import open_store
from program.serving.answerer import Answerer, Engine, UnknownCollection


def test_a_named_collection_gets_the_served_prompts_and_thresholds_and_only_its_own_web(tmp_path):
    settings = Settings(_env_file=None, data_dir=tmp_path, profile="local", web_backend="offline")
    store = open_store(settings)
    for name in ("hotpotqa", "hotpotqa_web", "aws_docs"):
        store.ensure(name)
    served = build_program(settings)
    served.thresholds = served.thresholds.model_copy(update={"top_k": 7})
    served.judge.signature = served.judge.signature.with_instructions("Judge tersely.")
    answerer, engine = Answerer(lambda: None, settings), Engine(served, lm=None)

    assert answerer.program_for(engine, None) is served and answerer.program_for(engine, "hotpotqa") is served
    aws = answerer.program_for(engine, "aws_docs")
    assert aws.search.collection == "aws_docs" and aws.web is None  # hotpotqa's web corpus is not aws_docs'
    assert aws.thresholds.top_k == 7 and aws.judge.signature.instructions == "Judge tersely."
    assert aws.sessions is served.sessions  # a conversation may move to another collection
    assert answerer.program_for(engine, "aws_docs") is aws  # built once
    with pytest.raises(UnknownCollection, match="nowhere"):
        answerer.program_for(engine, "nowhere")
