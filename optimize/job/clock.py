"""The optimize job's plan, printed as it starts, and how long it will take on this machine.

The plan is `optimize.job.budget.estimate`'s phases: how many questions the LM answers in each
(threshold and link trials are replayed, no LM call). The time is measured, not assumed: once the
job has run its first `MEASURED_AFTER` questions of the loop, `JobClock` prints their mean seconds
times the questions left, and once more when single pass, which is cheaper, has been timed too.
Phases that run only when something ships count in full, so the figure is an upper bound; each
phase's bar shows its own ETA. This module prints; it runs nothing and decides nothing.
"""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable

from tqdm import tqdm

from optimize.eval.against_baseline import BASELINE
from optimize.eval.records import Record
from optimize.job.budget import CONDITIONAL, SINGLE_PASS

MEASURED_AFTER = 3  # questions timed before the first estimate: the first pays for the LM's cold prompt cache


class JobClock:
    """Fed each record as the job finishes it (`finished`); prints the estimate when it can."""

    def __init__(self, phases: dict[str, int], write: Callable[[str], object] = lambda line: tqdm.write(
            line, file=sys.stderr)):  # between the bars' lines, on stderr with them
        self.phases, self.write = phases, write
        self.seconds: dict[bool, list[float]] = {True: [], False: []}  # single pass or not -> seconds

    def plan(self, notes: tuple[str, ...] = ()) -> str:
        """The phases with their questions, then `notes` (what the config leaves out)."""
        lines = ["plan: questions the LM answers, phase by phase (threshold trials are replayed: no LM call)"]
        for phase, questions in self.phases.items():
            lines.append(f"  {phase:<28} {'up to ' if phase in CONDITIONAL else ''}{questions}")
        lines += [f"  {note}" for note in notes] + [f"  a time estimate follows the first {MEASURED_AFTER} questions"]
        return "\n".join(lines)

    def finished(self, record: Record) -> None:
        single = record.system == BASELINE
        self.seconds[single].append(record.seconds)
        if len(self.seconds[single]) == MEASURED_AFTER:
            self.write(self.estimate())

    def estimate(self) -> str:
        loop, single = (statistics.fmean(s) if len(s) >= MEASURED_AFTER else None
                        for s in (self.seconds[False], self.seconds[True]))
        loop = loop or single
        left_single = max(self.phases.get(SINGLE_PASS, 0) - len(self.seconds[True]), 0)
        left_loop = max(sum(self.phases.values()) - self.phases.get(SINGLE_PASS, 0) - len(self.seconds[False]), 0)
        minutes = (left_loop * loop + left_single * (single or loop)) / 60
        rates = f"{loop:.1f} s a question of the loop" + (f", {single:.1f} s of single pass" if single else "")
        return (f"time estimate on this machine: {rates}; the {left_loop + left_single} questions left take at most "
                f"~{minutes:.0f} min")
