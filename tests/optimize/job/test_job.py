"""The optimize job end to end on a keyed fake LM and a fake index: phases, outputs, resume, and
the rule that a compiled component worse on the select questions is not shipped."""

import json

import dspy
import pytest
from dspy.utils import DummyLM
from mlflow import MlflowClient

from optimize.eval.example_schema import make_example
from optimize.eval.examples import JobSets
from optimize.eval.question_traces import TRACES
from optimize.eval.stats import Estimate
from optimize.eval.tracking import RUN_ID_FILE, tracked_run, tracking_uri
from optimize.job import command as job_command
from optimize.job import job as job_module
from optimize.job import threshold_search
from optimize.job.budget import SpendingGuard
from optimize.job.config import load_config
from optimize.job.job import COMPARISON, DECISIONS, PROGRAM, Decisions, Job, JobState
from optimize.replay.recorder import read_calls
from program.base.settings import Settings
from program.loop import GatedRAG
from tests.conftest import FakeSearch, passage

DOCS = [passage("Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer."),
        passage("Shirley Temple", "Shirley Temple was Chief of Protocol of the United States.")]
# subtle: DummyLM answers the first key found in the prompt; the judge's and refiner's prompts
# also mention "evidence", so the synthesizer's key comes last
ANSWER = {"short_answer": "Chief of Protocol", "answer": "Chief of Protocol [2]."}
# the first key found in a prompt picks the reply: the judge's, the refiner's, the rewriter's, the
# planner's, then the synthesizer's (whose prompt only the last key matches)
KEYED = {"sufficient": {**ANSWER, "sufficient": True, "confidence": 0.9, "gaps": []},
         "[[ ## draft ## ]]": ANSWER, "tried_queries": {"queries": ["Shirley Temple office"]},
         "sub_queries": {"sub_queries": ["Shirley Temple"], "query_type": "factual", "key_concepts": []},
         "evidence": ANSWER}


def examples(n, prefix):
    return [make_example(f"{prefix}{i}", f"{prefix} {i}: which office did Shirley Temple hold?", ["Chief of Protocol"],
                         ["Shirley Temple", "Kiss and Tell"], hotpot_type="bridge") for i in range(n)]


def sets():
    return JobSets(examples(2, "train"), examples(2, "select"), examples(2, "report"), "dev without smoke", "smoke")


def run_job(tmp_path, lm, uncompiled=None, job_sets=None, cold_start=lambda guard: None, **overrides):
    settings = Settings(data_dir=tmp_path / "data", _env_file=None)
    config = load_config("quick", overrides={"threshold_trials": 4, "time_limit_s": 30, "model": "dummy"} | overrides)
    folder, guard = tmp_path / "run", SpendingGuard(config.caps, "dummy")
    folder.mkdir(exist_ok=True)
    with dspy.context(lm=lm, callbacks=[guard]), tracked_run(settings, folder, {}, "gatedrag-optimize") as tracking:
        job = Job(config, settings, folder, guard, tracking, progress=False, cold_start=lambda: cold_start(guard))
        outcome = job.run(uncompiled or GatedRAG(FakeSearch(DOCS)), job_sets or sets())
    return folder, outcome, guard


def test_every_system_run_of_the_job_starts_with_the_prompt_cache_emptied(tmp_path):
    calls_at_start = []
    folder, _, _ = run_job(tmp_path, DummyLM(KEYED), cold_start=lambda guard: calls_at_start.append(guard.calls),
                           report_rejected=True)

    def systems(run: str) -> set[str]:
        return {json.loads(line)["system"] for line in (folder / run / "results.jsonl").read_text().splitlines()}

    seeded = systems("eval_baseline")
    ran = len(seeded) + len(systems("select")) + len(systems("eval") - seeded)
    assert len(calls_at_start) == ran >= 5  # baseline, single pass, uncompiled select, demos, kept-out candidate
    assert calls_at_start == sorted(set(calls_at_start))  # each run made LM calls before the next one started
    run_job(tmp_path, DummyLM(KEYED), cold_start=lambda guard: calls_at_start.append("again"),
            report_rejected=True)
    assert "again" not in calls_at_start  # a finished job resumes with nothing to run


