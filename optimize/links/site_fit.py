"""The link weights fitted to a labelled dataset's site: what `python -m optimize links` runs, and
the optimize job's links phase.

The site is a folder of pages (`--site`), or for `aws_docs` its bundled guides, unpacked for the
fit and removed after it; each question starts from its seed page (`optimize.links.seeds`). The
search fits on the questions given. Questions held out from it (the job's report questions) are
then walked under the current and the chosen weights, a check that no trial saw. No LM is run and
no page is fetched.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from pathlib import Path

from optimize.links.link_search import LinkFit, fit_link_weights, walks
from optimize.links.questions import link_questions
from optimize.links.site import read_site
from program.base.command_line import UsageError
from program.retrieval.aws_corpus import unpack_guides
from program.retrieval.embeddings import load_embedder
from program.thresholds import Thresholds


def labelled(examples: list) -> list:
    """The questions a walk can score: those whose label names a gold source to reach."""
    return [e for e in examples if getattr(e, "gold_sources", None)]


def fit_to_site(settings, site: Path | None, seed: str, examples: list, current: Thresholds, *,
                trials: int, latency_weight: float, seed_number: int, folder: Path, progress: bool = True,
                held_out: list = ()) -> LinkFit:
    """The link weights searched on `examples` from their seed pages (`seed`, `{top}` filled in per
    question), with the reach of `held_out` under the current and the chosen weights. No `site`:
    the AWS guides."""
    with _site_folder(settings, site) as root:
        pages = read_site(root, settings.ingest_max_bytes)
        dense = load_embedder(settings).dense
        try:
            questions = link_questions(pages, examples, seed, dense)
            checked = link_questions(pages, list(held_out), seed, dense) if held_out else []
        except ValueError as error:
            raise UsageError(str(error)) from None
        print(f"link weights: {len(questions)} questions, {len(pages.pages)} pages", file=sys.stderr)
        fit = fit_link_weights(pages, questions, current, trials, latency_weight, seed_number, folder, progress)
        if not checked:
            return fit
        chosen = current.model_copy(update=fit.chosen)
        return fit.model_copy(update={"held_out": walks(pages, checked, current, chosen)})


def fit_table(fit: LinkFit) -> str:
    """The per-question table: pages spent until a gold page was held, under each set of weights."""
    shown = lambda reached: "–" if reached is None else str(reached)  # noqa: E731
    lines = [f"{fit.line}\n", "| question | current weights: pages to gold | chosen weights: pages to gold |",
             "|---|---|---|"]
    lines += [f"| {r.qid}: {r.question[:70]} | {shown(r.reached_current)} | {shown(r.reached_chosen)} |"
              for r in fit.rows]
    weights = ", ".join(f"{k} {fit.current[k]:.2f} -> {fit.chosen[k]:.2f}" for k in fit.current)
    return "\n".join([*lines, "", f"weights: {weights}", ""])


@contextlib.contextmanager
def _site_folder(settings, site: Path | None):
    if site is not None:
        yield site
        return
    with tempfile.TemporaryDirectory() as unpacked:
        yield unpack_guides(settings, Path(unpacked))
