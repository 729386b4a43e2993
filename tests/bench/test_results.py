"""bench/results.py and the page it writes (bench/result_page.py, bench/result_tables.py), on small
hand-made run folders: figures come only from a folder, each table is stamped with how its run was
made, a section with no run names the command that makes it, and a killed run is resumed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import result_page, result_tables, results
from optimize.eval.against_baseline import Against
from optimize.eval.stats import Estimate
from optimize.eval.summary import RunSummary, Share, SystemSummary
from program.base.settings import Settings

COMMANDS = {kind: k.argv(Path("../shared/data"), Path("<folder>")) for kind, k in results.KINDS.items()}


def system(name: str, f1: float, p50: float, abstained: tuple[int, int]) -> SystemSummary:
    estimate = Estimate(mean=f1, low=f1 - 0.1, high=f1 + 0.1, n=40)
    return SystemSummary(system=name, n=40, status={"ok": 40}, metrics={"f1": estimate, "evidence_recall": estimate},
                         latency_p50_s=p50, latency_p95_s=p50 * 2, actions={}, iterations={}, ended={}, rules={},
                         web_precision=Share(hits=0, n=0), web_recall=Share(hits=0, n=0),
                         abstained_answerable=Share(hits=abstained[0], n=30),
                         abstained_unanswerable=Share(hits=abstained[1], n=10), by_holdout={}, by_type={}, worst=[])


def run_folder(root: Path, kind: str, when: str, exit_code: int | None = 0, files: dict[str, str] | None = None) -> Path:
    folder = root / kind / when
    folder.mkdir(parents=True)
    about = {"kind": kind, "started": f"{when}", "commit": "abc1234", "cores": 2, "lm": "local: qwen2.5-coder-0.5b",
             "commands": [f"python -m made {kind}"]} | ({"exit": exit_code} if exit_code is not None else {})
    (folder / "stamp.json").write_text(json.dumps(about))
    for name, text in (files or {}).items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def musique_summary(**extra) -> str:
    summary = RunSummary(run_id="eval-x", split="dev", dataset="musique", program="uncompiled", profile="local",
                         model="qwen2.5-coder-0.5b", judge="lexical",
                         systems=[system("gated", 0.062, 9.2, (21, 0)), system("single_pass", 0.069, 6.9, (3, 0))],
                         against=[Against(system="gated", questions=40, p50_ratio=1.33, right_a_minute=0.6,
                                          baseline_right_a_minute=0.8,
                                          deltas={"f1": Estimate(mean=-0.007, low=-0.061, high=0.046, n=40)})])
    data = json.loads(summary.model_dump_json())
    for row in data["systems"]:
        row.update(extra.get(row["system"], {}))
    return json.dumps(data)


def test_with_no_run_folder_every_section_names_its_command_and_shows_no_figure():
    text = result_page.page({}, COMMANDS, results.shown)
    for kind in results.KINDS:
        assert f"`python bench/results.py --run {kind}` makes it" in text
    assert "| corpus |" not in text and "measured" not in text
    assert "python -m optimize eval --dataset ../shared/data/musique/questions.jsonl --collection musique" in text


def test_the_four_corpus_table_reads_the_summary_and_shows_what_it_lacks_as_a_dash(tmp_path):
    folder = run_folder(tmp_path, "corpus-musique", "20261203T230000Z", files={"run/summary.json": musique_summary()})
    text = result_page.page({"corpus-musique": folder}, COMMANDS, results.shown)
    gated = next(line for line in text.splitlines() if line.startswith("| MuSiQue dev 40, no web | gated |"))
    assert gated == ("| MuSiQue dev 40, no web | gated | 40 | — | — | — | — | 0.062 | −0.007 [−0.061, +0.046] "
                     "| 0.062 | 9.2 | 1.33× |".replace("−", "-"))
    assert "`corpus-musique`: measured 20261203T230000Z at commit `abc1234` on 2 cores with the LM " \
           "`local: qwen2.5-coder-0.5b`, by:\n\n```bash\npython -m made corpus-musique\n```" in text
    assert "`corpus-clapnq`: no run yet" in text  # the corpora without a run still say how to make one


def test_right_wrong_and_net_right_are_read_where_the_summary_records_them(tmp_path):
    net = {"mean": -0.225, "low": -0.4, "high": -0.05, "n": 40}
    counts = {"gated": {"outcomes": {"right": 5, "wrong": 14, "abstained": 21}}}
    folder = run_folder(tmp_path, "corpus-musique", "t", files={"run/summary.json": musique_summary(**counts)})
    summary = result_tables.read_summary(folder)
    summary["systems"][0]["metrics"]["net_right"] = net
    rows = result_tables.corpus_rows("MuSiQue", summary)
    assert rows[0][3:7] == ["5", "14", "21", "-0.225"] and rows[1][3:7] == ["—", "—", "—", "—"]


def test_the_jobs_report_table_gives_the_wrong_rate_among_answers_from_the_report_it_names(tmp_path):
    counts = {"gated": {"outcomes": {"right": 20, "wrong": 4, "abstained": 16},
                        "risk_coverage": {"points": [[0.5, 0.0], [0.6, 0.167]], "coverage": 0.6, "aurc": 0.1}}}
    (tmp_path / "job" / "eval").mkdir(parents=True)
    (tmp_path / "job" / "eval" / "summary.json").write_text(musique_summary(**counts))
    folder = run_folder(tmp_path, "job-clapnq", "t", files={"output.txt": (
        f"outcome of job j:\nrelease: shipping the learned release\n\nreport: {tmp_path}/job/eval/report.html\n")})
    table = result_tables.job_answers(folder)
    assert "| gated | 20 | 4 | 16 | 0.17 |" in table and "| single_pass | — | — | — | — |" in table
    text = result_page.page({"job-clapnq": folder}, COMMANDS, results.shown)
    assert "- release: shipping the learned release" in text and "| gated | 20 | 4 | 16 | 0.17 |" in text


def test_the_jobs_comparison_table_stays_aligned_in_a_code_block_between_its_sentences(tmp_path):
    printed = ("outcome of job j:\nprompts: keeping the uncompiled prompts\n\nreport split: dev, 75 questions\n"
               "metric   A   B\nf1       0.2 0.5\n\nbaseline against single_pass: F1 +0.068\n")
    folder = run_folder(tmp_path, "job", "t", files={"output.txt": printed})
    assert result_tables.job_outcome(folder) == (
        "- prompts: keeping the uncompiled prompts\n\n- report split: dev, 75 questions\n```\nmetric   A   B\n"
        "f1       0.2 0.5\n```\n\n- baseline against single_pass: F1 +0.068")
