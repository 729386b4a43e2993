"""The one loader of compiled programs: read a program JSON (a file, a run folder or an MLflow URI),
check it against this version, and put it into a GatedRAG.

A compiled program is the JSON `GatedRAG.save()` writes: each predictor's prompts and demos,
the thresholds, and metadata naming the gatedrag format and the library versions it was made
with. Every entry point (`python -m program`, `python -m optimize`, the HTTP and MCP services, the
MLflow model) reads programs through `read_state` or `check_state`, so anything unreadable, missing or
mistyped is a `ProgramLoadError` of one line naming the file and the line or field
(`prog.json: thresholds.max_iterations: input should be ...`), raised before anything is built.
A program file holds only the keys the program itself writes, at every level: never an
endpoint, a key or an LM setting, which DSPy would otherwise copy onto a predictor.
This module does not build programs or open stores (`program.assembly.factory` does: `program.load` is there)
and does not save them (`GatedRAG.save()` does).
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path
from typing import Any

import dspy
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from program.base.errors import BadFileError, first_problem
from program.base.json_file import read_json
from program.judges.acceptance import AcceptanceModel
from program.judges.sufficiency import SufficiencyModel
from program.loop import FORMAT, GatedRAG, upgrade_thresholds
from program.retrieval.rerankers import RerankerName
from program.thresholds import Thresholds

PROGRAM_FILE = "program.json"
PROGRAM_ARTIFACT = "program"  # the MLflow artifact key of a logged model's program JSON


class ProgramLoadError(BadFileError):
    """A compiled program that cannot be loaded, with the file and the reason."""


class _Field(BaseModel):  # one signature field's saved prompt text
    model_config = ConfigDict(strict=True, extra="forbid")
    prefix: str
    description: str


class _Signature(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    instructions: str
    fields: list[_Field]


class _Predictor(BaseModel):
    """What `Predict.dump_state` writes for our predictors, and nothing else.
    subtle: DSPy's `Predict.load_state` copies any other key onto the predictor, and a `config`
    there is a per-call LM setting: a planted `{"api_base": ...}` sent the API key and every
    prompt to that host. So no extra key, and no LM state (an endpoint, a key, a model) at all."""

    model_config = ConfigDict(strict=True, extra="forbid")
    signature: _Signature
    demos: list[dict[str, Any]] = []
    traces: list[Any] = []
    train: list[Any] = []
    lm: None = None


class _Made(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    format: int = Field(1, ge=1)
    reranker: RerankerName = "none"  # the provider the thresholds were fitted under; older programs had none
    lm: str = ""  # the serving LM its demos and thresholds were chosen with; "" when never compiled, or older


class _Metadata(BaseModel):  # what `dspy.Module.save` adds
    model_config = ConfigDict(strict=True, extra="forbid")
    dependency_versions: dict[str, str] = {}


_Program = create_model(
    "_Program", __config__=ConfigDict(strict=True, extra="forbid"),
    gatedrag=(_Made, _Made()), thresholds=(dict[str, Any], {}), metadata=(_Metadata, _Metadata()),
    calibrator=(dict[str, Any] | None, None), sufficiency=(SufficiencyModel | None, None),
    acceptance=(AcceptanceModel | None, None),
    **{name: (_Predictor | None, None) if name in GatedRAG.LATER_PREDICTORS else (_Predictor, ...)
       for name in GatedRAG.PREDICTORS})


def read_state(source: str | Path) -> dict:
    """The checked saved state of the program at `source`: a program JSON, a run folder holding one,
    or an MLflow URI (`runs:/...`, `models:/...`)."""
    source = str(source)
    if not source.startswith(("models:/", "runs:/")):
        return _read_checked(_program_file(Path(source)))
    # subtle: left to itself, MLflow downloads into a new temporary folder at every call and
    # never removes it: every `ask --program runs:/...` would leave one behind
    with tempfile.TemporaryDirectory() as folder:
        return _read_checked(_program_file(Path(_download(source, folder))))


def _read_checked(path: Path) -> dict:
    return check_state(read_json(path, ProgramLoadError), str(path))


def check_state(state: Any, where: str) -> dict:
    """`state` if this version can load it; else a ProgramLoadError naming `where` and the first bad field."""
    if not isinstance(state, dict):
        raise ProgramLoadError(f"{where}: the top level: should be a JSON object of predictors, not "
                               f"{type(state).__name__}: this is not a gatedrag program")
    try:
        made = _Program.model_validate(state).gatedrag.format
    except ValidationError as error:
        raise ProgramLoadError(f"{where}: {first_problem(error)}") from None
    try:
        # strict: a hand-edited `true` or "3" must not pass for a budget of 1 or 3
        Thresholds.model_validate(upgrade_thresholds(state.get("thresholds", {}), made), strict=True)
    except ValidationError as error:
        raise ProgramLoadError(f"{where}: thresholds.{first_problem(error)}") from None
    if made > FORMAT:
        raise ProgramLoadError(f"{where}: gatedrag.format: {made} is newer than this version reads ({FORMAT}): "
                               "upgrade gatedrag")
    _warn_on_other_dspy(state, where)
    return state


def apply_state(rag: GatedRAG, state: dict, where: str, serving_model: str | None = None) -> GatedRAG:
    """`rag` with a checked state's prompts, demos and thresholds. `serving_model`: the LM that will
    answer, when known; a program compiled with another one warns."""
    made = state.get("gatedrag", {})
    fitted = made.get("reranker", "none")
    if fitted != rag.reranker:
        warnings.warn(f"{where}: its thresholds were fitted with GATEDRAG_RERANKER={fitted}, and this run uses "
                      f"{rag.reranker}, whose scores are in other units: compile again with it", stacklevel=2)
    # subtle: demos that pay for one model can cost another: the 1.5B's gained F1 where the 0.5B's did not
    if made.get("lm") and serving_model and made["lm"] != serving_model:
        warnings.warn(f"{where}: its demos and thresholds were chosen with {made['lm']}, and this run answers with "
                      f"{serving_model}: compile again with it", stacklevel=2)
    try:
        return rag.load_state(state)
    except (KeyError, ValueError, TypeError, AttributeError) as error:  # what the check above cannot foresee
        raise ProgramLoadError(f"{where}: not a gatedrag program this version can load ({type(error).__name__}: {error})") from None


def _program_file(path: Path) -> Path:
    if path.is_dir():
        found = [path / PROGRAM_FILE] if (path / PROGRAM_FILE).is_file() else sorted(path.rglob(PROGRAM_FILE))
        if not found:
            raise ProgramLoadError(f"{path}: no {PROGRAM_FILE} in this folder")
        path = found[0]
    if not path.is_file():
        raise ProgramLoadError(f"no compiled program at {path}")
    return path


def _download(uri: str, folder: str) -> str:
    import mlflow  # deferred: seconds to import, and only a models:/ or runs:/ URI needs it

    try:
        return mlflow.artifacts.download_artifacts(artifact_uri=uri, dst_path=folder)
    except Exception as error:  # noqa: BLE001 - MLflow raises many kinds; all mean "not there"
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ProgramLoadError(f"{uri}: cannot fetch it from MLflow: {reason}") from None


def _warn_on_other_dspy(state: dict, where: str) -> None:
    saved = state.get("metadata", {}).get("dependency_versions", {})
    saved = saved.get("dspy") if isinstance(saved, dict) else None
    if saved and saved != dspy.__version__:
        warnings.warn(f"{where} was compiled with dspy {saved}; this is dspy {dspy.__version__}", stacklevel=3)
