"""MLflow logging for eval runs: params, per-system figures, and the report files as artifacts.

The store is MLFLOW_TRACKING_URI when set, else a local SQLite file in the data dir (MLflow 3
deprecates the plain-folder store), created whole or not at all, with artifacts beside it; it is
a copy of an empty store that the model cache keeps per MLflow version. One
eval run folder is one MLflow run: its id is kept in the folder, so a resumed eval continues the
same MLflow run (and one killed before its id was saved is found by its folder tag). A run that
raises ends FAILED, an interrupted one KILLED, never left RUNNING. Only the params given are
logged, and any value holding a configured secret is dropped. Each question finished in the run
gets its MLflow trace. This module does not evaluate.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import mlflow
from mlflow import MlflowClient
from mlflow.entities import Metric, Param, RunStatus
from mlflow.exceptions import MlflowException

from optimize.durable import write_atomic
from optimize.eval.against_baseline import BASELINE
from optimize.eval.question_traces import log_question_trace, remember_trace
from optimize.eval.records import Record
from optimize.eval.summary import RunSummary
from program.base.settings import Settings

EXPERIMENT = "gatedrag-eval"
RUN_ID_FILE = "mlflow_run_id"
FOLDER_TAG = "gatedrag.folder"  # the run folder an MLflow run belongs to


def tracking_uri(settings: Settings) -> str:
    return settings.mlflow_tracking_uri or f"sqlite:///{_local_store(settings).resolve()}"


@contextmanager
def tracked_run(settings: Settings, folder: Path, params: dict[str, object],
                experiment: str = EXPERIMENT) -> Iterator[EvalTracking]:
    """An MLflow run for the job in `folder` (resumed when the folder has one), ended by status."""
    if not settings.mlflow_tracking_uri:
        _create_local_store(_local_store(settings), settings.model_cache)
    client = MlflowClient(tracking_uri(settings))
    point_mlflow_at(tracking_uri(settings))  # where the question traces go (mlflow's tracing is global)
    run_id = _resume(client, folder) or _create(client, settings, folder, experiment)
    _log_params(client, run_id, _without_secrets(params, settings))
    try:
        yield EvalTracking(client, run_id)
    except KeyboardInterrupt:
        client.set_terminated(run_id, RunStatus.to_string(RunStatus.KILLED))
        raise
    except BaseException:
        client.set_terminated(run_id, RunStatus.to_string(RunStatus.FAILED))
        raise
    client.set_terminated(run_id, RunStatus.to_string(RunStatus.FINISHED))


def point_mlflow_at(uri: str) -> None:
    """Point MLflow's global API (its tracing, `start_run`) at `uri`.
    subtle: `mlflow.set_tracking_uri` also exports MLFLOW_TRACKING_URI, which a later `Settings()` of
    this process would read as the user's own store, whose artifacts MLflow keeps in ./mlruns of the
    working folder; so the variable is put back as it was."""
    before = os.environ.get("MLFLOW_TRACKING_URI")
    mlflow.set_tracking_uri(uri)
    if before is None:
        os.environ.pop("MLFLOW_TRACKING_URI", None)
    else:
        os.environ["MLFLOW_TRACKING_URI"] = before


def _local_store(settings: Settings) -> Path:
    return settings.data_dir / "mlflow.db"


def _create_local_store(path: Path, cache: Path) -> None:
    """Create the SQLite store whole, if it does not exist yet, as a copy of an empty one in `cache`.

    subtle: MLflow builds a new store's tables in dozens of migration steps; a kill between two
    left a store that every later run failed to open ("duplicate column name: step"). So they are
    built in a file of their own, linked into place only when complete (a link, unlike a
    rename, never replaces a store another process made meanwhile)."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    building = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")  # a new name: MLflow caches stores by URI
    try:
        shutil.copyfile(_empty_store(cache), building)
        os.link(building, path)
    except FileExistsError:
        pass  # another process made it first: use theirs
    finally:
        building.unlink(missing_ok=True)


def _empty_store(cache: Path) -> Path:
    """An empty store of this MLflow version's schema, built once per cache: the migrations take seconds
    (more than 10 on a busy 2-core machine), a copy a fraction of one."""
    template = cache / f"mlflow-{mlflow.__version__}-empty.db"
    if not template.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        building = template.with_name(f".{template.name}.{uuid.uuid4().hex}.tmp")
        try:
            MlflowClient(f"sqlite:///{building.resolve()}").search_experiments()
            os.replace(building, template)  # whole or not at all; two builders each put a whole one
        finally:
            building.unlink(missing_ok=True)
    return template


