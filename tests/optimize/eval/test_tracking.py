"""MLflow logging to a local SQLite store: params without secrets, per-system metrics, artifacts, status."""

import os

import pytest
from mlflow import MlflowClient

from optimize.eval.records import RecordLog
from optimize.eval.runner import run_examples
from optimize.eval.summary import summarize
from optimize.eval.tracking import RUN_ID_FILE, tracked_run, tracking_uri
from program.base.settings import Settings
from tests.optimize.conftest import HAND, FakeProgram, examples, score

PARAMS = {"split": "smoke", "systems": "gated", "note": "key sk-test-SECRET-1234"}


def run_of(settings, folder):
    client = MlflowClient(tracking_uri(settings))
    return client, client.get_run((folder / RUN_ID_FILE).read_text())


def test_a_finished_run_has_params_metrics_and_artifacts_and_no_secret(settings, tmp_path):
    log = RecordLog(tmp_path / "results.jsonl")
    summary = summarize(run_examples(FakeProgram(), examples(), "gated", log, score, progress=False), "r", split="smoke",
                        dataset="hotpotqa", program="uncompiled", profile="local", model="m", judge="lexical")
    (tmp_path / "report.md").write_text("# report")
    with tracked_run(settings, tmp_path, PARAMS) as tracking:
        tracking.log_summary(summary)
        tracking.log_files([tmp_path / "report.md", log.path], tmp_path)
    client, run = run_of(settings, tmp_path)
    assert run.info.status == "FINISHED"
    assert run.data.params == {"split": "smoke", "systems": "gated"}  # the value holding the API key is dropped
    assert run.data.metrics["gated.exact_match"] == 1.0 and "gated.latency_p50_s" in run.data.metrics
    assert {a.path for a in client.list_artifacts(run.info.run_id)} == {"report.md", "results.jsonl"}
    assert "SECRET" not in str(run.data)


def test_a_resumed_eval_continues_the_same_mlflow_run(settings, tmp_path):
    with tracked_run(settings, tmp_path, PARAMS):
        pass
    first = (tmp_path / RUN_ID_FILE).read_text()
    with tracked_run(settings, tmp_path, PARAMS):
        assert run_of(settings, tmp_path)[1].info.status == "RUNNING"
    assert (tmp_path / RUN_ID_FILE).read_text() == first


def test_a_resumed_run_whose_label_was_renamed_since_keeps_its_first_params_and_says_so(settings, tmp_path, capsys):
    """A run folder resumed after an upgrade renamed a label (a split's name): MLflow refuses to
    change a param, so the run keeps the first value, logs the new params, and carries on."""
    with tracked_run(settings, tmp_path, PARAMS):
        pass
    with tracked_run(settings, tmp_path, PARAMS | {"split": "smoke, report half", "model": "m"}):
        pass
    run = run_of(settings, tmp_path)[1]
    assert run.info.status == "FINISHED" and run.data.params == {"split": "smoke", "systems": "gated", "model": "m"}
    assert "keeps the params it was first logged with; now different: split" in capsys.readouterr().err


def test_a_run_killed_before_its_id_was_saved_is_taken_up_again_not_left_running(settings, tmp_path):
    with tracked_run(settings, tmp_path, PARAMS):
        orphan = (tmp_path / RUN_ID_FILE).read_text()
        (tmp_path / RUN_ID_FILE).unlink()  # as if killed between creating the run and saving its id
    client, other = MlflowClient(tracking_uri(settings)), tmp_path / "other"
    client.update_run(orphan, status="RUNNING")
    other.mkdir()
    with tracked_run(settings, other, PARAMS), tracked_run(settings, tmp_path, PARAMS):
        pass
    assert (tmp_path / RUN_ID_FILE).read_text() == orphan  # another folder's run never takes it
    assert (other / RUN_ID_FILE).read_text() != orphan
    assert client.get_run(orphan).info.status == "FINISHED"


@pytest.mark.parametrize("error, status", [(RuntimeError("boom"), "FAILED"), (KeyboardInterrupt(), "KILLED")])
def test_an_exception_ends_the_run_failed_and_an_interrupt_killed(settings, tmp_path, error, status):
    with pytest.raises(type(error)), tracked_run(settings, tmp_path, PARAMS):
        raise error
    assert run_of(settings, tmp_path)[1].info.status == status


def test_artifacts_of_the_local_store_stay_in_the_data_dir(settings, tmp_path):
    with tracked_run(settings, tmp_path, PARAMS):
        pass
    assert run_of(settings, tmp_path)[1].info.artifact_uri.startswith((settings.data_dir / "mlartifacts").resolve().as_uri())


