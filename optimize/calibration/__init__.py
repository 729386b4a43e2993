"""`python -m optimize calibrate`: the confidence calibrator fitted on an eval run's records."""