def test_the_job_writes_a_compiled_program_and_a_rerun_redoes_nothing(tmp_path, capsys, monkeypatch):
    folder, outcome, guard = run_job(tmp_path, DummyLM(KEYED))
    err = capsys.readouterr().err
    assert "resuming" not in err  # the report's log holds the seeded baseline, which is no resume
    state = json.loads((folder / PROGRAM).read_text())
    assert state["calibrator"] is None and "no confidence calibrator: too few records to fit a calibrator: 2" in err
    assert "labelled demos: 2 of 2 train questions have gold passages in the collections that state their answer" in err
    assert state["thresholds"] == json.loads((folder / "thresholds.json").read_text())
    assert state["gatedrag"]["lm"] == "dummy"  # the serving LM the job chose with
    assert (folder / "pareto_front.png").stat().st_size > 0 and (folder / "eval" / "report.html").exists()
    # the report links the baseline's traces, seeded from its eval, not logged a second time
    assert (folder / "eval" / TRACES).read_text() == (folder / "eval_baseline" / TRACES).read_text() != ""
    assert JobState.read(folder).done == ["prompts", "thresholds", "judges", "done"]
    # the judges phase says what it kept, and the program it wrote carries the models it chose
    assert "sufficiency: " in err and "acceptance: " in err and "release: " in err
    assert state["sufficiency"]["features"] and state["acceptance"]["features"]
    decisions = Decisions.model_validate_json((folder / DECISIONS).read_text())
    assert decisions.replay["trials"] == 4 and decisions.replay["fidelity_current"] == 1.0
    assert decisions.prompts.line in err and decisions.thresholds.line in err
    assert guard.calls > 0
    client = MlflowClient(tracking_uri(Settings(data_dir=tmp_path / "data", _env_file=None)))
    run_id = (folder / RUN_ID_FILE).read_text()
    logged = {a.path for a in client.list_artifacts(run_id)} | {a.path for a in client.list_artifacts(run_id, "eval")}
    assert {PROGRAM, DECISIONS, "pareto_front.png", "eval/report.html"} <= logged
    assert "chosen.json" in {a.path.rsplit("/", 1)[-1] for a in client.list_artifacts(run_id, "thresholds")}
    metrics = client.get_run(run_id).data.metrics
    assert {"replay.fidelity_current", "replay.trials", "prompts.shipped", "thresholds.shipped"} <= set(metrics)
    again = DummyLM(KEYED)
    monkeypatch.setattr(job_module, "log_program_model", lambda *args: pytest.fail("a finished job logged its model again"))
    _, rerun, _ = run_job(tmp_path, again)
    assert again.history == [] and rerun.table == outcome.table
    assert "resuming job run: done prompts, thresholds, judges, done" in capsys.readouterr().err


def test_a_better_candidate_ships_and_the_report_pairs_it_with_the_uncompiled_program(tmp_path, monkeypatch):
    """The uncompiled program misses a page the candidate finds: the candidate ships, and the report
    compares the two on the report questions with paired intervals."""
    better = GatedRAG(FakeSearch(DOCS))
    monkeypatch.setattr(job_module, "labelled_candidates", lambda program, train, config: {"demos-1": better})
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED), uncompiled=GatedRAG(FakeSearch(DOCS[:1])))
    assert outcome.decisions.prompts.ships and outcome.decisions.prompts_system == "demos-1"
    assert [s.system for s in outcome.summary.systems] == ["baseline", "single_pass", "compiled"]
    assert "report split: smoke, 2 questions" in outcome.table and "95% CI" in outcome.table
    # each program against single pass on the same report questions: does the loop earn its cost here?
    against = str(outcome).split(outcome.table)[1]
    assert against.count(" against single_pass, ") == 2
    assert "\nbaseline against single_pass, paired over 2 questions: F1 " in against
    assert "\ncompiled against single_pass, paired over 2 questions: F1 " in against
    assert (folder / "eval" / COMPARISON).exists()


