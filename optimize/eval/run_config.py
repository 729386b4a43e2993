"""What defines an eval run, and where its folder is: the same arguments give the same run id.

The id hashes everything that changes the results (dataset, and a dataset file's content,
split, limit, systems, program file and its content, LM, judge, time limit, cache, web backend,
hidden gold, reranker), so re-running a command
resumes its own folder and a changed argument starts a new one; the web backend and hidden gold
(and a reranker) also show in the id's name, so a hidden-gold run is never mistaken for a normal one; so does a
dataset other than HotpotQA (its name or file stem). Threads
are left out: they change speed, not results.
This module does not run or score anything.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel

from program.base.settings import Settings

UNCOMPILED = "uncompiled"


class EvalConfig(BaseModel):
    dataset: str = "hotpotqa"  # a named dataset, or a dataset file's absolute path
    dataset_sha256: str = ""  # the dataset file's content; "" for a named dataset
    split: str
    program: str = UNCOMPILED  # a compiled program JSON, or "uncompiled"
    program_sha256: str = ""
    systems: list[str]
    limit: int | None = None
    judge: str = "lexical"
    profile: str
    model: str
    time_limit_s: float | None = None
    cache: bool = False
    web: str | None = None  # the web backend (tavily, offline, none); None: not recorded
    hide_gold: bool = False  # each question's gold paragraphs filtered out of retrieval
    collection: str = "hotpotqa"  # the collection the systems search
    web_note: str = ""  # why the web backend is what it is, when a key chose it (see Settings.web_backend_note)
    reranker: str = "none"  # GATEDRAG_RERANKER: it changes every score the gate reads

    @property
    def program_name(self) -> str:
        return UNCOMPILED if self.program == UNCOMPILED else Path(self.program).stem

    @property
    def run_id(self) -> str:
        # subtle: a named dataset, or no reranker, leaves the hash unchanged, so older runs keep the ids they had
        unset = {"dataset_sha256"} if not self.dataset_sha256 else set()
        digest = hashlib.sha256(self.model_dump_json(exclude=unset | ({"reranker"} if self.reranker == "none" else set()))
                                .encode()).hexdigest()[:8]
        conditions = ((f"-web_{self.web}" if self.web else "") + ("-hide_gold" if self.hide_gold else "")
                      + (f"-rerank_{self.reranker}" if self.reranker != "none" else ""))
        dataset = "" if self.dataset == "hotpotqa" else f"{Path(self.dataset).stem}-"
        return f"eval-{dataset}{self.split}-{self.program_name}{conditions}-{digest}"

    def folder(self, settings: Settings) -> Path:
        return runs_dir(settings) / self.run_id


def runs_dir(settings: Settings) -> Path:
    return settings.data_dir / "runs"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
