"""The job's judges phase, decided: does a refit of each learned judge beat its default on questions it
never saw, and does the learned release beat the program's own on the select questions?

- **A judge's refit** (`optimize.judges.prior_fit`, starting from the program's model as the prior)
  ships when its log loss on held-out questions is lower than the prior's, with the paired 95%
  interval of the gain over questions above 0. Otherwise the program keeps its model.
- **The release.** The learned release, with whichever acceptance model won, is replayed on the
  learned run's select records (`optimize.judges.release_replay`), each question's P(right) from a
  model that never saw it, and compared with the program's own release's records of the same
  questions by net right (+1 right, -1 wrong, 0 abstained; abstaining is right on an unanswerable
  question). It ships under the keep rule's test: the paired 95% interval of the gain above 0.
  With a target wrong rate, its threshold is picked on those held-out probabilities by conformal
  risk control (`optimize.judges.risk_control`).

This module decides; it runs no LM and writes no files.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from optimize.eval.records import Record
from optimize.eval.stats import paired_delta_ci
from optimize.job.keep_rule import Verdict
from optimize.judges.acceptance_fit import labelled
from optimize.judges.prior_fit import HeldOut, features, held_out, probabilities, refit, row_losses
from optimize.judges.release_replay import given_at, released
from optimize.judges.risk_control import acceptance_threshold
from program.judges.acceptance import AcceptanceModel
from program.judges.logistic import LogisticModel
from program.thresholds import Thresholds

MIN_EACH = 2  # labels of each kind a refit needs; under that the prior stands untested


class Refit(NamedTuple):
    model: LogisticModel  # the refit when it ships, else the prior
    verdict: Verdict
    held_out: np.ndarray  # each row's P from whichever model won, by a model that never saw its question


def judge_refit(component: str, prior: LogisticModel, rows: list[dict[str, float]], labels: list[bool],
                groups: list[str], fitted_on: str) -> Refit:
    """The prior refitted on the rows, and whether the refit beats it on held-out questions."""
    x, y = features(prior, rows), np.array(labels, dtype=float)
    kinds = int(y.sum()), int(len(y) - y.sum())
    if min(kinds) < MIN_EACH or len(set(groups)) < 2:
        line = (f"{component}: keeping the default model; {len(y)} labelled rows of {len(set(groups))} questions "
                f"({kinds[0]} positive) are too few to refit on")
        return Refit(prior, Verdict(component=component, candidate="the refit", ships=False, line=line),
                     probabilities(prior, x))
    held = held_out(prior, x, y, groups)
    gain = _per_question_gain(held, y, groups)
    ships = gain.direction == 1
    numbers = (f"held-out log loss {float(np.mean(row_losses(held.refit, y))):.3f} against the default's "
               f"{float(np.mean(row_losses(held.prior, y))):.3f}, paired gain {gain.mean:+.3f} [{gain.low:+.3f}, "
               f"{gain.high:+.3f}] over {len(set(groups))} questions ({len(y)} rows)")
    if not ships:
        line = f"{component}: keeping the default model; the refit did not beat it ({numbers})"
        return Refit(prior, Verdict(component=component, candidate="the refit", ships=False, line=line), held.prior)
    model = refit(prior, x, y, groups, fitted_on)
    line = f"{component}: shipping the refit ({numbers})"
    return Refit(model, Verdict(component=component, candidate="the refit", ships=True, line=line), held.refit)


def judge_release(current: list[Record], learned: list[Record], p_right: dict[str, float], model: AcceptanceModel,
                  t: Thresholds) -> Verdict:
    """The learned release on the learned run's records, each draft weighed at its held-out P(right),
    against the program's own release on the same questions, by net right."""
    mine, theirs = {r.qid: r for r in learned}, {r.qid: r for r in current}
    questions = sorted(set(mine) & set(theirs))
    learned_t = t.model_copy(update={"release": "learned"})
    given = [given_at(mine[q], p_right.get(q), learned_t, model.threshold) for q in questions]
    nets = [released(mine[q], g) for q, g in zip(questions, given)]
    own = [theirs[q].scores.net_right or 0.0 for q in questions]
    gain = paired_delta_ci(own, nets)
    ships = bool(questions) and gain.direction == 1
    numbers = (f"net right {np.mean(nets) if nets else 0.0:+.3f} against {np.mean(own) if own else 0.0:+.3f}, paired "
               f"gain {gain.mean:+.3f} [{gain.low:+.3f}, {gain.high:+.3f}] on {len(questions)} select questions, "
               f"P(right) held out; it answers {sum(given)} of them")
    none = ": abstaining beat every draft the reader wrote here" if ships and not any(given) else ""
    line = (f"release: shipping the learned release ({numbers}){none}" if ships else
            f"release: keeping the program's release ({t.release}); the learned release did not beat it ({numbers})")
    return Verdict(component="release", candidate="the learned release", ships=ships, line=line)


def release_threshold(p_right: list[float], rights: list[bool], max_wrong_rate: float | None) -> float | None:
    """The threshold bounding the wrong rate among answers at `max_wrong_rate`, picked on held-out
    probabilities; 1.0 when none meets it (answer nothing rather than break the bound); None without a target."""
    if max_wrong_rate is None:
        return None
    threshold = acceptance_threshold(p_right, rights, max_wrong_rate)
    return 1.0 if threshold is None else threshold


def acceptance_rows(records: list[Record]) -> tuple[list[Record], list[dict[str, float]], list[bool]]:
    """The records whose final draft was measured and labelled, their checks and their labels."""
    kept = labelled(records)
    return [r for r, _ in kept], [r.result.trace.draft_checks for r, _ in kept], [label for _, label in kept]


def _per_question_gain(held: HeldOut, y: np.ndarray, groups: list[str]):
    """The prior's mean log loss minus the refit's, per question, with its paired interval."""
    order = sorted(set(groups))
    index = {g: [i for i, found in enumerate(groups) if found == g] for g in order}
    per = lambda p: [float(np.mean(row_losses(p[index[g]], y[index[g]]))) for g in order]  # noqa: E731
    return paired_delta_ci(per(held.refit), per(held.prior))
