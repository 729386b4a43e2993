"""`python -m program migrate OLD`: rewrite a program or MLflow model saved before program/ was
regrouped into wings (program/assembly, program/base, ...) so that it names today's module paths.

What a saved program can carry, and what this does with each:
- a program JSON (`GatedRAG.save()`, a run folder's program.json) never names a module: it holds
  prompts, demos and thresholds, and an old one loads as it is (`program.assembly.loading` reads
  older formats); migrate says so and changes nothing.
- an MLflow model logged from code keeps its own copy of `served_model.py`, which imported
  `program.loading` and `program.served`; migrate rewrites those imports in the copy.
- an MLflow model logged as a pickle (the DSPy flavor, before models were logged from code) names
  `program.served.rebuild` in its `model.pkl`; migrate rewrites that name in the pickle's opcodes,
  without unpickling it (a pickle runs whatever it holds when loaded).

A command, not a step of loading: MLflow runs a model's code and unpickles it itself, before any of
gatedrag's code could map a path, so mapping on load would need a global import hook, which the
project no longer keeps; a file rewritten once needs nothing after. OLD is a file, a folder (a run
folder, a downloaded model) or an MLflow model URI whose artifacts are on this machine. Files are
rewritten in place, one line printed for each; a second run changes nothing. A model in a remote
store: download it (`mlflow artifacts download -u URI -d DIR`), migrate DIR, and log it again.
This module does not read or check a program (`program.assembly.loading` does).
"""

from __future__ import annotations

import argparse
import os
import pickletools
import re
import struct
from pathlib import Path

from program.base.errors import BadFileError

# The old paths a saved model can name, and nothing more: the code-logged model's copy of
# served_model.py imported these two, and a pickled model's `model.pkl` names `program.served.rebuild`.
# (20 other modules moved too; nothing saved ever named them.)
MOVED = {"program.loading": "program.assembly.loading", "program.served": "program.assembly.served"}
MODEL_CODE = "served_model.py"  # MLflow's copy of the code a model was logged from
MODEL_PICKLE = "model.pkl"  # the DSPy flavor's pickle
OLD_PATH = re.compile(rb"\b(%s)\b" % "|".join(map(re.escape, MOVED)).encode())  # not program.served_model


class MigrationError(BadFileError):
    """Something migrate cannot rewrite, with the path and the reason."""


def migrate(source: str | Path) -> list[str]:
    """Rewrite every file under `source` that names an old path; one line for each file changed.
    Every file is read and rewritten in memory first, so one that cannot be read changes nothing."""
    root = _local_path(str(source))
    if not root.exists():
        raise MigrationError(f"{root}: no such file or folder")
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    rewritten = {path: new for path in files if (new := _rewritten(path)) is not None}
    for path, new in rewritten.items():
        tmp = path.with_name(f".{path.name}.migrating")
        tmp.write_bytes(new)
        os.replace(tmp, path)  # subtle: atomic, so a kill leaves the old file or the new one, never half
    moves = ", ".join(f"{old} -> {new}" for old, new in MOVED.items())
    return [f"{path}: rewritten to today's module paths ({moves})" for path in rewritten] or \
        [f"{root}: nothing to rewrite: it names no old module path"]


def _rewritten(path: Path) -> bytes | None:
    """The file's bytes with today's module paths, or None when it names no old one."""
    if path.name not in (MODEL_CODE, MODEL_PICKLE):
        return None
    data = path.read_bytes()
    if path.name == MODEL_CODE:
        new = OLD_PATH.sub(lambda m: MOVED[m.group(1).decode()].encode(), data)
    else:
        new = moved_pickle(data, str(path))
    return None if new == data else new


def moved_pickle(data: bytes, where: str) -> bytes:
    """`data` with every old module name a global is looked up in replaced, read and written as
    opcodes, never unpickled; a string that is only data stays as it is.
    subtle: the names change length, so the optional FRAME opcodes (byte counts) are dropped; memo
    references are indices, not offsets, and stay right."""
    try:
        ops = list(pickletools.genops(data))
    except Exception as error:  # noqa: BLE001 - pickletools raises several kinds for a damaged file
        raise MigrationError(f"{where}: not a pickle migrate can read ({error})") from None
    modules = _module_strings(ops)
    ends = [pos for _, _, pos in ops[1:]] + [len(data)]
    out = bytearray()
    for n, ((op, arg, pos), end) in enumerate(zip(ops, ends)):
        if op.name == "FRAME":
            continue
        if n in modules and arg in MOVED:
            out += _string(MOVED[arg])
        elif op.name == "GLOBAL" and arg.split(" ")[0] in MOVED:  # protocols 0-3: "module name"
            module, name = arg.split(" ", 1)
            out += f"c{MOVED[module]}\n{name}\n".encode()
        else:
            out += data[pos:end]
    return bytes(out)


def _module_strings(ops: list) -> set[int]:
    """The indices of the string opcodes a STACK_GLOBAL (protocol 4 on) takes as its module."""
    found = set()
    for n, (op, _, _) in enumerate(ops):
        if op.name == "STACK_GLOBAL":
            pushed = (m for m in range(n - 1, -1, -1) if ops[m][0].name != "MEMOIZE")
            next(pushed, None)  # the name
            module = next(pushed, None)
            if module is not None and ops[module][0].name in ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8"):
                found.add(module)
    return found


def _string(text: str) -> bytes:
    raw = text.encode("utf-8")
    return (b"\x8c" + bytes([len(raw)]) if len(raw) < 256 else b"X" + struct.pack("<I", len(raw))) + raw


def _local_path(source: str) -> Path:
    """The folder holding an MLflow model's files when `source` is a `runs:/` or `models:/` URI."""
    if not source.startswith(("runs:/", "models:/")):
        return Path(source)
    import mlflow  # deferred: seconds to import, and only a URI needs it

    try:
        location = mlflow.get_logged_model(mlflow.models.get_model_info(source).model_id).artifact_location
    except Exception as error:  # noqa: BLE001 - MLflow raises many kinds; all mean "not there"
        raise MigrationError(f"{source}: cannot find it in MLflow: {str(error).strip().splitlines()[0]}") from None
    if not location.startswith("file:"):
        raise MigrationError(f"{source}: its files are in a remote store ({location}): download them with "
                             f"`mlflow artifacts download -u {source} -d DIR`, migrate DIR and log it again")
    from mlflow.utils.file_utils import local_file_uri_to_path

    return Path(local_file_uri_to_path(location))


def command(args: argparse.Namespace) -> int:
    for line in migrate(args.old):
        print(line)
    return 0
