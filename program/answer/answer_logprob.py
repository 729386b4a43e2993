"""How sure the LM was of its short answer: the mean log-probability of the tokens that wrote it.

The LM returns each output token's log-probability when asked (`logprobs=True`: llama.cpp's server and
OpenAI's API both do); DSPy hands them back with the prediction. The short answer is found where the
completion writes it, after its field's name, and the tokens overlapping it are averaged. None when the
LM gave no log-probabilities or the short answer is not in the completion as written (an escaped quote).
"""

from __future__ import annotations

from typing import Any


def mean_logprob(logprobs: Any, value: str, field: str = "short_answer") -> float | None:
    tokens = _tokens(logprobs)
    if not tokens or not value.strip():
        return None
    text = "".join(token for token, _ in tokens)
    start = text.find(value, max(0, text.find(field)))
    if start < 0:
        return None
    end, at, picked = start + len(value), 0, []
    for token, logprob in tokens:
        if at < end and at + len(token) > start:
            picked.append(logprob)
        at += len(token)
    return sum(picked) / len(picked) if picked else None


def _tokens(logprobs: Any) -> list[tuple[str, float]]:
    """(token, log-probability) pairs from OpenAI's shape, as a dict or as the client's objects."""
    content = logprobs.get("content") if isinstance(logprobs, dict) else getattr(logprobs, "content", None)
    pairs = []
    for item in content or []:
        token = item.get("token") if isinstance(item, dict) else getattr(item, "token", None)
        logprob = item.get("logprob") if isinstance(item, dict) else getattr(item, "logprob", None)
        if isinstance(token, str) and isinstance(logprob, (int, float)):
            pairs.append((token, float(logprob)))
    return pairs
