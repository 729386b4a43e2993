"""Was the final draft right, whether the learned release gave it or withheld it?

The acceptance model (`program.judges.acceptance`) learns P(this draft is right) from the draft's
checks (`Trace.draft_checks`). Its labels must not depend on the release that was in force when
the answers were recorded: a withheld draft is an abstention, and an abstention's F1 says nothing
about the draft. So the release step keeps the short answer it weighed, and this scores that one.
Right: an answerable question, and F1 of at least `RIGHT_F1` against the best gold answer; on an
unanswerable question no draft is right. None: no draft was weighed (the loop abstained first,
or an old record). This module decides nothing.
"""

from __future__ import annotations

from metrics.answer_quality import abstained, best_f1, short_answer_text
from metrics.outcome import RIGHT_F1


def draft_right(example, pred) -> bool | None:
    result = getattr(pred, "result", None)
    if result is None or not result.trace.draft_checks:
        return None
    draft = withheld_draft(result) if abstained(pred) else short_answer_text(pred)
    if draft is None:
        return None
    return bool(example.answerable) and best_f1(example, draft) >= RIGHT_F1


def withheld_draft(result) -> str | None:
    """The short answer the release withheld, as its step recorded it."""
    return next((s.short_answer for s in reversed(result.trace.steps) if s.action == "release"), None)
