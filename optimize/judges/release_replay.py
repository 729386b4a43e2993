"""What the learned release would have returned on a recorded answer, with no LM.

The release (`program.gate.decide_release`) is the loop's last step and reads only the final
draft's checks (`Trace.draft_checks`), so applying it to a record of the `learned` system with
another acceptance model, or another threshold, is what that program would have returned. A record
with no labelled draft (`optimize.judges.acceptance_fit.draft_label`) keeps what it did. Used by the
optimize job's release phase and by `bench/loco_release.py`. This module reads no files.
"""

from __future__ import annotations

from optimize.eval.records import Record
from optimize.judges.acceptance_fit import draft_label
from program.gate import decide_release
from program.judges.acceptance import AcceptanceModel
from program.thresholds import Thresholds


def gives(record: Record, model: AcceptanceModel, t: Thresholds) -> bool:
    """Whether the learned release with `model` gives the record's final draft."""
    return given_at(record, p_right(record, model), t, model.threshold)


def p_right(record: Record, model: AcceptanceModel) -> float | None:
    """`model`'s P(right) for the record's final draft; None when it has no labelled draft."""
    return model.probability(record.result.trace.draft_checks) if draft_label(record) is not None else None


def given_at(record: Record, p_right: float | None, t: Thresholds, threshold: float | None) -> bool:
    """Whether the release gives the record's final draft at `p_right`; None (no labelled draft): the
    loop's own ending stands."""
    if p_right is None:
        return record.result is not None and not record.result.abstained
    return decide_release(p_right, t, threshold).action == "answer"


def released(record: Record, given: bool) -> float:
    """The record's net right once the release has weighed its draft: right or wrong when given; when
    withheld, 0, or 1 on an unanswerable question, where abstaining is right."""
    label = draft_label(record)
    if label is None:
        return record.scores.net_right or 0.0
    if given:
        return 1.0 if label else -1.0
    return 0.0 if record.answerable else 1.0
