"""Assembly: building a ready program from settings, loading compiled programs, and the served
and MLflow models."""
