"""optimize: the optimize job, evals, reports and calibration (`python -m optimize`).

subtle: MLflow writes traces from a background queue by default, which outlives a run and
announces itself at every exit; each question's trace is written when the question ends instead,
between questions, so it adds nothing to a question's measured time.

MLflow's INFO lines (creating its SQLite tables, clearing the active model) and its bar for
"downloading" the model it has just logged from this machine's own store would sit among the job's
outcome lines; a user's own MLFLOW_LOGGING_LEVEL or MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR wins.
"""

import os

os.environ.setdefault("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")
os.environ.setdefault("MLFLOW_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR", "false")
