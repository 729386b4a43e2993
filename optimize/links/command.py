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
import sys
import tempfile
from pathlib import Path

from optimize.durable import write_atomic
from optimize.eval.example_schema import DatasetError
from optimize.eval.examples import TEST, load_examples, resolve_dataset
from optimize.eval.run_config import runs_dir
from optimize.links.link_search import LinkFit, fit_link_weights
from optimize.links.questions import link_questions
from optimize.links.site import read_site
from program.assembly.loading import read_state
from program.base.command_line import UsageError, settings_from_args
from program.loop import saved_thresholds
from program.retrieval.aws_corpus import unpack_guides
from program.retrieval.embeddings import load_embedder
from program.thresholds import Thresholds

AWS_SEED = "{top}/doc_source/index.md"


def links_command(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, data_dir="data_dir")
    if args.split == TEST:
        raise UsageError("the test split is for final reports only: fit the link weights on another split")
    examples = _examples(settings, args)
    current, state = _current(args.program)
    with tempfile.TemporaryDirectory() as unpacked:
        site_folder, seed = _site_and_seed(settings, args, Path(unpacked))
        site = read_site(site_folder, settings.ingest_max_bytes)
        try:
            questions = link_questions(site, examples, seed, load_embedder(settings).dense)
        except ValueError as error:
            raise UsageError(str(error)) from None
        folder = runs_dir(settings) / _run_name(args, site_folder, seed, current)
        print(f"link weights: {len(questions)} questions, {len(site.pages)} pages -> {folder}", file=sys.stderr)
        fit = fit_link_weights(site, questions, current, args.trials, args.latency_weight, args.seed_number,
                               folder / "trials", args.progress)
    write_atomic(folder / "link_fit.json", fit.model_dump_json(indent=2))
    write_atomic(folder / "link_fit.md", _table(fit))
    if fit.ships and state is not None:
        state["thresholds"] = state.get("thresholds", {}) | fit.chosen
        write_atomic(folder / "program.json", json.dumps(state, indent=2))
    print(_table(fit))
    if fit.ships and state is not None:
        print(f"program with the searched weights: {folder / 'program.json'}")
    return 0


def _examples(settings, args) -> list:
    try:
        examples = load_examples(settings, resolve_dataset(args.dataset), args.split, args.limit)
    except DatasetError as error:
        raise UsageError(str(error)) from None
    labelled = [e for e in examples if getattr(e, "gold_sources", None)]
    if not labelled:
        raise UsageError(f"no question of {args.dataset} ({args.split}) names a gold source to reach")
    return labelled


def _current(program: Path | None) -> tuple[Thresholds, dict | None]:
    """The thresholds the search starts from: the program's, or the defaults."""
    if program is None:
        return Thresholds(), None
    state = read_state(program)
    return saved_thresholds(state), state


def _site_and_seed(settings, args, unpacked: Path) -> tuple[Path, str]:
    if args.site is not None:
        if args.seed is None:
            raise UsageError("--site needs --seed: the path of the page each question starts from")
        return args.site, args.seed
    if args.dataset != "aws_docs":
        raise UsageError("give --site (a folder of the site's pages) and --seed (a page in it)")
    return unpack_guides(settings, unpacked), args.seed or AWS_SEED


def _run_name(args, site: Path, seed: str, current: Thresholds) -> str:
    """The same inputs name the same folder, whose trials journal the search resumes."""
    key = json.dumps([args.dataset, args.split, args.limit, str(site.resolve()) if args.site else "", seed,
                      current.model_dump(), args.trials, args.latency_weight, args.seed_number])
    label = Path(args.dataset).stem
    return f"links-{label}-{args.split}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"


def _table(fit: LinkFit) -> str:
    """The per-question table: pages spent until a gold page was held, under each set of weights."""
    shown = lambda reached: "–" if reached is None else str(reached)  # noqa: E731
    lines = [f"{fit.line}\n", "| question | current weights: pages to gold | chosen weights: pages to gold |",
             "|---|---|---|"]
    lines += [f"| {r.qid}: {r.question[:70]} | {shown(r.reached_current)} | {shown(r.reached_chosen)} |"
              for r in fit.rows]
    weights = ", ".join(f"{k} {fit.current[k]:.2f} -> {fit.chosen[k]:.2f}" for k in fit.current)
    return "\n".join([*lines, "", f"weights: {weights}", ""])
