"""`python -m optimize links`: fit the link score's weights to a site folder and labelled questions
(its flags: `optimize.links.parsers`).

Each question starts from its seed page (`--seed`, a path in the site folder; `{top}` in it stands
for the first folder of the question's first gold source, so that a site of several guides seeds
each question at its own guide). The questions' traversals are replayed offline under each trial's
weights (`optimize.links.link_search`), with the dense model embedding link texts once. The run
folder (under `<data dir>/runs`, named by the inputs, so the same command resumes its trials) gets
`link_fit.json`, `link_fit.md` (the per-question table) and, when the searched weights ship and
`--program` names a program, that program with them as `program.json`; the given file is never
changed. `--dataset aws_docs` needs neither `--site` nor `--seed`: its guides are unpacked from the
bundled archive and each question is seeded at its guide's `doc_source/index.md`. The test split
is refused: it is for final reports. No LM is run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from optimize.durable import write_atomic
from optimize.eval.example_schema import DatasetError
from optimize.eval.examples import TEST, load_examples, resolve_dataset
from optimize.eval.run_config import runs_dir
from optimize.links.seeds import seed_page
from optimize.links.site_fit import fit_table, fit_to_site, labelled
from program.assembly.loading import read_state
from program.base.command_line import UsageError, settings_from_args
from program.loop import saved_thresholds
from program.thresholds import Thresholds


def links_command(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, data_dir="data_dir")
    if args.split == TEST:
        raise UsageError("the test split is for final reports only: fit the link weights on another split")
    seed = seed_page(args.dataset, args.site, args.seed)
    examples = _examples(settings, args)
    current, state = _current(args.program)
    folder = runs_dir(settings) / _run_name(args, seed, current)
    fit = fit_to_site(settings, args.site, seed, examples, current, trials=args.trials,
                      latency_weight=args.latency_weight, seed_number=args.seed_number, folder=folder / "trials",
                      progress=args.progress)
    write_atomic(folder / "link_fit.json", fit.model_dump_json(indent=2))
    write_atomic(folder / "link_fit.md", fit_table(fit))
    if fit.ships and state is not None:
        state["thresholds"] = state.get("thresholds", {}) | fit.chosen
        write_atomic(folder / "program.json", json.dumps(state, indent=2))
    print(fit_table(fit))
    print(f"per-question table: {folder / 'link_fit.md'}")
    if fit.ships and state is not None:
        print(f"program with the searched weights: {folder / 'program.json'}")
    return 0


def _examples(settings, args) -> list:
    try:
        examples = labelled(load_examples(settings, resolve_dataset(args.dataset), args.split, args.limit))
    except DatasetError as error:
        raise UsageError(str(error)) from None
    if not examples:
        raise UsageError(f"no question of {args.dataset} ({args.split}) names a gold source to reach")
    return examples


def _current(program: Path | None) -> tuple[Thresholds, dict | None]:
    """The thresholds the search starts from: the program's, or the defaults."""
    if program is None:
        return Thresholds(), None
    state = read_state(program)
    return saved_thresholds(state), state


def _run_name(args, seed: str, current: Thresholds) -> str:
    """The same inputs name the same folder, whose trials journal the search resumes."""
    key = json.dumps([args.dataset, args.split, args.limit, str(args.site.resolve()) if args.site else "", seed,
                      current.model_dump(), args.trials, args.latency_weight, args.seed_number])
    label = Path(args.dataset).stem
    return f"links-{label}-{args.split}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"
