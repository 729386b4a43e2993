"""Eval runs side by side: a row per corpus and system, against single pass in the same run."""

from optimize.eval.corpora import HEADERS, corpora_blocks, corpora_table, read_summary
from optimize.eval.document import to_markdown
from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from optimize.eval.summary import summarize
from tests.optimize.conftest import GOLD, FakeProgram, examples, score


def summary(tmp_path, dataset, wrong=()):
    log = RecordLog(tmp_path / f"{dataset.replace('/', '_')}.jsonl")
    records = [*run_examples(FakeProgram(answers={GOLD[q][0]: "nobody" for q in wrong}), examples(), "gated", log,
                             score, progress=False),
               *run_examples(FakeProgram(), examples(), "single_pass", log, score, progress=False)]
    return summarize(records, run_id=f"run-{len(dataset)}", split="dev", dataset=dataset, program="uncompiled",
                     profile="local", model="m", judge="lexical", web="none")


def test_one_row_per_corpus_and_system_with_the_p50_against_single_pass(tmp_path):
    runs = [summary(tmp_path, "hotpotqa"), summary(tmp_path, "/data/musique/questions.jsonl", wrong=("q1",))]
    runs[0].systems[0].latency_p50_s, runs[0].systems[1].latency_p50_s = 3.0, 2.0
    table = corpora_table(runs)
    assert [(r[0], r[2]) for r in table.rows] == [("hotpotqa", "gated"), ("hotpotqa", "single_pass"),
                                                  ("musique", "gated"), ("musique", "single_pass")]
    ratio, f1, gain = (HEADERS.index(h) for h in ("p50 / single pass", "F1", "F1 - single pass"))
    assert (table.rows[0][ratio], table.rows[1][ratio]) == ("1.50×", "1.00×")
    assert float(table.rows[2][f1]) < float(table.rows[3][f1])  # musique's gated F1 lost q1
    assert table.rows[2][gain].startswith("-0.333 [") and table.rows[3][gain] == "–"  # paired with single pass's
    assert all(float(row[HEADERS.index("right / min")]) >= 0 for row in table.rows)
    markdown = to_markdown(corpora_blocks(runs), ".")
    assert "| musique | dev | gated |" in markdown and "web none" in markdown


def test_a_summary_is_read_back_from_its_run_folder(tmp_path):
    run = summary(tmp_path, "hotpotqa")
    (tmp_path / "summary.json").write_text(run.model_dump_json(), encoding="utf-8")
    assert read_summary(tmp_path).systems[0].system == "gated"


def test_each_row_has_the_abstention_metrics_and_an_older_summary_shows_dashes(tmp_path):
    run = summary(tmp_path, "/data/musique/questions.jsonl", wrong=("q1",))
    gated, single = corpora_table([run]).rows
    column = {h: i for i, h in enumerate(HEADERS)}
    assert (gated[column["right / wrong / abstained"]], single[column["right / wrong / abstained"]]) == ("2 / 1 / 0",
                                                                                                       "3 / 0 / 0")
    assert (gated[column["net right"]], single[column["net right"]]) == ("0.333", "1.000")
    assert gated[column["net right - single pass"]].startswith("-0.667 [")
    assert gated[column["answer in evidence"]] == "1.000"  # the gold paragraphs were shown, whatever was answered
    assert gated[column["AURC"]] == "0.333" and single[column["AURC"]] == "0.000"
    older = run.model_copy(deep=True)
    for system in older.systems:
        system.outcomes = system.risk_coverage = None
        del system.metrics["net_right"], system.metrics["answer_in_evidence"]
    row = corpora_table([older]).rows[0]
    shown = [row[column[h]] for h in ("answer in evidence", "right / wrong / abstained", "net right", "AURC")]
    assert shown == ["–"] * 4
