"""Net right: +1 for a right answer, -1 for a wrong one, 0 for an abstention (`metrics.outcome`).

Its mean over questions is what a user gains from asking: a system that answers everything
earns its right answers and pays for every wrong one, and one that abstains gives up the
answers it would have got right. On an unanswerable question abstaining is right (+1).
`outcome_of` reads the outcome back from a recorded value. This module does not aggregate.
"""

from __future__ import annotations

from metrics.outcome import Outcome, outcome

NET = {Outcome.RIGHT: 1.0, Outcome.WRONG: -1.0, Outcome.ABSTAINED: 0.0}


def net_right(example, pred, trace=None) -> float | bool:
    """+1, -1 or 0; with `trace` (bootstrapping demos), whether the answer was right."""
    score = NET[outcome(example, pred)]
    return score > 0 if trace is not None else score


def outcome_of(net: float) -> Outcome:
    """The outcome a recorded net-right value stands for."""
    return next(o for o, value in NET.items() if value == net)
