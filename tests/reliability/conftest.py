"""A file-based SQLite MLflow store shared by the reliability tests (its tables take seconds to
create, so once per session), and settings that point at it."""

from __future__ import annotations

import pytest
from mlflow import MlflowClient

from optimize.eval.tracking import tracking_uri
from program.base.settings import Settings


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
    """A data dir whose mlflow.db already has its tables."""
    folder = tmp_path_factory.mktemp("reliability-data")
    MlflowClient(tracking_uri(Settings(data_dir=folder, mlflow_tracking_uri=None))).search_experiments()
    return folder


@pytest.fixture
def settings(data_dir) -> Settings:
    return Settings(data_dir=data_dir, mlflow_tracking_uri=None, openai_api_key=None, tavily_api_key=None)
