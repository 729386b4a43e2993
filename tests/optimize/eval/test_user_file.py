"""Users' labelled question files in each format, and bad files refused whole in one line naming the line."""

import json
from pathlib import Path

import pytest

from datasets import Dataset, DatasetDict
from optimize.eval.example_schema import DatasetError, DatasetFileError
from optimize.eval.user_file import NO_SPLIT, read_examples

ROWS = [
    {"id": "a", "question": "Who wrote it?", "answer": "Ann", "gold_sources": "docs/guide/a.md", "split": "train"},
    {"id": "b", "question": "Which year?", "answers": ["1945", "in 1945"], "gold_sources": ["docs/b.md"], "split": "dev",
     "note": "an extra column, ignored"},
    {"id": "c", "question": "What is not covered?", "answers": [], "split": "dev"},
]


def table(rows):
    """The rows with every column (lists as lists), as a typed table needs them."""
    columns = ("id", "question", "answer", "answers", "gold_sources", "split")
    listed = lambda r: [r["gold_sources"]] if isinstance(r.get("gold_sources"), str) else r.get("gold_sources")  # noqa: E731
    return [{c: r.get(c) for c in columns} | {"gold_sources": listed(r)} for r in rows]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def check(by_split):
    assert sorted(by_split) == ["dev", "train"]
    a, (b, c) = by_split["train"][0], by_split["dev"]
    assert (a.qid, a.answers, a.gold_sources, a.answerable) == ("a", ["Ann"], ["docs/guide/a.md"], True)
    assert (b.answers, b.answer, b.gold_sources) == (["1945", "in 1945"], "1945", ["docs/b.md"])
    assert (c.answerable, c.answers, c.gold_sources) == (False, [], [])
    assert set(a.inputs().keys()) == {"question"}


def test_jsonl(tmp_path):
    check(read_examples(write_jsonl(tmp_path / "my.jsonl", ROWS)))


def test_parquet(tmp_path):
    path = tmp_path / "my.parquet"
    Dataset.from_list(table(ROWS)).to_parquet(str(path))
    check(read_examples(path))


def test_csv_holds_lists_as_json_and_keeps_answers_as_text(tmp_path):
    path = tmp_path / "my.csv"
    path.write_text('id,question,answer,answers,gold_sources,split\n'
                    'a,Who wrote it?,Ann,,docs/guide/a.md,train\n'
                    'b,Which year?,,"[""1945"", ""in 1945""]","[""docs/b.md""]",dev\n'
                    'c,What is not covered?,,[],,dev\n'
                    'd,Which TLS version?,1.2,,,test\n', encoding="utf-8")
    by_split = read_examples(path)
    assert by_split.pop("test")[0].answers == ["1.2"]  # not the float 1.2, nor "1.20"
    check(by_split)


def test_a_saved_dataset_dict_gives_its_split_names(tmp_path):
    parts = {"train": ROWS[:1], "dev": ROWS[1:]}
    DatasetDict({name: Dataset.from_list([{k: v for k, v in r.items() if k != "split"} for r in table(rows)])
                 for name, rows in parts.items()}).save_to_disk(str(tmp_path / "saved"))
    by_split = read_examples(tmp_path / "saved")
    assert sorted(by_split) == ["dev", "train"] and [e.qid for e in by_split["dev"]] == ["b", "c"]
    assert by_split["dev"][1].answerable is False


def test_no_split_column_no_gold_sources_and_answerable_false(tmp_path):
    path = write_jsonl(tmp_path / "plain.jsonl", [{"question": "Q1?", "answer": "x"},
                                                  {"question": "Q2?", "answer": "", "answerable": False}])
    (one, two), = read_examples(path).values()
    assert list(read_examples(path)) == [NO_SPLIT]
    assert (one.qid, one.gold_sources, one.answerable) == ("row1", [], True)
    assert (two.qid, two.answerable, two.answers) == ("row2", False, [])


@pytest.mark.parametrize("row, says", [
    ({"answer": "x"}, "line 2: missing key 'question'"),
    ({"question": "Q?"}, "line 2: no answer"),
    ({"question": "Q?", "answers": "x"}, "line 2: answers: input should be a valid list"),
    ({"question": "Q?", "answer": "x", "gold_sources": 3}, "line 2: gold_sources"),
    ({"question": ["Q?"], "answer": "x"}, "line 2: question: input should be a valid string"),
    ({"question": "Q?", "answers": [], "answerable": True}, "line 2: answerable is true but no answer"),
    ({"question": "Q?", "answer": "x", "answerable": 2}, "line 2: answerable: input should be a valid boolean"),
    ({"id": "same", "question": "Q?", "answer": "x"}, "line 2: duplicate id 'same'"),
])
def test_a_bad_row_refuses_the_whole_file_naming_the_file_and_line(tmp_path, row, says):
    path = write_jsonl(tmp_path / "bad.jsonl", [{"id": "same", "question": "Fine?", "answer": "yes"}, row])
    with pytest.raises(DatasetFileError, match="nothing was run") as error:
        read_examples(path)
    assert str(error.value).startswith(f"{path} {says}")
    assert "\n" not in str(error.value)


