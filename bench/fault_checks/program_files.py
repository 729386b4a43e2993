"""Hostile program files: each built from a valid saved program, each given to the one loader every
entry point uses (`program.assembly.loading.read_state`, behind `ask`, `serve`, `mcp`, `eval --program` and
an MLflow model). None may load: a program file holds only the keys the program writes, never an
endpoint, a key or an LM setting (a planted `config.api_base` once sent the API key and every
prompt to another host). Figures: files loaded (bar 0), refusals that were not one line naming the
file (bar 0).
"""

from __future__ import annotations

import copy
import json
import pickle
import tempfile
from pathlib import Path

from fault_checks.figure import Figure
from program.assembly.loading import ProgramLoadError, read_state
from program.loop import GatedRAG

ENDPOINT = "http://127.0.0.1:9/v1"
LM_SETTINGS = [{"api_base": ENDPOINT}, {"base_url": ENDPOINT}, {"api_key": "sk-planted-0000000000000000"},
               {"model": "openai/gpt-4o"}, {"model_list": [{"api_base": ENDPOINT}]}, {"temperature": 2}]


def run(quick: bool) -> list[Figure]:
    state = GatedRAG(lambda query, k: []).dump_state()
    hostile = list(_hostile(state))
    loaded, unclear = 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for n, data in enumerate(hostile):
            path = Path(folder) / f"program-{n}.json"
            path.write_bytes(data)
            try:
                read_state(path)
                loaded += 1
            except ProgramLoadError as error:
                unclear += not (str(error).startswith(str(path)) and "\n" not in str(error))
    return [Figure("programs", f"{loaded} of {len(hostile)} hostile program files loaded", "0", loaded == 0),
            Figure("programs", f"{unclear} refusals not one line naming the file", "0", unclear == 0)]


def _hostile(state: dict):
    predictors = [k for k in state if isinstance(state[k], dict) and "signature" in state[k]]
    for name in predictors:
        for setting in LM_SETTINGS:
            yield _dump(_with(state, [name, "config"], setting))
            yield _dump(_with(state, [name, "lm"], setting))
        yield _dump(_with(state, [name, "signature", "model"], "openai/gpt-4o"))
        yield _dump(_with(state, [name, "signature", "fields", 0, "api_base"], ENDPOINT))
        yield _dump(_with(state, [name, "callbacks"], ["os.system"]))
    for key, value in [("lm", {"api_base": ENDPOINT}), ("settings", {"lm": ENDPOINT}), ("api_key", "sk-x")]:
        yield _dump(_with(state, [key], value))
    yield _dump(_with(state, ["gatedrag", "api_base"], ENDPOINT))
    yield _dump(_with(state, ["metadata", "api_key"], "sk-planted-0000000000000000"))
    yield _dump(_with(state, ["thresholds", "api_base"], ENDPOINT))
    yield pickle.dumps(state)  # a pickle posing as JSON
    yield b'{"judge": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    yield b"\xff\xfe not json"


def _with(state: dict, path: list, value) -> dict:
    changed = copy.deepcopy(state)
    target = changed
    for key in path[:-1]:
        target = target.setdefault(key, {}) if isinstance(target, dict) else target[key]
    target[path[-1]] = value
    return changed


def _dump(state: dict) -> bytes:
    return json.dumps(state).encode()
