"""Which labelled questions a run uses: a dataset (a name or a file) and a split, as `dspy.Example`s.

Datasets: `hotpotqa` (splits smoke, dev, test, train), `aws_docs` (dev, test) and any user file
or saved dataset folder (`optimize.eval.user_file`; its splits are the values of its `split`
column, free text). A file's identity is its absolute path and its sha256, so a run of one
file never resumes a run of another, nor of the same path after it changed.
`job_splits` picks the optimizer's train and validation sets (see its docstring for the seeded
fallback), and `job_sets` carves the validation set into the job's select and report sets.
This module reads data; it does not run or score anything.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from pathlib import Path

import dspy
from pydantic import BaseModel

from optimize.eval import aws_docs, hotpotqa
from optimize.eval.example_schema import DatasetError
from optimize.eval.user_file import NO_SPLIT, read_examples
from program.base.settings import Settings
from program.retrieval.aws_corpus import QUESTIONS, aws_file, held_out_gold

NAMED = {"hotpotqa": hotpotqa.SPLITS_AVAILABLE, "aws_docs": aws_docs.SPLITS_AVAILABLE}
ALL = "all"  # a user file's split when --split is not given: every row
TEST = "test"
VALIDATION_NAMES = ("validation", "dev", "val")
TRAIN_SHARE = 0.2  # DSPy's advice for prompt optimizers: a small train set, a larger validation set


class DatasetRef(BaseModel):
    name: str  # hotpotqa, aws_docs, or a file's absolute path
    sha256: str = ""  # a file's content hash; "" for a named dataset

    @property
    def is_file(self) -> bool:
        return self.name not in NAMED

    @property
    def label(self) -> str:
        """A short name for run ids: the dataset's name or the file's stem."""
        return Path(self.name).stem if self.is_file else self.name


def resolve_dataset(text: str) -> DatasetRef:
    if text in NAMED:
        return DatasetRef(name=text)
    path = Path(text).expanduser()
    if not path.exists():
        raise DatasetError(f"no dataset {text!r}: give {', '.join(NAMED)}, or a .jsonl/.csv/.parquet file or a "
                           "folder saved with save_to_disk")
    return DatasetRef(name=str(path.resolve()), sha256=content_sha256(path))


def load_examples(settings: Settings, ref: DatasetRef, split: str, limit: int | None = None) -> list[dspy.Example]:
    """The split's questions in their fixed order; `limit` keeps the first N. A file's split `all` is every row."""
    examples = _load(settings, ref, split)
    return examples[:limit] if limit is not None else examples


def _load(settings: Settings, ref: DatasetRef, split: str) -> list[dspy.Example]:
    if ref.name == "hotpotqa":
        return hotpotqa.load_hotpotqa(settings, split)
    if ref.name == "aws_docs":
        return aws_docs.load_aws_docs(aws_file(settings, QUESTIONS), split, held_out_gold(settings))
    by_split = read_examples(Path(ref.name))
    if split == ALL:
        return [e for examples in by_split.values() for e in examples]
    if split not in by_split or split == NO_SPLIT:
        named = sorted(s for s in by_split if s != NO_SPLIT)
        raise DatasetError(f"unknown split {split!r} of {ref.name}; its splits: {', '.join(named) or 'none (no split column)'}")
    return by_split[split]


@dataclass
class JobSets:
    """The optimize job's three disjoint question sets, and where each came from."""
    train: list[dspy.Example]
    select: list[dspy.Example]
    report: list[dspy.Example]
    select_name: str
    report_name: str

    def limited(self, train: int | None, select: int | None, report: int | None) -> JobSets:
        return JobSets(self.train[:train], self.select[:select], self.report[:report], self.select_name, self.report_name)


def job_examples(settings: Settings, ref: DatasetRef, val_split: str | None, report_split: str | None,
                 seed: int) -> JobSets:
    """The optimize job's train, select and report sets (see `job_splits` and `job_sets`)."""
    if ref.name == "hotpotqa":  # its splits are separate files: read only the ones the job uses
        val_split = val_split or "dev"
        wanted = {"train", val_split} | ({report_split} if report_split else set())
        by_split = {split: _load(settings, ref, split) for split in wanted}
    elif ref.name == "aws_docs":
        by_split = {split: _load(settings, ref, split) for split in aws_docs.SPLITS_AVAILABLE}
    else:
        by_split = read_examples(Path(ref.name))
    if report_split == TEST or report_split is not None and report_split not in by_split:
        raise DatasetError(f"unknown report split {report_split!r}; the dataset's splits: "
                           f"{', '.join(s for s in by_split if s and s != TEST)}")
    train, val, val_name = job_splits(by_split, val_split, seed)
    return job_sets(train, val, val_name, by_split[report_split] if report_split else None, report_split or "", seed)


def job_sets(train: list[dspy.Example], val: list[dspy.Example], val_name: str, report: list[dspy.Example] | None,
             report_name: str, seed: int) -> JobSets:
    """Select and report never share a question, and neither shares one with train.

    With a named report split (HotpotQA's smoke set), select is the validation split without the
    report's questions. Otherwise the validation split is shuffled with `seed` (a file is often
    sorted by kind or difficulty) and cut in two halves: select first, report second."""
    trained = {e.qid for e in train}
    val = [e for e in val if e.qid not in trained]
    if report is not None:
        held = {e.qid for e in report}
        return JobSets(train, [e for e in val if e.qid not in held], report, f"{val_name} without {report_name}",
                       report_name)
    if len(val) < 2:
        raise DatasetError("too few validation questions to select on and report on (need 2)")
    shuffled = list(val)
    random.Random(seed).shuffle(shuffled)
    cut = len(shuffled) // 2
    return JobSets(train, shuffled[:cut], shuffled[cut:], f"{val_name}, select half", f"{val_name}, report half")


def job_splits(by_split: dict[str, list[dspy.Example]], val_split: str | None,
               seed: int) -> tuple[list[dspy.Example], list[dspy.Example], str]:
    """Train on the `train` split and validate on `val_split`, or else the first of validation/dev/val.

    Without both, the rows outside `test` (and outside a named `val_split`) are shuffled with
    `seed`: with a named validation split they all train; otherwise `TRAIN_SHARE` (20%) of them
    train and the rest (80%) validate. The test split never trains nor validates."""
    if val_split == TEST:
        raise DatasetError("the test split is for final reports only; validate on another split")
    if val_split is not None and val_split not in by_split:
        raise DatasetError(f"unknown validation split {val_split!r}; the dataset's splits: "
                           f"{', '.join(s for s in by_split if s) or 'none (no split column)'}")
    val_name = val_split or next((s for s in VALIDATION_NAMES if s in by_split), None)
    if val_name and by_split.get("train"):
        return by_split["train"], by_split[val_name], val_name
    pooled = [s for s in by_split if s not in (TEST, val_split)]
    pool = [e for s in pooled for e in by_split[s]]
    random.Random(seed).shuffle(pool)
    if val_split is not None and pool:
        return pool, by_split[val_split], val_split
    if len(pool) < 2:
        raise DatasetError("too few questions outside the test split to train and validate on (need 2)")
    cut = max(1, round(len(pool) * TRAIN_SHARE))
    return pool[:cut], pool[cut:], f"{'+'.join(s or 'all rows' for s in pooled)} less the {TRAIN_SHARE:.0%} that trains"


def content_sha256(path: Path) -> str:
    """A file's sha256, or a folder's over its files' relative paths and contents."""
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        digest.update(str(file.relative_to(path)).encode() if path.is_dir() else b"")
        digest.update(file.read_bytes())
    return digest.hexdigest()
