"""docs/results.md as a whole: its sections in order, each a table read from the newest run folder of
its kinds and stamped with how that run was made, or, where no run exists, the command that makes one.

`page(newest, commands, shown)` returns the Markdown; `bench/results.py` finds the folders and
writes the file. Nothing here runs a command or invents a figure.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import result_tables as tables

CORPORA = {"corpus-hotpotqa": "HotpotQA smoke, web offline", "corpus-musique": "MuSiQue dev 40, no web",
           "corpus-clapnq": "ClapNQ dev 40, no web", "corpus-aws_docs": "AWS documentation dev 50, no web"}


@dataclass(frozen=True)
class Section:
    title: str
    kinds: tuple[str, ...]
    says: str  # what the table answers, in a sentence or two
    render: Callable[[dict[str, Path]], str | None]  # the folders found, by kind -> the table


def _corpora(found: dict[str, Path]) -> str | None:
    rows = [row for kind, corpus in CORPORA.items() if kind in found and (summary := tables.read_summary(found[kind]))
            for row in tables.corpus_rows(corpus, summary)]
    return tables.markdown_table(tables.CORPUS_HEADERS, rows) if rows else None


def _one(read: Callable[[Path], str | None]) -> Callable[[dict[str, Path]], str | None]:
    return lambda found: next((text for folder in found.values() if (text := read(folder))), None)


def _job_and_answers(found: dict[str, Path]) -> str | None:
    texts = [text for folder in found.values() for text in (tables.job_outcome(folder), tables.job_answers(folder))
             if text]
    return "\n\n".join(texts) or None


SECTIONS = (
    Section("The gate on four corpora", tuple(CORPORA), (
        "Each corpus's questions answered by the gated loop and by single pass (retrieve once, answer once) under "
        "the same LM and index. Right: short-answer F1 at least 0.5, or an abstention on an unanswerable question; "
        "net right: right minus wrong. The F1 difference is paired over the questions, and each p50 ratio is "
        "against single pass in the same run. A count the run's summary does not record shows as —."), _corpora),
    Section("The quick job", ("job",), (
        "What `python -m optimize` decided with the quick preset: whether the prompts and thresholds ship and why, "
        "and the program against the uncompiled one on the report questions. A finished job prints its stored "
        "outcome when run again; remove its run folder to measure it afresh."), _one(tables.job_outcome)),
    Section("The job on ClapNQ, its wrong rate bounded", ("job-clapnq",), (
        "`python -m optimize` on ClapNQ (half its questions unanswerable) with `--max-wrong-rate 0.2`: what the "
        "phases decided, the judges' refits and the release included, then the report questions, which no phase "
        "saw, system by system. Wrong / answered is the rate the bound is for."),
        _job_and_answers),
    Section("The reader with the gold shown", ("gold_reader",), (
        "Both systems on MuSiQue with every question's gold passages placed first in every search, so retrieval "
        "cannot be what fails: where answers stay wrong, the LM is the limit."), _one(tables.gold_reader_table)),
    Section("Sufficiency on a corpus never seen", ("loco",), (
        "The learned sufficiency model fitted on three labelled corpora and scored on the fourth's dev states: "
        "AUROC (0.5 is a coin), ECE (0 is calibrated) and the base rate of states whose shown evidence holds the "
        "answer; the boosted columns are monotone gradient-boosted trees, scored beside it, not shipped."),
        _one(tables.loco_table)),
    Section("The learned release on a corpus never seen", ("loco_release",), (
        "Each corpus's answers with the acceptance model fitted on the other corpora's: single pass, the rule gate "
        "and the learned gate (the loop whose rules refuse no draft, its answers then given or withheld on "
        "P(right) > 0.5), each run on the same questions, LM and index. AUROC: does a right answer score above a "
        "wrong one? Then the bars of the learned gate against single pass and the rule gate; then the same folds "
        "released at the threshold conformal risk control picked on the other corpora for a wrong rate of at most "
        "0.2 among answers, with the rate each held-out corpus got."),
        _one(tables.loco_release_table)),
    Section("Scaling", ("ingest_ray", "parallel_eval"), (
        "Ingest on a local Ray actor pool (a head started on 127.0.0.1 for the run) against in process, on the "
        "AWS guides, and eval with N "
        "questions in flight against the bundled LM served by llama.cpp with 2 slots and against a fake endpoint "
        "that answers every call after 2 s, as `bench/ingest.py` and "
        "`bench/parallel_eval.py` printed them (docs/scaling.md says how to read them)."),
        lambda found: "\n\n".join(t for f in found.values() if (t := tables.printed(f))) or None),
    Section("Retrieval", ("retrieval",), (
        "The hybrid query's time and recall per engine and collection size, as `bench/retrieval.py` printed it."),
        _one(tables.printed)),
    Section("Ingest", ("ingest",), (
        "Ingest's speed and memory against raw fastembed on the same chunks, as `bench/ingest.py` printed it."),
        _one(tables.printed)),
)

HEAD = """# Results

This page answers: what does gatedrag measure on the bundled corpora, with which LM, on what
machine, and by which command? It is written by `python bench/results.py` from the newest run
folder of each kind (under `.gatedrag/results/`); do not edit it by hand.
`python bench/results.py --run missing` makes the runs a section lacks, and `--run KIND` makes
one again. Timings depend on the machine and its load: read a ratio within one run, not across runs.
"""


def page(newest: dict[str, Path | None], commands: dict[str, list[list[str]]], shown: Callable[[list[str]], str]) -> str:
    parts = [HEAD.strip()]
    for section in SECTIONS:
        found = {kind: folder for kind in section.kinds if (folder := newest.get(kind))}
        table = section.render(found) if found else None
        parts += [f"## {section.title}", section.says]
        parts += [table, *(_stamp(kind, folder) for kind, folder in found.items())] if table else []
        missing = [k for k in section.kinds if k not in found or not table]
        parts += [_how_to_make(k, commands[k], shown) for k in missing]
    return "\n\n".join(parts) + "\n"


def _stamp(kind: str, folder: Path) -> str:
    about = json.loads((folder / "stamp.json").read_text(encoding="utf-8"))
    run = "\n".join(about["commands"])
    return (f"`{kind}`: measured {about['started']} at commit `{about['commit']}` on {about['cores']} cores "
            f"with the LM `{about['lm']}`, by:\n\n```bash\n{run}\n```")


def _how_to_make(kind: str, commands: list[list[str]], shown: Callable[[list[str]], str]) -> str:
    run = "\n".join(shown(c) for c in commands)
    return f"`{kind}`: no run yet. `python bench/results.py --run {kind}` makes it, with:\n\n```bash\n{run}\n```"
