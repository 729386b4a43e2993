"""`python -m optimize export RUN_ID --prompts`: each module's final prompt as readable text.

Users ask for this because a prompt lifted out of a program often behaves differently from the
program: reading what the optimizer produced (instructions, field descriptions, demos) is how
they find out why. One Markdown file per predictor, plus the thresholds. Writes files only.
"""

from __future__ import annotations

import json
from pathlib import Path

from program.assembly.loading import read_state
from program.loop import GatedRAG


def _signatures() -> dict:
    """Each predictor's signature, as the program itself pairs them (a saved program may lack a later one)."""
    program = GatedRAG(lambda query, k: [])
    return {name: getattr(program, name).signature for name in GatedRAG.PREDICTORS}


def export_prompts(program_path: Path, out_dir: Path) -> list[Path]:
    state = read_state(program_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    written, signatures = [], _signatures()
    for name in GatedRAG.PREDICTORS:
        path = out_dir / f"{name}.md"
        # a program saved before a later predictor lacks it: its default prompt is shown
        path.write_text(_predictor_text(name, signatures[name], state.get(name, {})), encoding="utf-8")
        written.append(path)
    thresholds = out_dir / "thresholds.json"
    thresholds.write_text(json.dumps(state.get("thresholds", {}), indent=2), encoding="utf-8")
    return [*written, thresholds]


def _predictor_text(name: str, default: type, saved: dict) -> str:
    signature = saved.get("signature", {})
    lines = [f"# {name} ({default.__name__})", "", "## Instructions", "",
             signature.get("instructions") or default.__doc__ or "", "", "## Fields", ""]
    lines += [f"- **{f.get('prefix', '').rstrip(':') or '?'}**: {f.get('description', '')}" for f in signature.get("fields", [])]
    demos = saved.get("demos", [])
    lines += ["", f"## Demos ({len(demos)})", ""]
    for i, demo in enumerate(demos, 1):
        lines += [f"### Demo {i}", ""] + [f"- **{k}**: {_short(v)}" for k, v in demo.items() if not k.startswith("augmented")] + [""]
    return "\n".join(lines) + "\n"


def _short(value, limit: int = 600) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + " …"
