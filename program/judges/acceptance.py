"""`acceptance`: P(this draft is right), from the draft's checks, the evidence's sufficiency and the judge.

Its features (`FEATURES`) are what the loop measured of the draft it is about to give, as numbers
(`draft_checks`): how much of the short answer its cited passages use, how on topic and how reached
the passage it comes from is, whether it says "unknown", only echoes the question's words, or
fits what the question asks for (`program.signals.fits_question`: a yes or no only where one is
asked, a number for a count, no lone year for "how long", one of the options offered), the sufficiency model's
P(the evidence holds the answer), the judge's confidence when it ran, and the LM's mean token
log-probability over the short answer when the LM returns them. The label it is fitted to
(`python -m optimize fit-acceptance`) is "this draft is right": F1 >= 0.5 against the gold answer,
never on an unanswerable question. Its probability is the answer's reported confidence, and the
gate's release (`program.gate.decide_release`) answers only when it beats the wrong answer's cost.
The default model ships as `program/assets/judges/acceptance.json`, fitted jointly on the labelled
corpora's answers; a saved program may carry its own.
This module decides nothing and reads no files.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from program.answer.short_answer import says_unknown
from program.gate import Progress
from program.judges.logistic import LogisticModel
from program.signals import echoes_question, fits_question

FEATURES = ("sufficiency", "support", "similarity", "reached", "unknown", "echo", "type_fit", "judged",
            "judge_confidence", "logprob")


def draft_checks(p: Progress, short_answer: str, sufficiency: float, judge_confidence: float | None,
                 logprob: float | None) -> dict[str, float]:
    """The draft's checks as named numbers; `logprob` is left out when the LM gave none (it then reads
    as the model's mean)."""
    checks = {"sufficiency": sufficiency, "support": p.answer_support,
              # subtle: no cited source reads as no similarity, the worst a source can be
              "similarity": p.answer_similarity if p.answer_similarity is not None else 0.0,
              "reached": float(p.answer_reached), "unknown": float(says_unknown(short_answer)),
              "echo": float(echoes_question(short_answer, p.question)),
              "type_fit": float(fits_question(short_answer, p.question)),
              "judged": float(judge_confidence is not None), "judge_confidence": judge_confidence or 0.0}
    return checks | ({"logprob": logprob} if logprob is not None else {})


class AcceptanceModel(LogisticModel):
    """P(right) = sigmoid(w . (x - mean) / scale + b) over `FEATURES`, with the release threshold it was fitted for."""

    FEATURES: ClassVar[tuple[str, ...]] = FEATURES
    ASSET: ClassVar[str] = "acceptance.json"

    threshold: float | None = Field(None, ge=0.0, le=1.0, description="answer when P(right) is at least this, chosen "
                                    "by conformal risk control for `max_wrong_rate`; None: by the wrong answer's cost")
    max_wrong_rate: float | None = Field(None, gt=0.0, lt=1.0, description="the wrong rate among answers the "
                                         "threshold was chosen to bound, on held-out questions")