def test_without_single_pass_the_report_runs_the_uncompiled_program_alone(tmp_path):
    """--no-single-pass: single pass decides nothing the job ships, so the job can leave it out."""
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED), single_pass=False)
    assert [s.system for s in outcome.summary.systems] == ["baseline"]
    assert "single_pass" not in (folder / "eval_baseline" / "results.jsonl").read_text()
    assert " against single_pass" not in str(outcome) and outcome.decisions.prompts is not None


def test_no_phase_sees_a_question_of_another(tmp_path):
    """Train questions only become demos, select questions only choose, report questions only report."""
    folder, _, _ = run_job(tmp_path, DummyLM(KEYED))
    calls = [c for path in (folder / "select" / "recordings").glob("*.jsonl") for c in read_calls(path)]
    asked = [c.messages[-1]["content"] for c in calls]
    assert calls and not any("train " in a for a in asked)  # a train question is only ever a demo, never asked
    assert any("train " in m["content"] for c in calls for m in c.messages[:-1])  # and it was one
    select = {json.loads(line)["qid"] for line in (folder / "select" / "results.jsonl").read_text().splitlines()}
    report = {json.loads(line)["qid"] for line in (folder / "eval" / "results.jsonl").read_text().splitlines()}
    assert select == {"select0", "select1"} and report == {"report0", "report1"}


def test_a_candidate_worse_on_the_select_questions_is_not_shipped(tmp_path, monkeypatch, capsys):
    """The demo set's program finds nothing, so it scores below the uncompiled one: the job keeps
    the uncompiled prompts and says why in one line."""
    worse = GatedRAG(FakeSearch([]))
    monkeypatch.setattr(job_module, "labelled_candidates", lambda program, train, config: {"demos-1": worse})
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED))
    line = outcome.decisions.prompts.line
    assert not outcome.decisions.prompts.ships and outcome.decisions.prompts_system == "uncompiled"
    assert line.startswith("prompts: keeping the uncompiled prompts; demos-1 did not beat them (composite ")
    assert line in capsys.readouterr().err and "\n" not in line
    shipped = json.loads((folder / PROGRAM).read_text())
    assert all(not shipped[name]["demos"] for name in ("judge", "synthesize"))
    assert [s.system for s in outcome.summary.systems] == ["baseline", "single_pass"]  # the uncompiled program is not run twice
    assert outcome.table.endswith("the program written is the uncompiled one, and its report is the baseline's")


class KeepsEveryChange:
    """A sparsifier that puts nothing back: the pick ships or not as it is."""
    replays = 0

    def __init__(self, *_):
        pass

    def __call__(self, point, questions):
        return point


def test_a_pick_whose_changes_the_replay_cannot_tell_from_none_is_put_back_to_the_current_thresholds(
        tmp_path, monkeypatch, capsys):
    """Every question answers alike under any thresholds: the search's pick moves knobs, none of
    them pays on replay, so the point goes back to the current thresholds, with no real run."""
    monkeypatch.setattr(threshold_search, "choose", lambda front, *_: max(front, key=lambda p: p.trial))
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED), threshold_trials=8)
    verdict, replay = outcome.decisions.thresholds, outcome.decisions.replay
    assert replay["knobs_searched"] > 0 and replay["knobs_moved"] == 0 and replay["sparsify_replays"] > 0
    assert not verdict.ships and verdict.line == (
        f"thresholds: keeping the current thresholds; none of the {replay['knobs_searched']:.0f} knobs the "
        "search's pick moved paid on replay beyond the noise")
    assert verdict.line in capsys.readouterr().err
    assert not (folder / "select" / "recordings" / "thresholds-chosen.jsonl").exists()


class KeepsEveryChangeASecondFaster(KeepsEveryChange):
    """As `KeepsEveryChange`, with the point replayed a second a question faster than the pick."""

    def __call__(self, point, questions):
        return point.model_copy(update={"latency_s": point.latency_s - 1.0})


