"""A compiled program logged to MLflow loads back with mlflow.dspy.load_model, answers a request as
`mlflow models serve` parses it with the response contract, and holds no secret."""

import os
import subprocess
import sys
import tempfile
import warnings

import dspy
import mlflow
import pytest
from dspy.utils import DummyLM
from mlflow.pyfunc.scoring_server import infer_and_parse_data

import program.assembly.served
from optimize.job.mlflow_model import log_program_model
from program.base.settings import Settings
from program.contract.answer_response import AnswerResponse
from program.loop import GatedRAG
from program.thresholds import Thresholds
from tests.conftest import FakeSearch, passage

DOCS = [passage("Kiss and Tell", "Kiss and Tell is a 1945 film.")]
SUFFICIENT = {"short_answer": "Kiss and Tell", "answer": "A 1945 film [1].", "sufficient": True, "confidence": 0.9,
              "gaps": []}


pytestmark = pytest.mark.usefixtures("mlflow_left_clean")


def test_logged_program_loads_with_its_prompts_and_thresholds(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-do-not-log")
    # the loading process rebuilds search and web from its settings; here, a fake index
    monkeypatch.setattr(program.assembly.served, "build_program",
                        lambda settings, program_class=GatedRAG, **_: program_class(FakeSearch(DOCS)))
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = mlflow.MlflowClient(uri)
    experiment = client.create_experiment("t", artifact_location=(tmp_path / "artifacts").as_uri())
    run_id = client.create_run(experiment).info.run_id
    rag = GatedRAG(FakeSearch(DOCS), thresholds=Thresholds(top_k=6, decompose_mode="none"))
    rag.judge.signature = rag.judge.signature.with_instructions("Judge carefully.")
    model_uri = log_program_model(rag, uri, run_id)
    served = mlflow.pyfunc.load_model(model_uri)  # as `mlflow models serve` loads it
    loaded = served.unwrap_python_model().program
    assert isinstance(loaded, GatedRAG) and loaded.thresholds.top_k == 6 and loaded.thresholds.decompose_mode == "none"
    assert loaded.judge.signature.instructions == "Judge carefully."
    request = infer_and_parse_data({"inputs": {"question": "Which 1945 film was it?"}}, served.metadata.get_input_schema())
    # the served model runs with no LM configured, so it takes the process's default LM, with
    # the JSON adapter: here a scripted one
    scripted = DummyLM([SUFFICIENT], adapter=dspy.JSONAdapter())
    given = []
    monkeypatch.setattr(program.assembly.served, "default_lm", lambda settings: given.append(settings) or scripted)
    prediction = served.predict(request)
    assert prediction["answer"] == "A 1945 film [1]." and set(prediction) == set(AnswerResponse.model_fields)
    assert given[0].collection == Settings().collection  # the loading process's own settings
    files = [p for p in (tmp_path / "artifacts").rglob("*") if p.is_file()]
    assert not [p for p in files if p.suffix == ".pkl"]  # no pickle: the program's own JSON
    assert b"sk-secret-do-not-log" not in b"".join(p.read_bytes() for p in files)


def test_a_model_logged_as_a_pickle_before_still_loads(tmp_path, monkeypatch):
    monkeypatch.setattr(program.assembly.served, "build_program",
                        lambda settings, program_class=GatedRAG, **_: program_class(FakeSearch(DOCS)))
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    experiment = mlflow.create_experiment("old", artifact_location=(tmp_path / "artifacts").as_uri())
    rag = program.assembly.served.SERVED["gated"](FakeSearch(DOCS), thresholds=Thresholds(top_k=5))
    with mlflow.start_run(experiment_id=experiment) as run, dspy.context(lm=None, callbacks=[]):
        mlflow.dspy.log_model(rag, name="program")  # how earlier jobs logged it: a served program, pickled
    loaded = mlflow.dspy.load_model(f"runs:/{run.info.run_id}/program")
    assert isinstance(loaded, GatedRAG) and loaded.thresholds.top_k == 5


def test_a_logged_model_s_uri_is_a_program_for_every_entry_point(tmp_path, monkeypatch):
    from program.assembly.loading import read_state

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = mlflow.MlflowClient(uri)
    run_id = client.create_run(client.create_experiment("t", artifact_location=(tmp_path / "a").as_uri())).info.run_id
    model_uri = log_program_model(GatedRAG(FakeSearch(DOCS), thresholds=Thresholds(top_k=7)), uri, run_id)
    mlflow.set_tracking_uri(uri)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where MLflow and the loader put what they fetch
    assert read_state(model_uri)["thresholds"]["top_k"] == 7  # what `ask --program runs:/...` reads
    assert not list(scratch.iterdir())  # nothing fetched is left behind, however often a service starts


def test_logging_and_loading_the_model_print_no_mlflow_warning(tmp_path, monkeypatch):
    # the job's last lines are its outcome, not MLflow's advice on type hints and input examples
    monkeypatch.setattr(program.assembly.served, "build_program",
                        lambda settings, program_class=GatedRAG, **_: program_class(FakeSearch(DOCS)))
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = mlflow.MlflowClient(uri)
    run_id = client.create_run(client.create_experiment("t", artifact_location=(tmp_path / "a").as_uri())).info.run_id
    warnings.onceregistry.clear()  # MLflow shows these once a process: an earlier test's must not hide them
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model_uri = log_program_model(GatedRAG(FakeSearch(DOCS)), uri, run_id)
        mlflow.pyfunc.load_model(model_uri)
    advice = [str(w.message) for w in caught if "type hints" in str(w.message) or "input example" in str(w.message)]
    assert not advice


JOB_LOGGING = """
import sys
from pathlib import Path
import optimize
from optimize.eval.tracking import tracked_run, tracking_uri
from optimize.job.mlflow_model import log_program_model
from program.base.settings import Settings
from program.loop import GatedRAG
from tests.conftest import FakeSearch, passage
folder = Path(sys.argv[1])
(folder / "run").mkdir(parents=True)
settings = Settings(data_dir=folder)
with tracked_run(settings, folder / "run", {}) as tracking:
    log_program_model(GatedRAG(FakeSearch([passage("K", "K is a film.")])), tracking_uri(settings), tracking.run_id)
"""


def test_the_job_s_mlflow_store_and_model_print_no_info_lines_and_no_download_bar(tmp_path):
    # a fresh process: MLflow reads its logging level once, at import
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    done = subprocess.run([sys.executable, "-c", JOB_LOGGING, str(tmp_path)], capture_output=True, text=True,
                          env=env, timeout=120, cwd=os.getcwd())
    assert done.returncode == 0, done.stderr[-2000:]
    assert "INFO mlflow" not in done.stderr and "Downloading artifacts" not in done.stderr, done.stderr[-2000:]
    mine = subprocess.run([sys.executable, "-c", JOB_LOGGING, str(tmp_path / "again")], capture_output=True,
                          text=True, env=env | {"MLFLOW_LOGGING_LEVEL": "INFO"}, timeout=120, cwd=os.getcwd())
    assert "INFO mlflow" in mine.stderr  # a user's own level wins


READ_BACK = """
import sys
from program.assembly.loading import read_state
print(read_state(sys.argv[1])["thresholds"]["top_k"])
"""


def test_reading_a_logged_program_back_shows_no_download_bar(tmp_path):
    # what `ask --program runs:/...` and the services do, in a process that never imports optimize
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    client = mlflow.MlflowClient(uri)
    run_id = client.create_run(client.create_experiment("t", artifact_location=(tmp_path / "a").as_uri())).info.run_id
    model_uri = log_program_model(GatedRAG(FakeSearch(DOCS), thresholds=Thresholds(top_k=7)), uri, run_id)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")} | {"MLFLOW_TRACKING_URI": uri}
    done = subprocess.run([sys.executable, "-c", READ_BACK, model_uri], capture_output=True, text=True, env=env,
                          timeout=120, cwd=os.getcwd())
    assert done.stdout.strip() == "7", done.stderr[-2000:]
    assert "Downloading artifacts" not in done.stderr, done.stderr[-2000:]
    mine = subprocess.run([sys.executable, "-c", READ_BACK, model_uri], capture_output=True, text=True, timeout=120,
                          env=env | {"MLFLOW_ENABLE_ARTIFACTS_PROGRESS_BAR": "true"}, cwd=os.getcwd())
    assert "Downloading artifacts" in mine.stderr  # a user's own setting wins
