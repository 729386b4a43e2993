"""Answer quality against the gold answers: exact match, token F1 and answer coverage.

EM and F1 score the short answer (`Result.short_answer`: the entity, yes/no, number or date the
question asks for); an abstention scores as the empty answer; a prediction without a short
answer (old results, plain predictions) falls back to its answer text. Coverage reads the cited
explanation (`answer`). The normalisation is HotpotQA's official one (lowercase, drop
punctuation, the articles a/an/the and extra whitespace), and F1 is 0 when either side is
yes/no/noanswer and they differ, as in `hotpot_evaluate_v1.py`. The [n] citation markers are
removed first. With several gold answers (`example.answers`) each metric takes the best one.
An unanswerable question (`example.answerable` false: the documents do not hold its answer)
is scored on abstention: 1.0 when the program abstained, 0.0 when it answered. This module does
not look at evidence or citations.
"""

from __future__ import annotations

import re
import string
from collections import Counter

from program.answer.citations import strip_markers

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_SPECIAL = ("yes", "no", "noanswer")
_NO_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_NO_PUNCTUATION)).split())


def answer_text(pred) -> str:
    """The prediction's answer without its [n] markers."""
    return strip_markers(str(getattr(pred, "answer", "") or ""))


def short_answer_text(pred) -> str:
    """What EM and F1 score: the short answer, "" after an abstention, else the answer text."""
    if abstained(pred):
        return ""
    result = getattr(pred, "result", None)
    if result is not None and result.short_answer.strip():
        return strip_markers(result.short_answer)
    return answer_text(pred)


def abstained(pred) -> bool:
    """The program said the evidence does not hold the answer, and gave none."""
    result = getattr(pred, "result", None)
    return result is not None and result.abstained


def exact_match(example, pred, trace=None) -> float | bool:
    return _best(example, pred, trace, lambda said, gold: float(said == gold), short_answer_text)


def token_f1(example, pred, trace=None) -> float | bool:
    return _best(example, pred, trace, _f1, short_answer_text)


def answer_coverage(example, pred, trace=None) -> float | bool:
    """Share of the gold answer's tokens present anywhere in the answer: a long answer that
    contains the gold one scores 1 here, where exact match scores 0."""
    return _best(example, pred, trace, _coverage, answer_text)


def _best(example, pred, trace, compare, read) -> float | bool:
    """The best score over the gold answers; on an unanswerable question, whether the program abstained."""
    if not example.answerable:
        score = float(abstained(pred))
    else:
        said = normalize_answer(read(pred))
        score = max(compare(said, normalize_answer(gold)) for gold in example.answers)
    return score == 1.0 if trace is not None else score


def best_f1(example, text: str) -> float:
    """F1 of `text` (an answerable question's short answer) against its best gold answer."""
    said = normalize_answer(strip_markers(text))
    return max(_f1(said, normalize_answer(gold)) for gold in example.answers)


def _coverage(said: str, gold: str) -> float:
    words, wanted = set(said.split()), gold.split()
    return sum(t in words for t in wanted) / len(wanted) if wanted else 0.0


def _f1(prediction: str, gold: str) -> float:
    if (prediction in _SPECIAL or gold in _SPECIAL) and prediction != gold:
        return 0.0
    pred_tokens, gold_tokens = prediction.split(), gold.split()
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred_tokens), common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)
