"""gatedrag's program: the evaluation-gated retrieval loop and what it needs to run.

subtle: LiteLLM (imported by DSPy) fetches its model cost map from GitHub at import time
unless told to use the bundled copy; with no internet that import stalls. Set it before
anything imports dspy.

A compiled program is one small JSON file: MLflow's "Downloading artifacts" bar, shown when the job
logs it or `--program runs:/...` reads it back, would only sit among a command's own lines. A user's
own MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR wins.

A program or MLflow model saved before program/ was regrouped into wings names old module paths
(`program.served`, `program.loading`): `python -m program migrate OLD` rewrites it
(`program.assembly.migration`).
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")


def __getattr__(name: str):
    # `from program import load, AnswerResponse` without importing DSPy for every `import program`
    if name == "load":
        from program.assembly.factory import load

        return load
    if name == "AnswerResponse":
        from program.contract.answer_response import AnswerResponse

        return AnswerResponse
    raise AttributeError(f"module 'program' has no attribute {name!r}")