def test_a_searched_point_whose_gain_vanishes_held_out_is_kept_without_a_real_run(tmp_path, monkeypatch, capsys):
    """The search picks another point than the current thresholds, but cross-validated over the
    select questions it gains nothing: the job keeps the uncompiled thresholds, says so (with the
    seconds the point would have saved), and never runs the point for real."""
    monkeypatch.setattr(threshold_search, "choose", lambda front, *_: max(front, key=lambda p: p.trial))
    monkeypatch.setattr(job_module, "cross_validate", lambda *_, **__: Estimate(mean=-0.02, low=-0.08, high=0.03, n=2))
    monkeypatch.setattr(job_module, "Sparsifier", KeepsEveryChangeASecondFaster)
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED), threshold_trials=8)
    verdict = outcome.decisions.thresholds
    assert not verdict.ships and verdict.candidate == "the searched thresholds"
    saved = outcome.decisions.replay["best_seconds_saved"]
    assert saved > 0 and f" composite and saved {saved:.2f} s a question on the " in verdict.line
    assert "gained -0.020 [-0.080, +0.030] on the held-out folds; the point moves " in verdict.line
    assert "; the replay stood in for " in verdict.line
    assert verdict.line in capsys.readouterr().err and 0 <= outcome.decisions.replay["chosen_stand_ins"] <= 1
    assert outcome.decisions.replay["cv_gain"] == -0.02
    assert not (folder / "select" / "recordings" / "thresholds-chosen.jsonl").exists()
    assert json.loads((folder / "thresholds.json").read_text()) == GatedRAG(FakeSearch(DOCS)).thresholds.model_dump()


def test_a_searched_point_run_for_real_says_how_much_of_its_replay_was_stood_in_and_how_it_matched(tmp_path, monkeypatch):
    """A point that holds held out is run for real on the select questions; its line gives the
    share of its replayed LM replies that were stand-ins and the replay's agreement with that run."""
    monkeypatch.setattr(threshold_search, "choose", lambda front, *_: max(front, key=lambda p: p.trial))
    monkeypatch.setattr(job_module, "cross_validate", lambda *_, **__: Estimate(mean=0.02, low=-0.01, high=0.05, n=2))
    monkeypatch.setattr(job_module, "Sparsifier", KeepsEveryChange)
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED), threshold_trials=8)
    replay, line = outcome.decisions.replay, outcome.decisions.thresholds.line
    assert (folder / "select" / "recordings" / "thresholds-chosen.jsonl").exists()
    assert f"the replay stood in for {replay['chosen_stand_ins']:.0%} of the point's LM replies and took the real " \
           f"run's actions on {replay['fidelity_chosen']:.0%} of the select questions" in line


