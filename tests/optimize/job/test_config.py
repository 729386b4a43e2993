"""Presets, config files and flags, in that order; bad config fails with its reason."""

import json
from pathlib import Path

import pytest

from optimize.cli import main as optimize_main
from optimize.job.config import load_config
from program.base.settings import DEFAULT_LOCAL_MODEL


def test_flags_beat_the_config_file_which_beats_the_preset(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('optimizer = "gepa"\ntrain_limit = 9\n[caps]\nlm_calls = 500\n')
    config = load_config("quick", path, {"train_limit": 3, "select_limit": None})
    assert (config.optimizer, config.train_limit, config.select_limit, config.caps.lm_calls) == ("gepa", 3, 16, 500)
    assert config.run_id != load_config("quick").run_id
    assert load_config("quick", overrides={"single_pass": False}).run_id != load_config("quick").run_id


@pytest.mark.parametrize("preset, text, reason", [("nope", None, "no preset 'nope'"),
                                                   ("quick", "optimizer = 'magic'", "optimizer"),
                                                   ("quick", "train_limit = ", "not valid TOML")])
def test_bad_config_says_what_is_wrong(tmp_path, preset, text, reason):
    path = None
    if text is not None:
        path = tmp_path / "bad.toml"
        path.write_text(text)
    with pytest.raises(ValueError, match=reason):
        load_config(preset, path)


def test_the_presets_splits_are_hotpotqas_and_another_dataset_is_in_the_run_id(tmp_path):
    quick = load_config("quick")
    assert (quick.val_split, quick.report_split) == ("dev", "smoke")
    assert (load_config("standard").val_split, load_config("standard").report_split) == ("dev", None)
    mine = load_config("quick", overrides={"dataset": "/data/mine.jsonl"})
    assert (mine.val_split, mine.report_split) == (None, None)  # the dataset's own validation split, halved
    assert load_config("quick", overrides={"dataset": "/data/mine.jsonl", "val_split": "holdout"}).val_split == "holdout"
    assert mine.run_id.startswith("optimize-mine-quick-labelled-")
    other = mine.model_copy(update={"dataset_sha256": "0" * 64})
    assert other.run_id != mine.run_id  # another file content, another run
    assert load_config("quick").run_id == "optimize-quick-labelled-" + load_config("quick").run_id.rsplit("-", 1)[1]


def test_another_serving_lm_is_another_run_and_the_default_keeps_older_ids():
    quick = load_config("quick")
    assert quick.model == DEFAULT_LOCAL_MODEL
    assert quick.model_copy(update={"model": "qwen2.5-coder-1.5b"}).run_id != quick.run_id
    assert quick.model_copy(update={"model": "gpt-4o-mini"}).run_id != quick.run_id


def resume(tmp_path: Path, config_text: str) -> tuple[list[str], Path]:
    """The job's argv resuming a run folder whose config.json holds `config_text`."""
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps({"question": f"Q{i}?", "answer": "a", "split": split}) + "\n"
                                 for i, split in enumerate(["train", "train", "validation", "validation"])))
    made = tmp_path / "run"
    made.mkdir()
    (made / "config.json").write_text(config_text)
    return ["run", "--dataset", str(questions), "--resume", str(made), "--data-dir", str(tmp_path / "data")], made


def test_a_run_made_with_another_lm_is_not_resumed(capsys, tmp_path):
    argv, made = resume(tmp_path, json.dumps({"preset": "quick", "model": "qwen2.5-coder-1.5b"}))
    assert optimize_main(argv) == 2
    err = capsys.readouterr().err
    assert err == (f"error: run run was made with qwen2.5-coder-1.5b, not {DEFAULT_LOCAL_MODEL}: resume it with that "
                   "model (--local-model, or --profile / GATEDRAG_LM)\n")
    assert sorted(p.name for p in made.iterdir()) == ["config.json"]


def test_a_resumed_folder_whose_config_is_not_an_object_is_refused(capsys, tmp_path):
    argv, made = resume(tmp_path, "[1, 2]")
    assert optimize_main(argv) == 2
    assert capsys.readouterr().err == f"error: {made / 'config.json'}: not an optimize run's config (a JSON object)\n"
