"""`program.load` (defined here): a ready GatedRAG from a compiled program JSON, a run folder or an MLflow URI.

A compiled program is the JSON `GatedRAG.save()` writes: each predictor's prompts and demos,
the thresholds, and metadata naming the gatedrag format and the library versions it was made
with. Anything missing or incompatible is a `ProgramLoadError` that says what, never a bare
traceback. The search and web backends come from settings (or are passed in, as tests do).
Calling the program returns a `dspy.Prediction` whose `.result` is the loop's own `Result`;
`program.answer_response.AnswerResponse.from_prediction(prediction)` turns it into the response
contract that the CLI, HTTP, MCP and MLflow return.
This module does not save programs; `GatedRAG.save()` does.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from program.loop import FORMAT, GatedRAG
from program.settings import Settings

PROGRAM_FILE = "program.json"


class ProgramLoadError(ValueError):
    """A compiled program that cannot be loaded, with the reason."""


def load(source: str | Path, settings: Settings | None = None, search=None, web=None) -> GatedRAG:
    state = read_state(source)
    if search is None:
        from program.factory import build_program

        rag = build_program(settings or Settings())
    else:
        rag = GatedRAG(search, web=web)
    try:
        rag.load_state(state)
    except (KeyError, ValueError, TypeError) as error:
        raise ProgramLoadError(f"{source}: not a gatedrag program this version can load ({type(error).__name__}: {error})") from None
    return rag


def read_state(source: str | Path) -> dict:
    """The saved state of the program at `source`, checked against this version."""
    path = _local_path(str(source))
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ProgramLoadError(f"{path} is not JSON: {error}") from None
    _check(state, path)
    return state


def _local_path(source: str) -> Path:
    if source.startswith(("models:/", "runs:/")):
        source = _download(source)
    path = Path(source)
    if path.is_dir():
        found = [path / PROGRAM_FILE] if (path / PROGRAM_FILE).is_file() else sorted(path.rglob(PROGRAM_FILE))
        if not found:
            raise ProgramLoadError(f"no {PROGRAM_FILE} in {path}")
        path = found[0]
    if not path.is_file():
        raise ProgramLoadError(f"no compiled program at {path}")
    return path


def _download(uri: str) -> str:
    import mlflow

    try:
        return mlflow.artifacts.download_artifacts(artifact_uri=uri)
    except Exception as error:  # noqa: BLE001 - MLflow raises many kinds; all mean "not there"
        raise ProgramLoadError(f"cannot fetch {uri} from MLflow: {error}") from None


def _check(state: dict, path: Path) -> None:
    if not isinstance(state, dict):
        raise ProgramLoadError(f"{path} does not hold a program (a JSON object of predictors)")
    missing = [name for name in GatedRAG.PREDICTORS if name not in state and name not in GatedRAG.LATER_PREDICTORS]
    if missing:
        raise ProgramLoadError(f"{path} lacks the module(s) {', '.join(missing)}: it is not a gatedrag program")
    made = state.get("gatedrag", {}).get("format", FORMAT)
    if made > FORMAT:
        raise ProgramLoadError(f"{path} has gatedrag format {made}; this version reads up to {FORMAT}: upgrade gatedrag")
    saved = state.get("metadata", {}).get("dependency_versions", {}).get("dspy")
    import dspy

    if saved and saved != dspy.__version__:
        warnings.warn(f"{path} was compiled with dspy {saved}; this is dspy {dspy.__version__}", stacklevel=3)
