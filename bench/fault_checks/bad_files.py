"""Bad files: 200 mutated compiled programs and labelled-question files (40 with --quick), each given to a real
entry point, must end in one line naming the file and the line or field, exit 1, and change nothing.

The mutations (`fault_checks._mutations`, seeded) start from a valid saved program with a demo and
from valid rows. Programs go to `ask`, `serve`, `mcp` and `eval --program` in turn, datasets to
`eval --dataset` and the optimize job's `--dry-run`, through each command line's own `main` in this
process: an exception escaping `main` would be a traceback, and counts as a miss. A sample (one file
in 20) runs again as a child process, where the exit code and stderr are the real ones. "Nothing
changed": the data dir was never created and the file's bytes are as they were.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import dspy

from fault_checks._entry_points import child_env, run_child
from fault_checks._mutations import dataset_mutants, program_mutants
from fault_checks._tiny_corpus import COLLECTION, write_questions
from fault_checks.figure import Figure
from optimize.cli import main as optimize_main
from optimize.eval.user_file import read_examples
from program.cli import main as program_main
from program.loop import GatedRAG

SEED = 20240501
CHILD_EVERY = 20
ROWS = [{"id": f"q{n}", "question": f"Which part number {n} opens the relief valve?", "answer": f"part {n}",
         "gold_sources": [f"docs/valves-{n}.md"], "split": "dev" if n % 3 else "train"} for n in range(1, 6)]
ROWS += [{"id": "q6", "question": "What keeps the fluid inside the pump?", "answers": ["a seal", "a mechanical seal"],
          "answerable": True, "split": "dev"},
         {"id": "q7", "question": "Which pump moves fluid by turning a rotor?", "answer": "centrifugal", "split": "train"}]


def run(quick: bool) -> list[Figure]:
    rng, total = random.Random(SEED), 40 if quick else 200
    with tempfile.TemporaryDirectory(prefix="gatedrag-bad-files-") as tmp:
        work = Path(tmp).resolve()
        questions = write_questions(work / "questions.jsonl")
        state = _valid_program(work / "valid.json")
        mutants = [(what, ".json", data, "program") for what, data in program_mutants(rng, state, total // 2)]
        mutants += [(what, suffix, data, "dataset") for what, suffix, data in dataset_mutants(rng, ROWS, total // 2)]
        _check_valid_dataset(work, questions)
        results = [_try(work, n, mutant, questions) for n, mutant in enumerate(mutants)]
    return [_figure(results, total), _children_figure(results)]


def _valid_program(path: Path) -> dict:
    rag = GatedRAG(lambda query, k: [])
    rag.synthesize.demos = [dspy.Example(question="Which valve?", evidence="[1] The relief valve.", answer="The relief valve [1].")]
    rag.save(path)
    return json.loads(path.read_text(encoding="utf-8"))


def _check_valid_dataset(work: Path, questions: Path) -> None:
    """The unmutated rows pass, or every miss below would be the generator's fault."""
    path = work / "valid.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    read_examples(path)
    read_examples(questions)


def _commands(kind: str, path: Path, data_dir: Path, questions: Path) -> list[tuple[str, Callable, list[str]]]:
    """(name, the command line's main, its arguments) of every entry point that takes this kind of file."""
    common = ["--data-dir", str(data_dir)]
    if kind == "program":
        return [("ask", program_main, ["ask", "Which valve opens?", "--program", str(path), *common]),
                ("serve", program_main, ["serve", "--program", str(path), "--port", "0", *common]),
                ("mcp", program_main, ["mcp", "--program", str(path), "--collection", COLLECTION, *common]),
                ("eval", optimize_main, ["eval", "--dataset", str(questions), "--program", str(path), "--systems",
                                         "gated", "--no-progress", *common])]
    return [("eval", optimize_main, ["eval", "--dataset", str(path), "--no-progress", *common]),
            ("optimize", optimize_main, ["run", "--dataset", str(path), "--dry-run", *common])]


def _try(work: Path, n: int, mutant: tuple, questions: Path) -> dict:
    what, suffix, data, kind = mutant
    path, data_dir = work / f"{kind}-{n:03d}{suffix}", work / f"data-{n:03d}"
    path.write_bytes(data)
    commands = _commands(kind, path, data_dir, questions)
    entry, main, argv = commands[n % len(commands)]
    code, err = _in_process(main, argv)
    ok = code == 1 and _names_it(err, path) and not data_dir.exists() and path.read_bytes() == data
    child = None
    if n % CHILD_EVERY == 0:
        module = "program" if main is program_main else "optimize"
        ended = run_child(f"{kind} {n}", ["-m", module, *argv], child_env(), timeout_s=120)
        child = ended.one_line_error(str(path)) and _names_it(ended.stderr, path) and not data_dir.exists()
    return {"kind": kind, "what": what, "entry": entry, "ok": ok, "child": child, "said": err.strip()[:200],
            "code": code, "sha": hashlib.sha256(data).hexdigest()[:8]}


def _in_process(main: Callable, argv: list[str]) -> tuple[int | str, str]:
    """The exit code and stderr of `main(argv)`; an exception that escapes it is the traceback a user would see."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code
        except BaseException as escaped:  # noqa: BLE001 - exactly what this check counts
            return "traceback", f"{type(escaped).__name__}: {escaped}"
    return code, err.getvalue()


def _names_it(stderr: str, path: Path) -> bool:
    """One line: `error: <file> line N: ...`, `error: <file>: <field.path>: ...` or `error: <file>: the top level: ...`."""
    lines = stderr.strip().splitlines()
    pattern = rf"error: {re.escape(str(path))}( line \d+: |: [\w.]+: |: the top level: )\S"
    return len(lines) == 1 and re.match(pattern, lines[0]) is not None


def _figure(results: list[dict], total: int) -> Figure:
    good = [r for r in results if r["ok"]]
    by_kind = {kind: sum(r["ok"] for r in results if r["kind"] == kind) for kind in ("program", "dataset")}
    missed = "; ".join(f"{r['kind']} ({r['what']}) via {r['entry']}: exit {r['code']}, said {r['said']!r}"
                       for r in results if not r["ok"])[:500]
    measured = (f"{len(good)}/{len(results)} mutated files end in one line naming the file and the line or field, exit 1, "
                f"nothing changed (programs {by_kind['program']}/{total // 2} via ask/serve/mcp/eval, datasets "
                f"{by_kind['dataset']}/{total // 2} via eval and the optimize job){'; missed: ' + missed if missed else ''}")
    return Figure("bad_files", measured, f"{total}/{total}", len(good) == total)


def _children_figure(results: list[dict]) -> Figure:
    sampled = [r for r in results if r["child"] is not None]
    good = sum(r["child"] for r in sampled)
    missed = ", ".join(f"{r['kind']} ({r['what']})" for r in sampled if not r["child"])
    measured = (f"{good}/{len(sampled)} of them re-run as child processes: the same one line on stderr, exit 1, "
                f"no traceback{'; missed: ' + missed if missed else ''}")
    return Figure("bad_files", measured, f"{len(sampled)}/{len(sampled)}", good == len(sampled))
