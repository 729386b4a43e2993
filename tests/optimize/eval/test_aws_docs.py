"""The AWS docs QA set: the row mapping, the seeded stratified dev/test split, and the real file."""

import csv
from collections import Counter

import pytest

from optimize.eval.aws_docs import dev_rows, load_aws_docs
from optimize.eval.example_schema import DatasetError
from program.base.settings import Settings
from program.retrieval.aws_corpus import QUESTIONS, aws_file, gold_page, held_out_gold

COLUMNS = ["Question", "Answer_True", "Yes_No_True", "Document_True"]


def write_csv(path, rows):
    with path.open("w", encoding="utf-8-sig", newline="") as f:
        csv.writer(f).writerows([COLUMNS, *rows])
    return path


def test_rows_map_to_the_schema(tmp_path):
    rows = [["Does AMI supports tags? ", "AMI supports tags", "Yes", "amazon-ec2-user-guide/Using_Tags.md"],
            ["Can I stop it?", "You cannot", "No", "guide/stop.md"],
            ["What is the maximum function timeout in AWS Lambda? ", "900 seconds", "None", " aws-lambda-developer-guide/limits.md"],
            ["Which TLS version?", "1.2", "None", "guide/tls.md"]]
    path = write_csv(tmp_path / "QA_true.csv", rows)
    examples = {e.qid: e for e in load_aws_docs(path, "dev") + load_aws_docs(path, "test")}
    assert sorted(examples) == ["aws-001", "aws-002", "aws-003", "aws-004"]
    yes, no, none, tls = (examples[f"aws-00{i}"] for i in range(1, 5))
    assert (yes.question, yes.answers, yes.answer) == ("Does AMI supports tags?", ["yes", "AMI supports tags"], "yes")
    assert no.answers == ["no", "You cannot"]
    # None is "not a yes/no question": still answerable, with the text answer
    assert (none.answers, none.answerable) == (["900 seconds"], True)
    assert none.gold_sources == ["aws-lambda-developer-guide/doc_source/limits.md"]
    assert tls.answers == ["1.2"]


def test_gold_page_inserts_doc_source_and_drops_stray_spaces():
    assert gold_page(" amazon-ec2-user-guide/AmazonEBS.md") == "amazon-ec2-user-guide/doc_source/AmazonEBS.md"
    assert gold_page("g/doc_source/p.md") == "g/doc_source/p.md"


def test_the_split_is_stratified_fixed_and_halves_each_label():
    labels = ["Yes"] * 22 + ["No"] * 10 + ["None"] * 68
    dev = dev_rows(labels)
    assert dev == dev_rows(labels) and len(dev) == 50
    assert Counter(labels[n - 1] for n in dev) == {"Yes": 11, "No": 5, "None": 34}


def test_unknown_split_and_wrong_file_fail_clearly(tmp_path):
    with pytest.raises(DatasetError, match="unknown split 'smoke' of aws_docs; its splits: dev, test"):
        load_aws_docs(tmp_path / "x.csv", "smoke")
    other = tmp_path / "other.csv"
    other.write_text("question,answer\nQ?,A\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="not the AWS docs QA file"):
        load_aws_docs(other, "dev")


def test_the_real_file_has_100_questions_split_50_50():
    settings = Settings()
    if not (settings.shared_data / "aws_docs" / "QA_true.csv").is_file():
        pytest.skip("the shared AWS docs data is not here")
    dev, test = load_aws_docs(aws_file(settings, QUESTIONS), "dev"), load_aws_docs(aws_file(settings, QUESTIONS), "test")
    both = dev + test
    assert (len(dev), len(test), len({e.qid for e in both})) == (50, 50, 100)
    labels = Counter(e.answers[0] if e.answers[0] in ("yes", "no") else "none" for e in both)
    assert labels == {"none": 68, "yes": 22, "no": 10} and all(e.answerable for e in both)
    assert all(e.gold_sources[0].count("/doc_source/") == 1 and " " not in e.gold_sources[0] for e in both)
    held = held_out_gold(settings)
    web = load_aws_docs(aws_file(settings, QUESTIONS), "dev", held)
    assert {e.holdout_title for e in web} - {""} <= held and any(e.holdout_title for e in web)
