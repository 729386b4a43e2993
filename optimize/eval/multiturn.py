"""`python -m optimize.eval.multiturn`: follow-up questions with sessions on and off, on the multi-turn set.

For each conversation of `optimize.eval.multiturn_set`, `off` asks turn 2 alone, as every question
was asked before sessions, and `on` asks turn 1 then turn 2 in one session, so turn 2 can be
rewritten with turn 1's topics. Each mode runs over all the conversations in turn, from an empty
prompt cache, so neither is timed on prompts the other computed. Only turn 2 is scored: evidence
recall against the bridge page and short-answer F1. The LM, index and web are those of
`python -m optimize eval`: the settings' profile, DSPy's cache off, the web offline unless `--web`
says otherwise. Each finished conversation and mode is a line of `results.jsonl` in the run
folder, so the same command resumes; `summary.json` has the means with 95% bootstrap intervals
and the paired difference on - off. This module does not build the set (`optimize.eval.multiturn_set` does).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from metrics import evidence_recall, token_f1
from optimize.cli import Parser, positive_int
from optimize.durable import write_atomic
from optimize.eval.example_schema import DatasetError
from optimize.eval.multiturn_set import load_conversations
from optimize.eval.runner import still_to_run
from optimize.eval.stats import mean_ci, paired_delta_ci
from program.assembly.factory import build_program
from program.base.command_line import (
    UsageError,
    add_data_dir,
    add_lm,
    run_command,
    settings_from_args,
)
from program.lm.lm_profiles import configure_lm, serving_lm
from program.sessions.memory_store import SessionStore

MODES = ("off", "on")
RESULTS = "results.jsonl"


def main(argv: list[str] | None = None) -> int:
    return run_command(parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    settings, conversations, folder = _prepare(args)
    rag = build_program(settings, program_path=args.program)
    rag.sessions = SessionStore()  # each conversation's own session, in this process
    done = {(r["qid"], r["mode"]) for r in _read(folder / RESULTS)}
    print(f"{len(conversations)} conversations x {len(MODES)} modes, web {settings.resolved_web_backend} -> {folder}",
          file=sys.stderr)
    with configure_lm(settings, cache=False, announce=False) as handle:
        for mode in MODES:
            finished = {qid for qid, done_mode in done if done_mode == mode}
            for example in still_to_run(conversations, finished, handle.empty_prompt_cache):
                _log(folder, ask(rag, example, mode, args.timeout))
    summary = summarize(_read(folder / RESULTS), {e.qid for e in conversations})
    write_atomic(folder / "summary.json", json.dumps(summary, indent=2))
    print(overview(summary))
    return 0


def _log(folder: Path, row: dict) -> None:
    with (folder / RESULTS).open("a", encoding="utf-8") as log:
        log.write(json.dumps(row) + "\n")
    print(f"{row['mode']:>3} f1 {row['f1']:.2f} recall {row['evidence_recall']:.1f} {row['seconds']:5.1f}s  "
          f"{row['standalone_question'] or row['question']}", file=sys.stderr)


def _prepare(args: argparse.Namespace):
    """The settings, the conversations and the run folder, all checked before anything runs."""
    settings = settings_from_args(args, profile="profile", local_model="local_model", data_dir="data_dir",
                                  web_backend="web", collection="collection")
    if args.program is not None and not args.program.is_file():
        raise UsageError(f"no compiled program at {args.program}")
    serving_lm(settings)
    try:
        conversations = load_conversations(settings)[:args.limit]
    except DatasetError as error:
        raise UsageError(str(error)) from None
    folder = args.out or settings.data_dir / "runs" / "multiturn"
    _claim(folder, {"program": str(args.program or "uncompiled"), "web": settings.resolved_web_backend,
                    "collection": settings.collection, "profile": settings.resolved_profile,
                    "model": settings.serving_model, "timeout_s": args.timeout})
    return settings, conversations, folder


def ask(rag, example, mode: str, time_limit_s: float) -> dict:
    """Turn 2 of one conversation, with its session (turn 1 first) or without, and its scores."""
    session = f"multiturn-{example.qid}" if mode == "on" else None
    first = rag(question=example.turn1, session_id=session, time_limit_s=time_limit_s).result if session else None
    started = time.perf_counter()
    pred = rag(question=example.question, session_id=session, time_limit_s=time_limit_s)
    result, seconds = pred.result, time.perf_counter() - started
    rewrites = [s for s in result.trace.steps if s.action == "contextualize"]
    return {"qid": example.qid, "mode": mode, "turn1": example.turn1, "question": example.question,
            "standalone_question": result.standalone_question, "rule": rewrites[0].rule if rewrites else "",
            "fallback": "rewrite_unusable" in result.trace.incidents, "short_answer": result.short_answer,
            "answers": example.answers, "held_out": bool(example.holdout_title),
            "f1": token_f1(example, pred), "evidence_recall": evidence_recall(example, pred),
            "seconds": round(seconds, 2), "lm_calls": result.trace.resources.lm.calls,
            "prompt_tokens": result.trace.resources.lm.prompt,
            "rewrite_prompt_tokens": sum(s.lm.prompt for s in rewrites), "ended": result.trace.ended,
            "turn1_short_answer": first.short_answer if first else "", "turn1_ended": first.trace.ended if first else "",
            "turn1_seconds": round(first.timing.total_s, 2) if first else 0.0}


def summarize(rows: list[dict], qids: set[str]) -> dict:
    """Per mode, over the conversations both modes finished: means with intervals; then on - off, paired."""
    by_mode = {m: {r["qid"]: r for r in rows if r["mode"] == m and r["qid"] in qids} for m in MODES}
    paired = sorted(set(by_mode["off"]) & set(by_mode["on"]))
    delta = {m: paired_delta_ci([by_mode["off"][q][m] for q in paired], [by_mode["on"][q][m] for q in paired])
             for m in ("f1", "evidence_recall", "seconds")}
    return {"conversations": len(paired), "modes": {m: _mode([by_mode[m][q] for q in paired]) for m in MODES},
            "on_minus_off": {m: e.model_dump() for m, e in delta.items()}}


def _mode(rows: list[dict]) -> dict:
    """One mode's scores, overall and by where the bridge page is, and what its rewrites cost."""
    def ci(metric: str, keep=lambda r: True) -> dict:
        return mean_ci([r[metric] for r in rows if keep(r)]).model_dump()

    parts = {"all": lambda r: True, "page_in_collection": lambda r: not r["held_out"],
             "page_on_web_only": lambda r: r["held_out"]}
    return {**{m: {part: ci(m, keep) for part, keep in parts.items()} for m in ("f1", "evidence_recall")},
            "rewritten": sum(bool(r["standalone_question"]) for r in rows), "fallbacks": sum(r["fallback"] for r in rows),
            "seconds": ci("seconds"), "rewrite_prompt_tokens": ci("rewrite_prompt_tokens")}