class EvalTracking:
    def __init__(self, client: MlflowClient, run_id: str):
        self.client, self.run_id = client, run_id
        self.experiment_id = client.get_run(run_id).info.experiment_id

    def log_trace(self, record: Record, folder: Path | None = None) -> str:
        """The question's MLflow trace, linked to this run (`optimize.eval.question_traces`), and
        noted in `folder`'s trace list when given."""
        trace_id = log_question_trace(record, self.experiment_id, self.run_id)
        if folder is not None:
            remember_trace(folder, record, trace_id, self.experiment_id)
        return trace_id

    def log_summary(self, summary: RunSummary) -> None:
        """Per-system metrics, prefixed by the system: gated.f1, gated.abstained (the abstention rate),
        gated.web_recall, gated.confidence_ece, gated.rule_<name> (steps the rule chose),
        gated.right_a_minute, gated.net_right, gated.outcome_wrong (a count), gated.aurc,
        single_pass.latency_p50_s, ...; and against single pass in the same run,
        gated.vs_single_pass.f1_delta (paired mean), gated.vs_single_pass.p50_ratio, ..."""
        metrics, now = [], int(time.time() * 1000)
        for system in summary.systems:
            calibration = system.calibration
            rates = {"web_precision": system.web_precision.rate, "web_recall": system.web_recall.rate,
                     "abstained_answerable": system.abstained_answerable.rate,
                     "abstained_unanswerable": system.abstained_unanswerable.rate,
                     "confidence_ece": calibration.ece if calibration else None,
                     "confidence_auroc": calibration.auroc if calibration else None,
                     "right_a_minute": system.right_a_minute,
                     "aurc": system.risk_coverage.aurc if system.risk_coverage else None,
                     **{f"outcome_{k}": v for k, v in dict(system.outcomes or {}).items()}}
            values = {name: e.mean for name, e in system.metrics.items() if e.n} | {
                "latency_p50_s": system.latency_p50_s, "latency_p95_s": system.latency_p95_s, "n": system.n,
                **{f"status_{k}": v for k, v in system.status.items()},
                **{k: v for k, v in rates.items() if v is not None},  # none without questions to count
                **{f"rule_{k}": v for k, v in system.rules.items()}}
            metrics += [Metric(f"{system.system}.{k}", float(v), now, 0) for k, v in values.items()]
        for a in summary.against:
            values = {f"{m}_delta": d.mean for m, d in a.deltas.items()} | {"p50_ratio": a.p50_ratio}
            metrics += [Metric(f"{a.system}.vs_{BASELINE}.{k}", float(v), now, 0) for k, v in values.items() if v is not None]
        self.client.log_batch(self.run_id, metrics=metrics)

    def log_metrics(self, values: dict[str, float], step: int = 0) -> None:
        now = int(time.time() * 1000)
        self.client.log_batch(self.run_id, metrics=[Metric(k, float(v), now, step) for k, v in values.items()])

    def log_files(self, paths: list[Path], root: Path) -> None:
        for path in paths:
            parent = path.parent.relative_to(root).as_posix()
            self.client.log_artifact(self.run_id, str(path), None if parent == "." else parent)


def _log_params(client: MlflowClient, run_id: str, params: dict[str, object]) -> None:
    """The params the run lacks. A resumed run keeps those it was first logged with: MLflow refuses
    to change a param, and a resumed folder's config is the same, so a value that differs is a
    label renamed since (a split's name), said in one line rather than ending the run."""
    logged = client.get_run(run_id).data.params
    changed = sorted(k for k, v in params.items() if k in logged and logged[k] != str(v))
    if changed:
        print(f"MLflow run {run_id} keeps the params it was first logged with; now different: {', '.join(changed)}",
              file=sys.stderr)
    client.log_batch(run_id, params=[Param(k, str(v)) for k, v in params.items() if k not in logged])


def _resume(client: MlflowClient, folder: Path) -> str | None:
    saved = folder / RUN_ID_FILE
    if not saved.exists():
        return None
    run_id = saved.read_text().strip()
    try:
        client.update_run(run_id, status=RunStatus.to_string(RunStatus.RUNNING))
    except MlflowException:
        return None  # the store was moved or wiped: start a fresh MLflow run
    return run_id


def _create(client: MlflowClient, settings: Settings, folder: Path, name: str) -> str:
    experiment = client.get_experiment_by_name(name)
    if experiment is not None:
        experiment_id = experiment.experiment_id
    else:  # subtle: for the local store, keep artifacts in the data dir, not ./mlruns of whatever cwd
        location = None if settings.mlflow_tracking_uri else (settings.data_dir / "mlartifacts").resolve().as_uri()
        experiment_id = client.create_experiment(name, artifact_location=location)
    # subtle: a kill between creating the run and saving its id would leave that run RUNNING for
    # ever, so the run carries its folder, and a run of this folder left so is taken up again
    run_id = _orphan(client, experiment_id, folder) or client.create_run(
        experiment_id, run_name=folder.name, tags={FOLDER_TAG: str(folder.resolve())}).info.run_id
    write_atomic(folder / RUN_ID_FILE, run_id)
    return run_id


def _orphan(client: MlflowClient, experiment_id: str, folder: Path) -> str | None:
    """A RUNNING run of this folder whose id was never saved, if any."""
    running = client.search_runs([experiment_id], filter_string="attributes.status = 'RUNNING'")
    mine = [r for r in running if r.data.tags.get(FOLDER_TAG) == str(folder.resolve())]
    return mine[0].info.run_id if mine else None


def _without_secrets(params: dict[str, object], settings: Settings) -> dict[str, object]:
    secrets = [s.get_secret_value() for s in (settings.openai_api_key, settings.tavily_api_key, settings.qdrant_api_key) if s]
    return {k: v for k, v in params.items() if not any(secret in str(v) for secret in secrets)}
