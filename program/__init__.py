"""gatedrag's program: the evaluation-gated retrieval loop and what it needs to run.

subtle: LiteLLM (imported by DSPy) fetches its model cost map from GitHub at import time
unless told to use the bundled copy; with no internet that import stalls. Set it before
anything imports dspy.

A compiled program is one small JSON file: MLflow's "Downloading artifacts" bar, shown when the job
logs it or `--program runs:/...` reads it back, would only sit among a command's own lines. A user's
own MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR wins.
"""

import importlib
import importlib.abc
import importlib.util
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")

# Where modules were before program/ was regrouped into wings. A model logged to MLflow from code
# carries a copy of `served_model.py` that imports `program.loading` and `program.served`, and a
# pickled one names `program.served.ServedRAG`, `program.settings.Settings` and the like; those old
# paths still import, as the modules that moved. The project's own code never uses them (a test checks).
MOVED = {f"program.{name}": f"program.{wing}.{name}" for wing, names in {
    "answer": ("acceptance", "criteria", "factuality", "citations", "code_check", "calibrator", "short_answer"),
    "contract": ("result", "answer_response", "agent_metadata", "render"),
    "assembly": ("factory", "loading", "served", "served_model"),
    "base": ("settings", "errors", "json_file", "redaction"),
    "lm": ("deadline",), "sessions": ("follow_up",), "retrieval": ("passage",)}.items() for name in names}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        return importlib.util.spec_from_loader(name, self) if name in MOVED else None

    def create_module(self, spec):
        return importlib.import_module(MOVED[spec.name])  # the same module object under both names

    def exec_module(self, module):
        pass  # already executed under its new name


sys.meta_path.append(_MovedModules())


def __getattr__(name: str):
    # `from program import load, AnswerResponse` without importing DSPy for every `import program`
    if name == "load":
        from program.assembly.factory import load

        return load
    if name == "AnswerResponse":
        from program.contract.answer_response import AnswerResponse

        return AnswerResponse
    raise AttributeError(f"module 'program' has no attribute {name!r}")