def test_python_m_optimize_dataset_file_trains_and_validates_on_the_file(tmp_path, monkeypatch, capsys):
    """`python -m optimize --dataset FILE`: train rows compile, dev rows validate, test rows are never run."""
    import program.lm.lm_profiles
    from optimize.cli import main
    from tests.optimize.conftest import FakeHandle

    rows = [{"id": f"{split}{i}", "question": f"{split} {i}: which office did Shirley Temple hold?",
             "answers": ["Chief of Protocol"], "gold_sources": ["Shirley Temple"], "split": split}
            for split in ("train", "dev", "test") for i in range(2)]
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    lm = DummyLM(KEYED)
    monkeypatch.setattr(job_command, "build_program", lambda settings: GatedRAG(FakeSearch(DOCS)))
    monkeypatch.setattr(program.lm.lm_profiles, "build_lm", lambda settings, cache: FakeHandle(lm))
    data = tmp_path / "data"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "")
    args = ["--dataset", str(path), "--threshold-trials", "2", "--no-progress", "--data-dir", str(data)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "2 train, 1 select (dev, select half), 1 report (dev, report half) questions" in err
    assert "plan: questions the LM answers, phase by phase" in err and "single pass (report)" in err
    folder = next((data / "runs").glob("optimize-mine-quick-labelled-*"))
    config = json.loads((folder / "config.json").read_text())
    assert (config["dataset"], len(config["dataset_sha256"])) == (str(path.resolve()), 64)
    assert "labelled demos: 2 of 2 train questions" in err
    assert out.startswith(f"outcome of job {folder.name}:\nprompts: ")  # a recap of what the phases decided
    written = " ".join(p.read_text(errors="replace") for p in folder.rglob("*") if p.suffix in (".json", ".jsonl"))
    assert "test 0:" not in written  # a test question is never run, recorded or shown as a demo
    selected = {json.loads(line)["qid"] for line in (folder / "select" / "results.jsonl").read_text().splitlines()}
    evaluated = {json.loads(line)["qid"] for line in (folder / "eval" / "results.jsonl").read_text().splitlines()}
    assert len(selected) == len(evaluated) == 1 and selected | evaluated == {"dev0", "dev1"}
    # run again, the finished job prints its stored outcome: no program, LM or MLflow run is started
    unchanged = {p: p.stat().st_mtime_ns for p in data.rglob("*") if p.is_file()}
    monkeypatch.setattr(job_command, "build_program", lambda settings: pytest.fail("a finished job built its program"))
    monkeypatch.setattr(job_command, "tracked_run", lambda *args: pytest.fail("a finished job opened an MLflow run"))
    assert main(args) == 0
    again, err = capsys.readouterr()
    assert again == out and "already finished: its results as stored (no LM call, nothing logged)" in err
    assert {p: p.stat().st_mtime_ns for p in data.rglob("*") if p.is_file()} == unchanged


class Tracking:
    """Records the metrics a job logs."""

    def __init__(self):
        self.metrics = {}

    def log_metrics(self, values, step=0):
        self.metrics |= values


def test_the_job_fits_the_confidence_on_its_compiled_validation_records_and_saves_it(tmp_path):
    from tests.optimize.calibration.conftest import overconfident, write_run

    folder = tmp_path / "run"
    compiled = [r.model_copy(update={"system": "compiled"}) for r in overconfident()]
    write_run(folder / "eval", compiled + overconfident(30, prefix="b"))  # "gated" stands for the baseline here
    config, tracking = load_config("quick"), Tracking()
    job = Job(config, Settings(data_dir=tmp_path / "data", _env_file=None), folder,
              SpendingGuard(config.caps, "dummy"), tracking, progress=False)
    program = GatedRAG(FakeSearch(DOCS))
    job._calibrate(program, "smoke")
    saved = json.loads((folder / PROGRAM).read_text())["calibrator"]
    assert saved["fitted_on"].startswith("run: 40 smoke records, in-sample; C ")
    assert program.calibrator.model_dump() == saved
    assert tracking.metrics["calibration.ece_before"] > tracking.metrics["calibration.ece_after"]


def test_a_candidate_kept_out_is_still_reported_on_held_out_questions_when_asked(tmp_path, monkeypatch, capsys):
    """With `report_rejected`, nothing shipped, the candidate (its demos and the searched thresholds)
    runs on the report questions beside the uncompiled program; the program written stays uncompiled."""
    worse = GatedRAG(FakeSearch([]))
    worse.synthesize.demos = [dspy.Example(question="q", evidence="e", short_answer="a", answer="a [1].")]
    monkeypatch.setattr(job_module, "labelled_candidates", lambda program, train, config: {"demos-1": worse})
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED), report_rejected=True)
    assert not outcome.decisions.prompts.ships
    assert [s.system for s in outcome.summary.systems] == ["baseline", "single_pass", "rejected"]
    assert "the program written is the uncompiled one. The candidate kept out" in outcome.table
    assert "95% CI" in outcome.table and (folder / "eval" / COMPARISON).exists()
    shipped = json.loads((folder / PROGRAM).read_text())
    assert not shipped["synthesize"]["demos"]
    assert json.loads((folder / "prompts_candidate.json").read_text())["synthesize"]["demos"]



def linked_site(tmp_path):
    """A seed page linking five decoys and ten topic pages, and one question per topic whose gold
    source is its page: blind link weights (all 0) fetch the decoys first, weight on the anchor finds it."""
    from tests.optimize.links.test_link_search import TOPICS
    from tests.optimize.links.test_traversal import page

    links = {f"Misc {n}": f"a-{n}.html" for n in range(5)} | {f"{t.title()} guide": f"z-{t}.html" for t in TOPICS}
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(page("Home", links))
    for name in links.values():
        (tmp_path / "site" / name).write_text(page(name))
    asked = [make_example(t, f"What does the {t} guide say?", [t], [f"z-{t}.html"]) for t in TOPICS]
    return tmp_path / "site", JobSets(asked[:4], asked[4:8], asked[8:], "dev, select half", "dev, report half")


