"""Log a compiled program as an MLflow DSPy model, loadable with `mlflow.dspy.load_model`.

MLflow's DSPy flavor pickles the module and the DSPy settings of the moment. The program
is logged as a `program.served.ServedGatedRAG`, which pickles as its saved state only, with no LM and no
callbacks in the settings, so neither an API key nor a dead llama.cpp address is stored: the
loading process rebuilds search and web from its settings and starts its LM on the first call
(`program.lm.default_lm`). Its predictions are `program.answer_response.AnswerResponse` as JSON,
the contract HTTP and MCP return. Needs an active tracking store; logs nothing else.
"""

from __future__ import annotations

import dspy
import mlflow
from mlflow.models import ModelSignature
from mlflow.types import ColSpec, Schema

from program.loop import GatedRAG
from program.served import servable

ARTIFACT = "program"
# subtle: without an input schema, `mlflow models serve` hands `{"inputs": {"question": ...}}`
# to the program as a numpy array, not a string; with it, the question arrives as a string
SIGNATURE = ModelSignature(inputs=Schema([ColSpec("string", "question")]))


def log_program_model(program: GatedRAG, tracking_uri: str, run_id: str) -> str:
    """Log into the existing run; returns the model URI (runs:/<run id>/program)."""
    mlflow.set_tracking_uri(tracking_uri)
    with mlflow.start_run(run_id=run_id), dspy.context(lm=None, callbacks=[]):
        mlflow.dspy.log_model(servable(program), name=ARTIFACT, pip_requirements=[f"dspy=={dspy.__version__}"], signature=SIGNATURE)
    # subtle: logging makes the model "active" for the process, and MLflow then links every
    # later metric (of any run, in any store) to it; nothing after this is about the model
    mlflow.clear_active_model()
    return f"runs:/{run_id}/{ARTIFACT}"
