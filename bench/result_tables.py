"""The tables of docs/results.md, each read from a run folder that `bench/results.py` made.

Every function takes run folders and returns Markdown; none runs a command or writes a file.
A figure a folder does not record is shown as "—", never guessed: the eval summaries of older
versions lack the right / wrong counts, and a table then shows the rest.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

from metrics.calibration import RIGHT_F1

NONE = "—"
BASELINE = "single_pass"
CORPUS_HEADERS = ["corpus", "system", "questions", "right", "wrong", "abstained", "net right", "F1",
                  "F1 − single pass [95% CI]", "evidence recall", "p50 s", "p50 / single pass"]
GOLD_HEADERS = ["system", "questions", "right", "wrong", "abstained", "F1", "LM calls / q", "p50 s", "gold shown"]


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join([*lines, *("| " + " | ".join(row) + " |" for row in rows)])


def number(value, digits: int = 3) -> str:
    return NONE if value is None else f"{value:.{digits}f}"


def corpus_rows(corpus: str, summary: dict) -> list[list[str]]:
    """One row per system of an eval run's summary.json, gated beside single pass."""
    against = {a["system"]: a for a in summary.get("against", [])}
    return [[corpus, s["system"], str(s["n"]), *_outcomes(s), _mean(s, "f1"), _f1_gain(against.get(s["system"])),
             _mean(s, "evidence_recall"), number(s.get("latency_p50_s"), 1), _ratio(against.get(s["system"]))]
            for s in summary["systems"]]


def _outcomes(system: dict) -> list[str]:
    """right, wrong and abstained counts and mean net right, as `optimize.eval.summary` records them."""
    counts = system.get("outcomes") or {}
    return [*(str(counts[k]) if k in counts else NONE for k in ("right", "wrong", "abstained")),
            _mean(system, "net_right")]


def _mean(system: dict, metric: str) -> str:
    estimate = system.get("metrics", {}).get(metric)
    return number(estimate["mean"]) if estimate and estimate.get("n") else NONE


def _f1_gain(against: dict | None) -> str:
    f1 = (against or {}).get("deltas", {}).get("f1")
    return f"{f1['mean']:+.3f} [{f1['low']:+.3f}, {f1['high']:+.3f}]" if f1 else NONE


def _ratio(against: dict | None) -> str:
    ratio = (against or {}).get("p50_ratio")
    return f"{ratio:.2f}×" if ratio is not None else NONE


def read_summary(folder: Path) -> dict | None:
    path = folder / "run" / "summary.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def gold_reader_table(folder: Path) -> str | None:
    """Per system: how often the reader is right with every question's gold passages shown first."""
    path = folder / "gold_reader.jsonl"
    if not path.is_file():
        return None
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    systems = list(dict.fromkeys(r["system"] for r in records))
    return markdown_table(GOLD_HEADERS, [_gold_row(name, [r for r in records if r["system"] == name]) for name in systems])


def _gold_row(system: str, rows: list[dict]) -> list[str]:
    right = sum(r["f1"] >= RIGHT_F1 for r in rows)
    abstained = sum(r["abstained"] and r["f1"] < RIGHT_F1 for r in rows)
    return [system, str(len(rows)), str(right), str(len(rows) - right - abstained), str(abstained),
            number(statistics.mean(r["f1"] for r in rows)), number(statistics.mean(r["lm_calls"] for r in rows), 2),
            number(statistics.median(r["seconds"] for r in rows), 1),
            f"{sum(r['gold_found'] > 0 for r in rows)}/{len(rows)}"]


def job_outcome(folder: Path) -> str | None:
    """What the job printed as its outcome: which components shipped and why, and the report's table."""
    path = folder / "output.txt"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    marker = text.find("outcome of job ")
    if marker < 0:
        return None
    # subtle: the verdict lines are sentences, which Markdown would run together into one paragraph, and
    # the comparison is a text table aligned with runs of spaces, which only a code block keeps aligned
    lines = text[marker:].strip().splitlines()[1:]
    aligned = [i for i, line in enumerate(lines) if "  " in line.strip()]
    first, last = (aligned[0], aligned[-1]) if aligned else (len(lines), len(lines) - 1)
    bullets = lambda part: [line if not line.strip() else f"- {line}" for line in part]  # noqa: E731
    table = ["```", *lines[first:last + 1], "```"] if aligned else []
    return "\n".join([*bullets(lines[:first]), *table, *bullets(lines[last + 1:])])


def job_answers(folder: Path) -> str | None:
    """The job's report run, system by system: right, wrong and abstained, the wrong rate among the
    answers given (what `--max-wrong-rate` bounds) and net right, from the report's summary.json."""
    path = folder / "output.txt"
    report = next((line.split(": ", 1)[1] for line in path.read_text(encoding="utf-8").splitlines()
                   if line.startswith("report: ")), None) if path.is_file() else None
    summary = Path(report).parent / "summary.json" if report else None
    if summary is None or not summary.is_file():
        return None
    rows = [[s["system"], *_outcomes(s)[:3], _wrong_rate(s), _outcomes(s)[3]]
            for s in json.loads(summary.read_text(encoding="utf-8"))["systems"]]
    return markdown_table(["system", "right", "wrong", "abstained", "wrong / answered", "net right"], rows)


def _wrong_rate(system: dict) -> str:
    points = (system.get("risk_coverage") or {}).get("points") or []
    return number(points[-1][1], 2) if points else NONE


def loco_table(folder: Path) -> str | None:
    """The leave-one-corpus-out table as `bench/loco.py` wrote it."""
    path = folder / "loco" / "loco.md"
    return path.read_text(encoding="utf-8").strip() if path.is_file() else None


def loco_release_table(folder: Path) -> str | None:
    """The end-to-end leave-one-corpus-out tables as `bench/loco_release.py` wrote them: released by the
    wrong answer's cost, then at the threshold that bounds the wrong rate."""
    paths = [folder / name / "loco_release.md" for name in ("loco_release", "loco_release_risk")]
    found = [p.read_text(encoding="utf-8").strip() for p in paths if p.is_file()]
    return "\n\n".join(found) or None


def printed(folder: Path) -> str | None:
    """A bench's own printed report, as it printed it."""
    path = folder / "output.txt"
    text = path.read_text(encoding="utf-8").strip() if path.is_file() else ""
    return f"```\n{text}\n```" if text else None
