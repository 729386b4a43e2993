"""The MLflow model's code: a pyfunc model built from this file and the program's own JSON, never a pickle.

MLflow logs it "from code" (`mlflow.pyfunc.log_model(python_model=<this file>, artifacts={"program":
program.json})`), so loading runs this file and reads the JSON through `program.assembly.loading`, whose
checks every program file passes: no pickled object is ever loaded, and a planted LM setting is
refused. The loading process rebuilds search and web from its own settings (`program.assembly.served.rebuild`).
`predict` takes `{"question": ...}` rows and returns the HTTP and MCP response contract for each.
"""

from __future__ import annotations

import mlflow
import pandas as pd
from mlflow.pyfunc import PythonModel

from program.assembly.loading import PROGRAM_ARTIFACT, read_state
from program.assembly.served import rebuild


class GatedRAGModel(PythonModel):
    def load_context(self, context) -> None:
        self.program = rebuild(read_state(context.artifacts[PROGRAM_ARTIFACT]))

    # subtle: the hint is what MLflow hands over under the logged signature (a `question` column); it
    # is also a type MLflow infers no schema from, so the explicit signature stands and MLflow does
    # not warn, in every process that loads this file, that `predict` has no type hints
    def predict(self, context, model_input: pd.DataFrame, params=None):
        answers = [self.program(question=q).toDict() for q in _questions(model_input)]
        return answers[0] if len(answers) == 1 else answers


def _questions(model_input) -> list[str]:
    """The questions of a request: a DataFrame's `question` column, a dict, a list of either, or a string."""
    if hasattr(model_input, "to_dict"):  # what `mlflow models serve` hands over for {"inputs": ...}
        return [str(q) for q in model_input["question"].tolist()]
    if isinstance(model_input, dict):
        return [str(model_input["question"])]
    if isinstance(model_input, list):
        return [q for item in model_input for q in _questions(item)]
    return [str(model_input)]


mlflow.models.set_model(GatedRAGModel())
