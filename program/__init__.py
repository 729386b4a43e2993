"""gatedrag's program: the evaluation-gated retrieval loop and what it needs to run.

subtle: LiteLLM (imported by DSPy) fetches its model cost map from GitHub at import time
unless told to use the bundled copy; with no internet that import stalls. Set it before
anything imports dspy.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def __getattr__(name: str):
    # `from program import load, AnswerResponse` without importing DSPy for every `import program`
    if name == "load":
        from program.factory import load

        return load
    if name == "AnswerResponse":
        from program.answer_response import AnswerResponse

        return AnswerResponse
    raise AttributeError(f"module 'program' has no attribute {name!r}")
