"""The optimize job: prompt optimizers, the threshold search, the spending guard and the MLflow model."""
