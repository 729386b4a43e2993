"""Support judges: does a set of passages support a claim? Used by citation faithfulness.

`LexicalSupportJudge` is the cheap fallback: enough of the claim's content words, and all of
its numbers, appear in the passages. `LMSupportJudge` asks an LM (the profile's, or a stronger
one passed in) with the `JudgeSupport` signature; a malformed output falls back to the lexical
verdict. `python -m metrics.calibrate` measures both on WiCE. Verdicts are cached per call.
"""

from __future__ import annotations

import threading
from typing import Literal, Protocol

import dspy
from pydantic import ValidationError

from program.answer.factuality import lexical_support
from signatures import JudgeSupport

# chosen on WiCE dev with `python -m metrics.calibrate --judge lexical` (best balanced accuracy)
LEXICAL_THRESHOLD = 0.3


class SupportJudge(Protocol):
    name: str

    def __call__(self, claim: str, passages: list[str]) -> bool: ...


class LexicalSupportJudge:
    name = "lexical"

    def __init__(self, threshold: float = LEXICAL_THRESHOLD):
        self.threshold = threshold

    def __call__(self, claim: str, passages: list[str]) -> bool:
        return self.score(claim, passages) >= self.threshold

    def score(self, claim: str, passages: list[str]) -> float:
        """Share of the claim's content words found in the passages; 0 if a number is missing."""
        return lexical_support(claim, passages)


class LMSupportJudge:
    name = "lm"

    def __init__(self, lm: dspy.BaseLM | None = None, fallback: LexicalSupportJudge | None = None):
        self.lm, self.fallback = lm, fallback or LexicalSupportJudge()
        self.predict = dspy.Predict(JudgeSupport, max_tokens=24)
        self._cache: dict[tuple[str, tuple[str, ...]], bool] = {}
        self._lock = threading.Lock()

    def __call__(self, claim: str, passages: list[str]) -> bool:
        key = (claim, tuple(passages))
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        verdict = self._ask(claim, passages) if passages else False
        with self._lock:
            self._cache[key] = verdict
        return verdict

    def _ask(self, claim: str, passages: list[str]) -> bool:
        try:
            with dspy.context(**({"lm": self.lm} if self.lm is not None else {})):
                return self.predict(claim=claim, passages=passages).supported is True
        except (dspy.utils.exceptions.AdapterParseError, ValidationError, ValueError):
            return self.fallback(claim, passages)


def build_support_judge(kind: Literal["lexical", "lm"] = "lexical", lm: dspy.BaseLM | None = None) -> SupportJudge:
    if kind == "lexical":
        return LexicalSupportJudge()
    if kind == "lm":
        return LMSupportJudge(lm)
    raise ValueError(f"unknown support judge {kind!r}; choose lexical or lm")
