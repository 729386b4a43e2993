"""The multi-turn set: HotpotQA dev bridge questions as two-turn conversations, scored on turn 2.

Turn 1 asks about a question's bridge entity by name ("Who is Shirley Temple?"), so its evidence
is the bridge entity's page; turn 2 asks the question's last hop about that entity by pronoun
("What government position did she hold?"). The turns are written by hand, one pair per dev
question id, in `datasets/multiturn/hotpotqa_follow_ups.jsonl`; everything labelled is read from the
shared HotpotQA data when the set loads: turn 2's gold answers, and its gold title, the bridge page.
A bridge question here has two gold pages, one named in the question and one not (the bridge), an
answer that is not yes/no, and that answer on the bridge page. Every row is checked: a dev id
(never a test id), a bridge question, and a follow-up that does not name the bridge entity.
`bridge_questions` lists the candidates a person can write more pairs for.
This module reads files; it runs and scores nothing (`optimize.eval.multiturn` does).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import dspy

from optimize.eval.example_schema import DatasetError, make_example
from program.base.settings import PROJECT_ROOT, Settings
from program.retrieval.corpora import DEV, SPLITS, data_file, read_json

FOLLOW_UPS = PROJECT_ROOT / "datasets" / "multiturn" / "hotpotqa_follow_ups.jsonl"


@dataclass(frozen=True)
class Bridge:
    qid: str
    question: str
    answers: list[str]
    bridge_title: str  # the gold page the question does not name: what turn 2 asks about
    held_out: bool  # that page is only in the offline web corpus, not in the collection


def load_conversations(settings: Settings, path: Path = FOLLOW_UPS) -> list[dspy.Example]:
    """Turn 2 of each conversation as an example (gold: the answers and the bridge page), with its `turn1`."""
    bridges, test_ids = bridge_questions(settings), set(read_json(settings, SPLITS)["test_ids"])
    examples = []
    for n, row in enumerate(_rows(path), 1):
        if not all(isinstance(row.get(k), str) and row[k].strip() for k in ("id", "turn1", "follow_up")):
            raise DatasetError(f"{path.name} row {n}: needs the strings id, turn1 and follow_up")
        qid = row["id"]
        if qid in test_ids:
            raise DatasetError(f"{path.name} row {n}: {qid} is a test question; the set is built from dev ids only")
        if qid not in bridges:
            raise DatasetError(f"{path.name} row {n}: {qid!r} is not a dev bridge question (see bridge_questions)")
        bridge = bridges[qid]
        if _norm(_name(bridge.bridge_title)) in _norm(row["follow_up"]):
            raise DatasetError(f"{path.name} row {n}: the follow-up names {bridge.bridge_title!r}; it must use a pronoun")
        example = make_example(qid, row["follow_up"], bridge.answers, [bridge.bridge_title],
                               holdout_title=bridge.bridge_title if bridge.held_out else "")
        examples.append(example.copy(turn1=row["turn1"], original=bridge.question))
    return examples


def bridge_questions(settings: Settings) -> dict[str, Bridge]:
    """The dev questions that make a conversation: id -> its bridge page and answers."""
    splits = read_json(settings, SPLITS)
    with data_file(settings, DEV).open(encoding="utf-8") as lines:
        rows = {row["question_id"]: row for row in map(json.loads, lines)}
    found = (_bridge(rows[qid], splits["web_holdout_title_by_qid"].get(qid)) for qid in splits["dev_ids"])
    return {b.qid: b for b in found if b is not None}


def _bridge(row: dict, held_out_title: str | None) -> Bridge | None:
    question, answers = row["question_text"].strip(), row["answers_objects"][0]["spans"]
    gold = [c for c in row["contexts"] if c["is_supporting"]]
    unnamed = [c for c in gold if _norm(_name(c["title"])) not in _norm(question)]
    if len(gold) != 2 or len(unnamed) != 1 or _norm(answers[0]) in ("yes", "no"):
        return None
    page = unnamed[0]
    # the answer must be on the bridge page, and be more than the page's own name
    if not any(_norm(a) in _norm(page["paragraph_text"]) and _norm(a) not in _norm(_name(page["title"])) for a in answers):
        return None
    return Bridge(row["question_id"], question, answers, page["title"], page["title"] == held_out_title)


def _rows(path: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as error:
        raise DatasetError(f"cannot read the conversations in {path}: {error}") from None


def _name(title: str) -> str:
    """A page title as a question would name it: "Winner (band)" -> "Winner"."""
    return re.sub(r"\s*\([^)]*\)$", "", title.replace("&amp;", "&"))


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
