"""What defines an eval run, and where its folder is: the same arguments give the same run id.

The id hashes everything that changes the results (split, limit, systems, program file and
its content, LM, judge, time limit, cache), so re-running a command resumes its own folder and
a changed argument starts a new one. Threads are left out: they change speed, not results.
This module does not run or score anything.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel

from program.settings import Settings

UNCOMPILED = "uncompiled"


class EvalConfig(BaseModel):
    dataset: str = "hotpotqa"
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

    @property
    def program_name(self) -> str:
        return UNCOMPILED if self.program == UNCOMPILED else Path(self.program).stem

    @property
    def run_id(self) -> str:
        digest = hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:8]
        return f"eval-{self.split}-{self.program_name}-{digest}"

    def folder(self, settings: Settings) -> Path:
        return runs_dir(settings) / self.run_id


def runs_dir(settings: Settings) -> Path:
    return settings.data_dir / "runs"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
