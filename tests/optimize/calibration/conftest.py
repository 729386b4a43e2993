"""Hand-built eval records for fitting calibrators: judged answers whose confidence overstates how often they are right."""

from __future__ import annotations

import json
from pathlib import Path

from metrics import Scorecard
from optimize.eval.records import Record, RecordLog
from optimize.eval.run_config import EvalConfig
from program.contract.result import Citation, Resources, Result, Step, Trace
from tests.conftest import passage

EVIDENCE = passage("Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple.")


def record(qid: str, judge: float, right: bool, system: str = "gated") -> Record:
    """A judged answer over well-covered evidence, so its heuristic confidence is the judge's."""
    steps = [Step(action="judge", confidence=judge, rule="ambiguous"),
             Step(action="answer", rule="judge_sufficient" if judge >= 0.7 else "gaps_left", signals={"best": 0.6})]
    trace = Trace(steps=steps, resources=Resources(judge_calls=1), query_similarity={"Kiss and Tell star": 0.7},
                  coverage_similarity=0.45)
    cite = Citation(n=1, chunk_id=EVIDENCE.chunk_id, source="index", title=EVIDENCE.title, quote="...")
    result = Result(question=qid, answer="Shirley Temple [1].", short_answer="Shirley Temple", citations=[cite],
                    confidence=round(judge * 100), evidence=[EVIDENCE], trace=trace)
    return Record(qid=qid, system=system, status="ok", question=qid, gold="Shirley Temple",
                  scores=Scorecard(f1=1.0 if right else 0.0), result=result)


def overconfident(n: int = 40, prefix: str = "q") -> list[Record]:
    """Half the answers at judge confidence 0.5, a fifth of them right; half at 0.9, three fifths right."""
    low = [record(f"{prefix}{i}", 0.5, i % 5 == 0) for i in range(n // 2)]
    high = [record(f"{prefix}{i}", 0.9, i % 5 < 3) for i in range(n // 2, n)]
    return low + high


def write_run(folder: Path, records: list[Record], split: str = "dev", program: str = "uncompiled") -> Path:
    """An eval run folder as `python -m optimize eval` leaves it: config.json and results.jsonl."""
    folder.mkdir(parents=True, exist_ok=True)
    config = EvalConfig(split=split, systems=sorted({r.system for r in records}), profile="local", model="qwen",
                        program=program)
    (folder / "config.json").write_text(json.dumps(config.model_dump()), encoding="utf-8")
    log = RecordLog(folder / "results.jsonl")
    for r in records:
        log.append(r)
    return folder
