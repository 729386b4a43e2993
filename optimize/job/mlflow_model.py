"""Log a compiled program as an MLflow pyfunc model built from code and the program's own JSON.

No pickle: MLflow's DSPy flavor pickles the module (and DSPy's `save_program` does too), and a
pickle runs whatever it holds when loaded. The model is `program/assembly/served_model.py` with the
program's JSON (`GatedRAG.save()`) as its artifact, read back through `program.assembly.loading`'s checks;
no LM, API key or store handle is stored. Load it with `mlflow.pyfunc.load_model(uri)`, serve it
with `mlflow models serve`, or pass the URI as `--program`. Models logged before this (DSPy flavor,
pickled) still load with `mlflow.dspy.load_model`; a model logged before program/ was regrouped, after
`python -m program migrate URI` (`program.assembly.migration`). Needs an active tracking store; logs
nothing else.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import dspy
import mlflow
from mlflow.models import ModelSignature
from mlflow.types import ColSpec, Schema

import program.assembly
from optimize.eval.tracking import point_mlflow_at
from program.assembly.loading import PROGRAM_ARTIFACT, PROGRAM_FILE
from program.loop import GatedRAG

ARTIFACT = "program"
# a model "from code" is named by its file's path, which the process that loads the model runs;
# the job never imports it
MODEL_CODE = Path(program.assembly.__file__).with_name("served_model.py")
# subtle: without an input schema, `mlflow models serve` hands `{"inputs": {"question": ...}}`
# to the program as a numpy array, not a string; with it, the question arrives as a string
SIGNATURE = ModelSignature(inputs=Schema([ColSpec("string", "question")]))
NO_INPUT_EXAMPLE = r".*An input example was not provided"  # MLflow colours it: the text is not at the start


def log_program_model(compiled: GatedRAG, tracking_uri: str, run_id: str) -> str:
    """Log into the existing run; returns the model URI (runs:/<run id>/program)."""
    point_mlflow_at(tracking_uri)
    with tempfile.TemporaryDirectory() as folder, mlflow.start_run(run_id=run_id):
        saved = Path(folder) / PROGRAM_FILE
        compiled.save(str(saved))
        with warnings.catch_warnings():
            # subtle: MLflow checks an input example by loading the model and predicting on it,
            # which would start the LM inside the job; the signature alone serves requests right
            warnings.filterwarnings("ignore", message=NO_INPUT_EXAMPLE, category=UserWarning)
            mlflow.pyfunc.log_model(name=ARTIFACT, python_model=str(MODEL_CODE),
                                    artifacts={PROGRAM_ARTIFACT: str(saved)}, signature=SIGNATURE,
                                    pip_requirements=[f"dspy=={dspy.__version__}"])
    # subtle: logging makes the model "active" for the process, and MLflow then links every
    # later metric (of any run, in any store) to it; nothing after this is about the model
    mlflow.clear_active_model()
    return f"runs:/{run_id}/{ARTIFACT}"