def test_a_run_leaves_no_mlflow_tracking_uri_for_later_settings_to_take_as_the_users(settings, tmp_path, monkeypatch):
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    with tracked_run(settings, tmp_path, PARAMS):
        pass
    # else a later Settings() reads it as the user's own store, whose artifacts MLflow puts in ./mlruns
    assert "MLFLOW_TRACKING_URI" not in os.environ and Settings(_env_file=None).mlflow_tracking_uri is None


def test_abstention_web_use_gate_rules_and_calibration_are_logged_per_system(settings, tmp_path):
    summary = summarize(HAND, "r", split="smoke", dataset="hotpotqa", program="uncompiled", profile="local", model="m",
                        judge="lexical")
    with tracked_run(settings, tmp_path, PARAMS) as tracking:
        tracking.log_summary(summary)
    metrics = run_of(settings, tmp_path)[1].data.metrics
    assert metrics["gated.abstained"] == pytest.approx(0.4) and metrics["gated.lm_calls"] == 4
    assert metrics["gated.web_precision"] == pytest.approx(2 / 3) and metrics["gated.web_recall"] == pytest.approx(2 / 3)
    assert metrics["gated.rule_covered_with_cliff"] == 2 and metrics["gated.rule_out_of_time"] == 1
    # every hand record is wrong (F1 0) at the prior of no evidence, 5: an ECE of 0.05 and no AUROC
    assert metrics["gated.confidence_ece"] == pytest.approx(0.05) and "gated.confidence_auroc" not in metrics


def test_a_store_whose_creation_is_cut_short_is_not_left_half_made(tmp_path, monkeypatch):
    import mlflow.store.db.utils

    settings = Settings(_env_file=None, data_dir=tmp_path / "data", mlflow_tracking_uri=None,
                        model_cache=tmp_path / "cache")  # no empty store to copy yet: it is built here
    upgrade = mlflow.store.db.utils._upgrade_db

    def killed_midway(engine):  # as a kill between two of MLflow's migration steps
        upgrade(engine)
        raise KeyboardInterrupt

    monkeypatch.setattr(mlflow.store.db.utils, "_upgrade_db", killed_midway)
    with pytest.raises(KeyboardInterrupt), tracked_run(settings, tmp_path, PARAMS):
        pass
    assert not (settings.data_dir / "mlflow.db").exists()
    assert [p.name for p in settings.data_dir.iterdir()] == []  # nor its temp file
    assert [p.name for p in settings.model_cache.iterdir()] == []  # nor the empty store copies are made from
    monkeypatch.undo()
    with tracked_run(settings, tmp_path, PARAMS):
        pass
    assert run_of(settings, tmp_path)[1].info.status == "FINISHED"


def test_outcomes_net_right_and_aurc_are_logged_when_the_records_have_them(settings, tmp_path):
    scored = [r.model_copy(update={"scores": r.scores.model_copy(update={"net_right": -1.0 + r.scores.abstained})})
              for r in HAND]  # every hand record is wrong but the two that abstained
    summary = summarize(scored, "r", split="smoke", dataset="hotpotqa", program="uncompiled", profile="local", model="m",
                        judge="lexical")
    with tracked_run(settings, tmp_path, PARAMS) as tracking:
        tracking.log_summary(summary)
    metrics = run_of(settings, tmp_path)[1].data.metrics
    outcomes = [metrics[f"gated.outcome_{k}"] for k in ("right", "wrong", "abstained")]
    assert outcomes == [0, 3, 2]
    assert metrics["gated.net_right"] == pytest.approx(-0.6) and metrics["gated.aurc"] == 1.0


def test_a_new_store_is_a_copy_of_the_empty_one_built_once_per_cache(tmp_path, monkeypatch):
    import mlflow.store.db.utils

    cache = tmp_path / "cache"
    first, second = (Settings(_env_file=None, data_dir=tmp_path / name, mlflow_tracking_uri=None, model_cache=cache)
                     for name in ("one", "two"))
    (tmp_path / "run1").mkdir()
    (tmp_path / "run2").mkdir()
    with tracked_run(first, tmp_path / "run1", PARAMS):
        pass
    monkeypatch.setattr(mlflow.store.db.utils, "_upgrade_db", lambda engine: pytest.fail("migrated a second time"))
    with tracked_run(second, tmp_path / "run2", PARAMS):
        pass
    assert len(list(cache.glob("mlflow-*-empty.db"))) == 1
    client, run = run_of(second, tmp_path / "run2")
    assert run.info.status == "FINISHED" and run.data.params["split"] == "smoke"
    assert len(client.search_runs([run.info.experiment_id])) == 1  # its own run, none of the first store's