def test_the_first_bad_line_is_named_and_the_others_counted(tmp_path):
    path = write_jsonl(tmp_path / "bad.jsonl", [{"question": "Q?", "answer": "x"}] + [{"answer": "x"}] * 6)
    with pytest.raises(DatasetFileError) as error:
        read_examples(path)
    assert str(error.value) == (f"{path} line 2: missing key 'question'; 5 more bad row(s) (line 3, line 4, line 5, "
                                "line 6, ...); nothing was run")


def test_lines_that_do_not_parse_are_listed_with_the_bad_rows_in_file_order(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"question": "Q?", "answer": "x"}\n{"question": "Q?", "answer": \n{"answer": "x"}\n[1]\n'
                     b'{"question": "Q\xff?", "answer": "x"}\n')
    with pytest.raises(DatasetFileError) as error:
        read_examples(path)
    assert str(error.value) == (f"{path} line 2: not JSON: Expecting value (column 30); 3 more bad row(s) (line 3, "
                                "line 4, line 5); nothing was run")


def test_csv_lines_with_a_cell_too_many_are_all_named(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("question,answer\nQ?,x\nQ?,x,extra\nQ?,x\nQ?,x,y,z\n")
    with pytest.raises(DatasetFileError) as error:
        read_examples(path)
    assert str(error.value) == (f"{path} line 3: 3 cells; the header has 2; 1 more bad row(s) (line 5); "
                                "nothing was run")


@pytest.mark.parametrize("name, content, says", [
    ("bad.jsonl", b'{"question": "Q?", "answer": "x"}\n\n{"question": "Q?", "answer": \n', "line 3: not JSON"),
    ("bad.jsonl", b'{"question": "Q?", "answer": "x"}\n{"question": "Q\xff?", "answer": "x"}\n', "line 2: not UTF-8 (byte 0xff)"),
    ("bad.jsonl", b'{"question": "Q?", "answer": "x", "id": 01}\n', "line 1: not JSON"),
    ("bad.jsonl", b'["Q?", "x"]\n', "line 1: not a JSON object"),
    ("bad.jsonl", b'{"question": "Q?", "answer": "x"}\n{"question": ' + b"[" * 500 + b"]" * 500 + b"}\n",
     "line 2: nested deeper than 64 levels"),
    ("bad.csv", b"answer,question\nx,Q?\ny\n", "line 3: question: empty"),  # a cell short
    ("bad.csv", b"question,answer\nQ?,x,extra\n", "line 2: 3 cells; the header has 2"),
    ("bad.csv", b"question,answer\nQ?,x\n\xfe,y\n", "line 3: not UTF-8 (byte 0xfe)"),
    ("bad.csv", b'question,answer\nQ?,"a"b\n', "line 2: not CSV"),
    ("bad.csv", b"answer\nx\n", "line 2: missing key 'question'"),
    ("bad.csv", b'question,answers\nQ?,"' + b"[" * 100 + b'"\n', "line 2: answers: nested deeper than 64 levels"),
])
def test_a_file_that_does_not_parse_is_named_with_its_line(tmp_path, name, content, says):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(DatasetFileError) as error:
        read_examples(path)
    assert str(error.value).startswith(f"{path} {says}") and "\n" not in str(error.value)


def test_unknown_files_and_folders_fail_in_one_line(tmp_path):
    for path, says in [(tmp_path / "my.txt", "unknown format '.txt'"), (tmp_path, "not a dataset saved with save_to_disk")]:
        path.touch() if path.suffix == ".txt" else None
        with pytest.raises(DatasetError, match=says) as error:
            read_examples(path)
        assert "\n" not in str(error.value)


@pytest.mark.parametrize("name", ["click_docs", "cargo_docs", "rust_collections", "node_api", "valgrind_manual",
                                  "nettle_manual", "libxslt_api", "npm_docs", "expat_reference", "vim_help",
                                  "git_release_notes", "dspy_docs", "mdx_docs",
                                  "python_markdown_docs", "flask_docs", "pytest_docs"])
def test_the_shipped_documentation_sets_read_as_a_user_file(name):
    # the README tells users to run these files as they are
    examples = read_examples(Path(__file__).parents[3] / "datasets" / name / "questions.jsonl")["dev"]
    answerable = [e for e in examples if e.answerable]
    assert (len(examples), len(answerable)) == (10, 8)
    assert all(e.gold_sources and e.answers for e in answerable)
