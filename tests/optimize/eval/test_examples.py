"""Choosing a dataset and split: names and files, a file's identity, its splits, and the job's train/validation."""

import json

import pytest

from optimize.eval.example_schema import DatasetError, make_example
from optimize.eval.examples import (
    ALL,
    job_splits,
    load_examples,
    resolve_dataset,
)
from program.base.settings import Settings


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def rows(n, split=None):
    return [{"id": f"{split}{i}", "question": f"Q{i}?", "answer": "A"} | ({"split": split} if split else {})
            for i in range(n)]


def test_names_and_files_resolve_with_a_content_hash(tmp_path):
    assert resolve_dataset("aws_docs").is_file is False and resolve_dataset("hotpotqa").sha256 == ""
    path = write(tmp_path / "my.jsonl", rows(2))
    ref = resolve_dataset(str(path))
    assert (ref.name, ref.label, len(ref.sha256)) == (str(path.resolve()), "my", 64)
    write(path, rows(3))
    assert resolve_dataset(str(path)).sha256 != ref.sha256  # a changed file is another dataset
    with pytest.raises(DatasetError, match="no dataset 'nope.jsonl'"):
        resolve_dataset("nope.jsonl")


def test_a_file_runs_every_row_or_the_split_named(tmp_path):
    ref = resolve_dataset(str(write(tmp_path / "my.jsonl", rows(2, "dev") + rows(1, "holdout"))))
    settings = Settings(data_dir=tmp_path / "data")
    assert [e.qid for e in load_examples(settings, ref, ALL)] == ["dev0", "dev1", "holdout0"]
    assert [e.qid for e in load_examples(settings, ref, "holdout")] == ["holdout0"]
    assert [e.qid for e in load_examples(settings, ref, "dev", limit=1)] == ["dev0"]
    with pytest.raises(DatasetError, match="unknown split 'test' of .*my.jsonl; its splits: dev, holdout"):
        load_examples(settings, ref, "test")
    assert not (tmp_path / "data").exists()  # reading wrote nothing


def examples(n, split):
    return [make_example(f"{split}{i}", f"Q{i}?", ["A"], []) for i in range(n)]


def test_the_job_trains_on_train_and_validates_on_validation_or_dev():
    train, val, name = job_splits({"train": examples(2, "train"), "dev": examples(3, "dev"), "test": examples(1, "test")},
                                  None, seed=1)
    assert (len(train), len(val), name) == (2, 3, "dev")
    train, val, name = job_splits({"train": examples(2, "train"), "holdout": examples(1, "h")}, "holdout", seed=1)
    assert (len(train), [e.qid for e in val], name) == (2, ["h0"], "holdout")


def test_without_splits_a_fixed_seed_keeps_a_fifth_for_training_and_never_uses_test():
    by_split = {"": examples(10, "x"), "test": examples(5, "test")}
    train, val, name = job_splits(by_split, None, seed=20240501)
    assert (len(train), len(val), name) == (2, 8, "all rows less the 20% that trains")
    assert not {e.qid for e in train + val} & {e.qid for e in by_split["test"]}
    assert [e.qid for e in train] == [e.qid for e in job_splits(by_split, None, seed=20240501)[0]]
    with pytest.raises(DatasetError, match="unknown validation split 'validation'"):
        job_splits(by_split, "validation", seed=1)
    with pytest.raises(DatasetError, match="final reports only"):
        job_splits(by_split, "test", seed=1)


def test_the_job_sets_are_disjoint_halves_or_the_named_report_split():
    from optimize.eval.examples import job_sets

    train, dev = examples(3, "train"), examples(9, "dev")
    halves = job_sets(train, dev + train[:1], "dev", None, "", seed=7)
    assert len(halves.select) == 4 and len(halves.report) == 5  # a train question in dev is dropped
    ids = [{e.qid for e in part} for part in (halves.train, halves.select, halves.report)]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    assert (halves.select_name, halves.report_name) == ("dev, select half", "dev, report half")
    assert [e.qid for e in job_sets(train, dev, "dev", None, "", seed=7).select] == [e.qid for e in halves.select]
    named = job_sets(train, dev, "dev", dev[:3], "smoke", seed=7)
    assert [e.qid for e in named.report] == [e.qid for e in dev[:3]] and named.select == dev[3:]
    assert named.select_name == "dev without smoke"
    with pytest.raises(DatasetError, match="too few validation questions"):
        job_sets(train, dev[:1], "dev", None, "", seed=7)
