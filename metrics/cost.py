"""Latency and cost of one answer: wall time, LM calls and tokens, retrieval rounds, dollars.

Dollars use LiteLLM's price table for the model when it knows it (gpt-4o-mini, say), zero for
the local model, and None when the price is unknown: an unknown price is never shown as free.
This module reads the result's trace; it does not time anything itself.
"""

from __future__ import annotations

from pydantic import BaseModel

LOCAL_PREFIXES = ("llamacpp/", "openai/local", "qwen2.5-coder")


class Cost(BaseModel):
    wall_s: float = 0.0
    lm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    web_searches: int = 0
    doc_queries: int = 0
    dollars: float | None = 0.0


def latency_and_cost(pred, model: str | None = None) -> Cost:
    result = getattr(pred, "result", None)
    if result is None:
        return Cost()
    used = result.trace.resources
    cost = Cost(wall_s=result.timing.total_s, lm_calls=used.lm.calls, prompt_tokens=used.lm.prompt,
                completion_tokens=used.lm.completion, web_searches=used.web_searches, doc_queries=used.doc_queries)
    cost.dollars = dollars(model, cost.prompt_tokens, cost.completion_tokens)
    return cost


def dollars(model: str | None, prompt_tokens: int, completion_tokens: int) -> float | None:
    if model is None or model.startswith(LOCAL_PREFIXES):
        return 0.0
    price = _price(model)
    if price is None:
        return None
    return prompt_tokens * price["input_cost_per_token"] + completion_tokens * price["output_cost_per_token"]


def _price(model: str) -> dict | None:
    import litellm  # imported late: it is slow to import and only priced models need it

    entry = litellm.model_cost.get(model) or litellm.model_cost.get(model.split("/", 1)[-1])
    if not entry or "input_cost_per_token" not in entry or "output_cost_per_token" not in entry:
        return None
    return entry
