"""optimize: the optimize job, evals, reports and calibration (`python -m optimize`).

subtle: MLflow writes traces from a background queue by default, which outlives a run and
announces itself at every exit; each question's trace is written when the question ends instead,
between questions, so it adds nothing to a question's measured time.
"""

import os

os.environ.setdefault("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")
