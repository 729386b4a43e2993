"""Answer quality against the gold answer: exact match, token F1 and answer coverage.

EM and F1 score the short answer (`Result.short_answer`: the entity, yes/no, number or date the
question asks for); an abstention scores as the empty answer; a prediction without a short
answer (old results, plain predictions) falls back to its answer text. Coverage reads the cited
explanation (`answer`). The normalisation is HotpotQA's official one (lowercase, drop
punctuation, the articles a/an/the and extra whitespace), and F1 is 0 when either side is
yes/no/noanswer and they differ, as in `hotpot_evaluate_v1.py`. The [n] citation markers are
removed first. This module does not look at evidence or citations.
"""

from __future__ import annotations

import re
import string
from collections import Counter

_CITATION = re.compile(r"\s*\[\d+(?:\s*,\s*\d+)*\]")
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SPECIAL = ("yes", "no", "noanswer")


def normalize_answer(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def answer_text(pred) -> str:
    """The prediction's answer without its [n] markers."""
    return _CITATION.sub("", str(getattr(pred, "answer", "") or ""))


def short_answer_text(pred) -> str:
    """What EM and F1 score: the short answer, "" after an abstention, else the answer text."""
    if abstained(pred):
        return ""
    result = getattr(pred, "result", None)
    if result is not None and result.short_answer.strip():
        return _CITATION.sub("", result.short_answer)
    return answer_text(pred)


def abstained(pred) -> bool:
    """The program said the evidence does not hold the answer, and gave none."""
    result = getattr(pred, "result", None)
    return result is not None and result.abstained


def exact_match(example, pred, trace=None) -> float | bool:
    hit = normalize_answer(short_answer_text(pred)) == normalize_answer(example.answer)
    return hit if trace is not None else float(hit)


def token_f1(example, pred, trace=None) -> float | bool:
    f1 = _f1(normalize_answer(short_answer_text(pred)), normalize_answer(example.answer))
    return f1 == 1.0 if trace is not None else f1


def answer_coverage(example, pred, trace=None) -> float | bool:
    """Share of the gold answer's tokens present anywhere in the answer: a long answer that
    contains the gold one scores 1 here, where exact match scores 0."""
    gold = normalize_answer(example.answer).split()
    said = set(normalize_answer(answer_text(pred)).split())
    coverage = sum(t in said for t in gold) / len(gold) if gold else 0.0
    return coverage == 1.0 if trace is not None else coverage


def _f1(prediction: str, gold: str) -> float:
    if (prediction in _SPECIAL or gold in _SPECIAL) and prediction != gold:
        return 0.0
    pred_tokens, gold_tokens = prediction.split(), gold.split()
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred_tokens), common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)