def overview(summary: dict) -> str:
    def ci(e: dict) -> str:
        return f"{e['mean']:.3f} [{e['low']:.3f}, {e['high']:.3f}] n={e['n']}"

    lines = [f"{summary['conversations']} conversations, turn 2 scored"]
    for mode, s in summary["modes"].items():
        lines += [f"sessions {mode}: F1 {ci(s['f1']['all'])}, evidence recall {ci(s['evidence_recall']['all'])}, "
                  f"rewritten {s['rewritten']} (fallback {s['fallbacks']}), turn 2 {s['seconds']['mean']:.1f} s, "
                  f"rewrite prompt {s['rewrite_prompt_tokens']['mean']:.0f} tokens"]
        lines += [f"  {part}: F1 {s['f1'][part]['mean']:.3f}, recall {s['evidence_recall'][part]['mean']:.3f} "
                  f"(n={s['f1'][part]['n']})" for part in s["f1"] if part != "all"]
    lines += [f"on - off {m}: {ci(e)}" for m, e in summary["on_minus_off"].items()]
    return "\n".join(lines)


def _claim(folder: Path, config: dict) -> None:
    """The run folder's settings; a folder holding a run with others is refused, not mixed."""
    path = folder / "config.json"
    if path.is_file() and json.loads(path.read_text(encoding="utf-8")) != config:
        raise UsageError(f"{folder} holds a run with other settings ({path}); pass another --out")
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")


def _read(path: Path) -> list[dict]:
    """The finished lines; a line torn by a kill is dropped, and its conversation runs again."""
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


def parser() -> Parser:
    p = Parser(prog="python -m optimize.eval.multiturn", description="follow-up questions with sessions on and off: "
               "turn 2 of the multi-turn set, scored on evidence recall and short-answer F1; resumable")
    p.add_argument("--limit", type=positive_int, help="the first N conversations (default: all 30)")
    p.add_argument("--program", type=Path, help="a compiled program JSON (default: uncompiled)")
    p.add_argument("--timeout", type=float, default=240.0, help="seconds per question (default 240)")
    p.add_argument("--web", choices=["tavily", "offline", "none"], help="default: offline unless TAVILY_API_KEY is set")
    p.add_argument("--collection", default="hotpotqa")
    add_lm(p)
    p.add_argument("--out", type=Path, help="the run folder (default: <data dir>/runs/multiturn)")
    add_data_dir(p)
    p.set_defaults(run=run)
    return p


if __name__ == "__main__":
    sys.exit(main())
