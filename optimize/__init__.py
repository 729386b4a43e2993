"""optimize: the optimize job, evals, reports and calibration (`python -m optimize`).

subtle: MLflow writes traces from a background queue by default, which outlives a run and
announces itself at every exit; each question's trace is written when the question ends instead,
between questions, so it adds nothing to a question's measured time.

MLflow's INFO lines (creating its SQLite tables, clearing the active model) would sit among the
job's outcome lines; a user's own MLFLOW_LOGGING_LEVEL wins. (`program`, which reads logged models back
too, turns off the download bar.)
"""

import os

os.environ.setdefault("MLFLOW_ENABLE_ASYNC_TRACE_LOGGING", "false")
os.environ.setdefault("MLFLOW_LOGGING_LEVEL", "WARNING")
