"""What an optimize job does, as one typed config: a preset file, then a config file, then flags.

Presets live in `datasets/optimize/<name>.toml` (data and config, not code). A job uses three
disjoint question sets: train (demos), select (choosing demo sets and thresholds) and report
(the final comparison); see `optimize.eval.examples.job_sets`. A preset's `val_split` and
`report_split` name HotpotQA splits, so they are dropped when the config file or the flags choose
another dataset: that dataset then carves select and report from its own validation split.
The job's run id hashes the config (a dataset file's sha256 and the serving LM included), so the
same config resumes its own run, and another LM never finds a run of this one. This module reads and checks
config; it runs nothing.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from optimize.links.seeds import has_site
from program.base.settings import DEFAULT_LOCAL_MODEL, PROJECT_ROOT

PRESETS = PROJECT_ROOT / "datasets" / "optimize"


class Caps(BaseModel):
    """Hard limits for the whole job; hitting one stops it cleanly with its best so far."""

    model_config = ConfigDict(extra="forbid")
    lm_calls: int | None = Field(None, ge=1)
    tokens: int | None = Field(None, ge=1)
    dollars: float | None = Field(None, gt=0)


class OptimizeConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preset: str = "quick"
    dataset: str = Field("hotpotqa", description="hotpotqa, aws_docs, or a labelled question file (datasets/README.md)")
    dataset_sha256: str = Field("", description="the dataset file's content hash, filled in when the file is read")
    model: str = Field(DEFAULT_LOCAL_MODEL, description="the serving LM (the local model, or the API model), filled "
                       "in from the settings: every record and choice of the run is that LM's")
    reranker: str = Field("none", description="GATEDRAG_RERANKER, filled in from the settings: the thresholds "
                          "are fitted in its units")
    optimizer: Literal["labelled", "bootstrap", "mipro", "gepa"] = Field(
        "labelled", description="labelled: demos built from the train questions' gold answers and passages; "
        "bootstrap, mipro, gepa: DSPy's optimizers")
    teacher_model: str | None = Field(None, description="the LM that bootstraps demos and proposes instructions "
                                      "(a bundled model's name or any model string dspy.LM takes); the serving LM stays the student")
    train_limit: int = Field(6, ge=1, description="first N questions of the train split used to build demos")
    val_split: str | None = Field(None, description="the split select and report are carved from; unset: the "
                                  "dataset's validation split")
    report_split: str | None = Field(None, description="a split to report on instead of half the validation split; "
                                     "its questions are then left out of select")
    select_limit: int | None = Field(None, ge=1, description="first N select questions; all when unset")
    report_limit: int | None = Field(None, ge=1, description="first N report questions; all when unset")
    max_demos: int = Field(3, ge=0, le=8, description="demos per predictor: each adds prompt tokens")
    demo_sets: int = Field(2, ge=1, description="labelled demo sets tried on the select questions")
    candidates: int = Field(0, ge=0, description="BootstrapFewShotWithRandomSearch candidates; 0 = plain BootstrapFewShot")
    threshold_trials: int = Field(200, ge=0, description="trials replayed from the select runs' recorded LM calls")
    search_space: Literal["quick", "full"] = "full"
    single_pass: bool = Field(True, description="run single pass beside the uncompiled program on the report "
                              "questions, to say whether the loop earns its cost there; off, the job is one report "
                              "run shorter, and decides the same")
    report_rejected: bool = Field(False, description="when nothing ships, run the compiled candidate (the best demo set "
                                  "with the searched thresholds) on the report questions too, to show on questions no "
                                  "phase saw whether keeping the uncompiled program was right; one more report run")
    site: Path | None = Field(None, description="a folder of the dataset's site pages (markdown, HTML): the link "
                              "weights are fitted to it; aws_docs brings its guides")
    seed_page: str | None = Field(None, description="the page in `site` each question's walk starts from; {top} "
                                  "stands for the first folder of its gold source")
    link_trials: int = Field(200, ge=0, description="link-weight trials, walked offline from each question's seed page")
    max_wrong_rate: float | None = Field(None, gt=0.0, lt=1.0, description="with the learned release, answer only "
                                         "where the wrong rate among answers stays at most this, by conformal risk "
                                         "control on the select questions' held-out P(right)")
    latency_weight: float = Field(0.3, ge=0, description="trade-off when choosing the operating point on the Pareto front")
    latency_budget_s: float | None = Field(None, gt=0, description="if set, the best quality under this p50 wins instead")
    time_limit_s: float = Field(150.0, gt=0, description="per question; the loop then answers with its draft")
    caps: Caps = Caps()
    seed: int = 20240501

    @property
    def run_id(self) -> str:
        # subtle: HotpotQA, the default local model, no reranker, no report of a rejected candidate, single pass and no site
        # leave the hash as it was before each was configurable, so older runs keep their ids
        hotpotqa = self.dataset == "hotpotqa"
        unset = ({"dataset", "dataset_sha256"} if hotpotqa else set()) | ({"reranker"} if self.reranker == "none" else set())
        unset |= {"model"} if self.model == DEFAULT_LOCAL_MODEL else set()
        unset |= set() if self.report_rejected else {"report_rejected"}
        unset |= {"single_pass"} if self.single_pass else set()
        unset |= {k for k in ("site", "seed_page", "max_wrong_rate") if getattr(self, k) is None}
        unset |= set() if has_site(self.dataset, self.site) else {"link_trials"}
        digest = hashlib.sha256(self.model_dump_json(exclude=unset).encode()).hexdigest()[:8]
        dataset = "" if hotpotqa else f"{Path(self.dataset).stem}-"
        return f"optimize-{dataset}{self.preset}-{self.optimizer}-{digest}"


def load_config(preset: str = "quick", config_file: Path | None = None, overrides: dict | None = None) -> OptimizeConfig:
    """The preset's values, updated by the config file's, updated by the flags set."""
    values = _read_toml(_preset_path(preset)) | {"preset": preset}
    chosen = (_read_toml(config_file) if config_file is not None else {}) | {
        k: v for k, v in (overrides or {}).items() if v is not None}
    if chosen.get("dataset", "hotpotqa") != "hotpotqa":
        values.pop("val_split", None)  # the preset's splits are HotpotQA's
        values.pop("report_split", None)
    values |= chosen
    try:
        return OptimizeConfig.model_validate(values)
    except ValidationError as error:
        raise ValueError(f"bad optimize config: {error.errors()[0]['loc']}: {error.errors()[0]['msg']}") from None


def _preset_path(name: str) -> Path:
    path = PRESETS / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in PRESETS.glob("*.toml")))
        raise ValueError(f"no preset {name!r}; known presets: {known}")
    return path


def _read_toml(path: Path) -> dict:
    if not path.is_file():
        raise ValueError(f"no config file at {path}")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path} is not valid TOML: {error}") from None