def test_a_dataset_with_a_site_gets_its_link_weights_fitted_and_the_program_carries_them(tmp_path, capsys):
    """Walked from the seed page, the current (blind) weights reach no gold page and the searched
    ones reach them all, held out too: they ship in the program written, though no other component did."""
    from tests.optimize.links.test_link_search import BLIND

    site, asked = linked_site(tmp_path)
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED), GatedRAG(FakeSearch(DOCS), thresholds=BLIND), asked,
                                 site=site, seed_page="index.html", link_trials=20)
    links = outcome.decisions.links
    assert links.ships and links.line.startswith("link weights: shipping the searched weights")
    assert "on the 2 held-out questions, reach 1.000 with the searched weights against 0.000" in links.line
    assert links.line in capsys.readouterr().err and links.line in str(outcome)
    assert JobState.read(folder).done == ["prompts", "thresholds", "links", "judges", "done"]
    fit = json.loads((folder / "links" / "link_fit.json").read_text())
    written = json.loads((folder / PROGRAM).read_text())["thresholds"]
    assert {k: written[k] for k in fit["chosen"]} == fit["chosen"] != {k: getattr(BLIND, k) for k in fit["chosen"]}
    assert written["breadth_pages"] == BLIND.breadth_pages
    assert outcome.table.endswith("uncompiled one with the searched link weights, which only a walk from a seed URL "
                                  "reads, and its report is the baseline's")
    metrics = MlflowClient(tracking_uri(Settings(data_dir=tmp_path / "data", _env_file=None))).get_run(
        (folder / RUN_ID_FILE).read_text()).data.metrics
    assert metrics["links.shipped"] == 1.0 and metrics["links.held_out_reach_chosen"] == 1.0
    run_job(tmp_path, DummyLM(KEYED), GatedRAG(FakeSearch(DOCS), thresholds=BLIND), asked,
            site=site, seed_page="index.html", link_trials=20)
    assert json.loads((folder / PROGRAM).read_text())["thresholds"] == written  # resumed, not refitted


def test_a_dataset_without_a_site_has_no_links_phase(tmp_path):
    folder, outcome, _ = run_job(tmp_path, DummyLM(KEYED))
    assert outcome.decisions.links is None and not (folder / "links").exists()


@pytest.mark.parametrize("flags, says", [
    (["--site", "{site}"], "--site needs --seed"),
    (["--seed", "index.html"], "give --site"),
    (["--site", "{site}/nowhere", "--seed", "index.html"], "no site folder at "),
    (["--site", "{site}", "--seed", "home.html"], "the seed 'home.html' of question "),
    (["--site", "{site}", "--seed", "index.html", "--unlabelled"], "and no train or select question does"),
    (["--site", "{site}", "--seed", "index.html", "--oversized"], "(markdown or HTML, at most 1024 bytes)"),
])
def test_a_site_given_wrongly_ends_the_job_in_one_line_before_it_starts(tmp_path, capsys, monkeypatch, flags, says):
    from optimize.cli import main

    site, asked = linked_site(tmp_path)
    if "--oversized" in flags:  # a seed page the links phase would leave out, as ingest refuses it
        monkeypatch.setenv("GATEDRAG_INGEST_MAX_BYTES", "1024")
        (site / "index.html").write_text((site / "index.html").read_text() + " " * 1024)
    path = tmp_path / "mine.jsonl"
    unlabelled = "--unlabelled" in flags
    path.write_text("".join(json.dumps({"id": e.qid, "question": e.question, "answers": e.answers,
                                        "gold_sources": [] if unlabelled else e.gold_sources, "split": "dev"}) + "\n"
                            for e in asked.train + asked.select + asked.report))
    data = tmp_path / "data"
    flags = [f.replace("{site}", str(site)) for f in flags if f not in ("--unlabelled", "--oversized")]
    assert main(["--dataset", str(path), "--no-progress", "--data-dir", str(data), *flags]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and not (data / "runs").exists()
