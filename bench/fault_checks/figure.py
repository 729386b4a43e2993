"""One measured figure of the fault matrix: what was measured, the bar it must meet, and whether it did."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    check: str  # the fault family, e.g. "fuzz"
    measured: str  # what happened, with its counts: "0 HTTP 500s in 5,000 bodies"
    bar: str  # the target it is held to: "0 HTTP 500s"
    passed: bool

    def line(self) -> str:
        return f"{'PASS' if self.passed else 'FAIL'}  {self.check:<12} {self.measured}  (bar: {self.bar})"
