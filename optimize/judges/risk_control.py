"""The acceptance threshold that bounds the wrong rate among answered questions, by conformal risk control.

Conformal risk control (Angelopoulos, Bates, Fisch, Lei and Schuster, "Conformal Risk Control",
ICLR 2024, arXiv 2208.02814) picks a threshold on held-out labelled questions so that on new
questions like them (exchangeable) the expected loss stays under a target α. Its bound on the
risk at a threshold, for a loss in [0, 1] over n held-out points, is (n R̂ + 1) / (n + 1). Here
the loss is a wrong answer and the points are the questions a threshold answers (probability at or
above it), so the bound is (wrong + 1) / (answered + 1); the smallest threshold whose bound is at
most α answers the most questions that meet it.
subtle: the wrong rate among answered is not monotone in the threshold, and CRC's guarantee is for a
monotone loss over a fixed n; the +1 makes each bound conservative, but choosing the smallest of many
thresholds on one held-out set is not covered exactly (Learn then Test, Angelopoulos et al. 2021,
would be), so the achieved rate on the report split is what a report quotes.
Plain functions over lists; this module fits nothing and reads no files.
"""

from __future__ import annotations


def wrong_rate_bound(wrong: int, answered: int) -> float:
    """The conformal upper bound on the wrong rate among `answered` held-out answers, `wrong` of them wrong."""
    return (wrong + 1) / (answered + 1)


def acceptance_threshold(probabilities: list[float], rights: list[bool], alpha: float) -> float | None:
    """The smallest threshold (answer when P(right) >= it) whose bound is at most `alpha`; None when
    no threshold meets it (then answer nothing)."""
    if len(probabilities) != len(rights):
        raise ValueError(f"{len(probabilities)} probabilities for {len(rights)} outcomes")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"the target wrong rate must be between 0 and 1, got {alpha}")
    pairs = sorted(zip(probabilities, rights), key=lambda pair: pair[0], reverse=True)
    chosen, answered, wrong = None, 0, 0
    for i, (p, right) in enumerate(pairs):
        answered, wrong = answered + 1, wrong + (not right)
        if i + 1 < len(pairs) and pairs[i + 1][0] == p:
            continue  # subtle: a threshold answers every tie at once
        if wrong_rate_bound(wrong, answered) <= alpha:
            chosen = p
    return chosen
