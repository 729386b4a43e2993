"""Run the loop on the first N smoke questions with the configured LM profile and report time,
LM calls and whether the held-out gold paragraph was found (in the evidence) and cited.

    python bench/smoke_loop.py [N] [--holdout-only]

`--holdout-only` takes the first N smoke questions that have a held-out gold paragraph.

DSPy's response cache is off, so the times are real. Until the eval harness lands
(`python -m optimize eval`), this is the quick end-to-end check.
"""

from __future__ import annotations

import json
import statistics
import sys

import program  # noqa: F401
from program.assembly.factory import build_program
from program.base.settings import Settings
from program.lm.lm_profiles import configure_lm


def main(n: int, holdout_only: bool = False) -> None:
    settings = Settings()
    splits = json.loads((settings.hotpotqa_dir / "splits.json").read_text())
    rows = {r["question_id"]: r for r in map(json.loads, (settings.hotpotqa_dir / "dev_distractor_500.jsonl").open())}
    holdout = splits["web_holdout_title_by_qid"]
    rag = build_program(settings)
    records = []
    with configure_lm(settings, cache=False):
        qids = [q for q in splits["smoke_ids"] if q in holdout or not holdout_only][:n]
        for qid in qids:
            records.append(_record(rag, rows[qid], holdout.get(qid)))
            print(json.dumps(records[-1]), flush=True)
    _summary(records)


def _record(rag, row: dict, held: str | None) -> dict:
    result = rag(question=row["question_text"]).result
    return {"qid": row["question_id"], "seconds": result.timing.total_s, "lm_calls": result.trace.resources.lm.calls,
            "prompt_tokens": result.trace.resources.lm.prompt, "actions": [s.action for s in result.trace.steps],
            "ended": result.trace.ended, "held_out": held,
            "held_found": held in {p.title for p in result.evidence} if held else None,
            "held_cited": held in {c.title for c in result.citations} if held else None,
            "gold": row["answers_objects"][0]["spans"], "answer": result.answer}


def _summary(records: list[dict]) -> None:
    seconds = [r["seconds"] for r in records]
    held = [r for r in records if r["held_out"]]
    print(f"\n{len(records)} questions: time median {statistics.median(seconds):.1f}s max {max(seconds):.1f}s; "
          f"LM calls mean {statistics.mean(r['lm_calls'] for r in records):.1f} max {max(r['lm_calls'] for r in records)}; "
          f"prompt tokens mean {statistics.mean(r['prompt_tokens'] for r in records):.0f}")
    print(f"held-out gold: {len(held)} questions, found {sum(r['held_found'] for r in held)}, "
          f"cited {sum(r['held_cited'] for r in held)}, search_web used {sum('search_web' in r['actions'] for r in held)}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(int(args[0]) if args else 10, holdout_only="--holdout-only" in sys.argv)
