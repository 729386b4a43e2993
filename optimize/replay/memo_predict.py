"""Predictors that remember their predictions, so a replayed trial formats and parses no prompt it has seen.

Against a recording the LM is deterministic: the same predictor asked the same inputs gets the
same prompt, so the same reply. Trials under other thresholds ask mostly what earlier trials
asked, and formatting the prompt and parsing the reply through DSPy's adapter was a third of a
replayed question's time. The prediction (or the error of a reply that could not be read) is kept
with the LM usage its call added, which is added again on each reuse, so the replay still counts
the tokens a real run would spend.
"""

from __future__ import annotations

import json
from typing import Any

import dspy


class MemoPredict:
    def __init__(self, predictor: dspy.Predict):
        self._predictor = predictor
        self._done: dict[tuple, tuple[dspy.Prediction, dict[str, list]]] = {}
        self._answering: dict[int, object] = {}  # what answered (a replay's recording), held so its id stays its own

    def __call__(self, **inputs) -> dspy.Prediction:
        # a replay LM is made for each replay, its recording kept for the whole search
        answering = getattr(dspy.settings.lm, "recording", dspy.settings.lm)
        self._answering.setdefault(id(answering), answering)
        key = (id(answering), json.dumps(inputs, sort_keys=True, default=str))
        if key not in self._done:
            with dspy.track_usage() as used:  # rolled up into the caller's tracker as it ends
                try:
                    outcome = self._predictor(**inputs)
                except Exception as error:  # noqa: BLE001 - an unreadable reply is as deterministic as a reply
                    outcome = error
            self._done[key] = outcome, {lm: list(entries) for lm, entries in used.usage_data.items()}
        else:
            outcome, usage = self._done[key]
            if (tracker := dspy.settings.usage_tracker) is not None:
                for lm, entries in usage.items():
                    tracker.usage_data[lm].extend(entries)
        if isinstance(outcome, Exception):
            raise outcome.with_traceback(None)
        return dspy.Prediction(**outcome.toDict())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_predictor":
            raise AttributeError(name)
        return getattr(self._predictor, name)  # its signature and config, which the loop reads

    def __deepcopy__(self, memo) -> MemoPredict:
        return self  # a program's copy for a trial shares what was already predicted
