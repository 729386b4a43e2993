"""`python -m program migrate`: programs and MLflow models saved before program/ was regrouped load
after it; current ones are left as they are. The old files are the real ones: a program JSON saved by
the code before the regroup, its `served_model.py`, and a pickle naming `program.served.rebuild`."""

import pickle
import shutil
import sys
from pathlib import Path

import dspy
import mlflow
import pytest

import program.assembly.served
from optimize.job.mlflow_model import log_program_model
from program.assembly.loading import apply_state, read_state
from program.assembly.migration import MigrationError, migrate, moved_pickle
from program.cli import main
from program.loop import GatedRAG
from program.thresholds import Thresholds
from tests.conftest import FakeSearch

BEFORE = Path(__file__).with_name("before_regroup")  # saved by the code of the commit before the regroup

pytestmark = pytest.mark.usefixtures("mlflow_left_clean")


@pytest.fixture
def fake_index(monkeypatch):
    # the loading process rebuilds search and web from its settings; here, an empty fake index
    monkeypatch.setattr(program.assembly.served, "build_program",
                        lambda settings, program_class=GatedRAG, **_: program_class(FakeSearch([])))


@pytest.fixture
def store(tmp_path):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    mlflow.set_tracking_uri(uri)
    return uri, mlflow.create_experiment("old", artifact_location=(tmp_path / "artifacts").as_uri())


def loaded(source) -> GatedRAG:
    return apply_state(GatedRAG(FakeSearch([])), read_state(source), str(source))


def test_an_old_program_file_loads_through_the_migration_unchanged(tmp_path):
    old = tmp_path / "program.json"
    shutil.copy(BEFORE / "program.json", old)
    assert migrate(old) == [f"{old}: nothing to rewrite: it names no old module path"]
    assert old.read_bytes() == (BEFORE / "program.json").read_bytes()
    rag = loaded(old)
    assert rag.thresholds.top_k == 7 and rag.judge.signature.instructions == "Judge carefully."


def test_a_current_program_file_is_left_as_it_is(tmp_path):
    GatedRAG(FakeSearch([]), thresholds=Thresholds(top_k=4)).save(str(tmp_path / "program.json"))
    saved = (tmp_path / "program.json").read_bytes()
    assert migrate(tmp_path) == [f"{tmp_path}: nothing to rewrite: it names no old module path"]
    assert (tmp_path / "program.json").read_bytes() == saved and loaded(tmp_path).thresholds.top_k == 4


def test_a_model_logged_from_code_before_the_regroup_loads_after_migrate(tmp_path, store, fake_index):
    uri, experiment = store
    run_id = mlflow.MlflowClient(uri).create_run(experiment).info.run_id
    model_uri = log_program_model(GatedRAG(FakeSearch([]), thresholds=Thresholds(top_k=6)), uri, run_id)
    [code] = (tmp_path / "artifacts").rglob("served_model.py")
    shutil.copy(BEFORE / "served_model.py.txt", code)  # the copy an earlier job logged
    with pytest.raises(ModuleNotFoundError, match="program.loading"):
        mlflow.pyfunc.load_model(model_uri)
    assert migrate(model_uri) == [f"{code}: rewritten to today's module paths (program.loading -> "
                                  "program.assembly.loading, program.served -> program.assembly.served)"]
    assert mlflow.pyfunc.load_model(model_uri).unwrap_python_model().program.thresholds.top_k == 6
    assert migrate(model_uri)[0].endswith("nothing to rewrite: it names no old module path")


def test_a_model_pickled_before_the_regroup_loads_after_migrate(store, fake_index, monkeypatch):
    with monkeypatch.context() as old:  # the module `rebuild` lived in before the regroup
        old.setitem(sys.modules, "program.served", program.assembly.served)
        old.setattr(program.assembly.served.rebuild, "__module__", "program.served")
        rag = program.assembly.served.SERVED["gated"](FakeSearch([]), thresholds=Thresholds(top_k=5))
        with mlflow.start_run(experiment_id=store[1]) as run, dspy.context(lm=None, callbacks=[]):
            mlflow.dspy.log_model(rag, name="program")
    model_uri = f"runs:/{run.info.run_id}/program"
    with pytest.raises(ModuleNotFoundError, match="program.served"):
        mlflow.dspy.load_model(model_uri)
    [line] = migrate(model_uri)
    assert line.split(":")[0].endswith("model.pkl")
    assert mlflow.dspy.load_model(model_uri).thresholds.top_k == 5


@pytest.mark.parametrize("protocol", [2, 5])
def test_a_pickle_s_old_name_is_rewritten_without_unpickling_it(protocol, monkeypatch):
    with monkeypatch.context() as old:
        old.setitem(sys.modules, "program.served", program.assembly.served)
        old.setattr(program.assembly.served.rebuild, "__module__", "program.served")
        text = "".join(["program.", "served"])  # its own object: the pickle's memo does not share it with the name
        data = pickle.dumps([program.assembly.served.rebuild, text], protocol=protocol)
    # the name a global is looked up in moves; a string that is only data does not
    assert pickle.loads(moved_pickle(data, "model.pkl")) == [program.assembly.served.rebuild, "program.served"]


def test_what_migrate_cannot_read_ends_in_one_line_and_changes_nothing(tmp_path, capsys):
    with pytest.raises(MigrationError, match="no such file or folder"):
        migrate(tmp_path / "missing")
    shutil.copy(BEFORE / "served_model.py.txt", tmp_path / "served_model.py")  # one it could rewrite
    (tmp_path / "model.pkl").write_bytes(b"\x80\x05not a pickle")
    assert main(["migrate", str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"error: {tmp_path / 'model.pkl'}: not a pickle") and error.count("\n") == 1
    assert (tmp_path / "model.pkl").read_bytes() == b"\x80\x05not a pickle"
    assert (tmp_path / "served_model.py").read_bytes() == (BEFORE / "served_model.py.txt").read_bytes()
