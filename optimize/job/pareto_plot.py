"""The threshold search at a glance: every trial, the Pareto front, and the chosen point."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display on a server
import matplotlib.pyplot as plt  # noqa: E402

from optimize.durable import replacing  # noqa: E402
from optimize.job.threshold_search import Point  # noqa: E402


def plot_front(points: list[Point], front: list[Point], chosen: Point, path: Path) -> Path:
    fig, ax = plt.subplots(figsize=(6, 4), dpi=110)
    ax.scatter([p.latency_s for p in points], [p.quality for p in points], color="0.7", label="trials")
    ordered = sorted(front, key=lambda p: p.latency_s)
    ax.plot([p.latency_s for p in ordered], [p.quality for p in ordered], "o-", color="tab:blue", label="Pareto front")
    for p in points:
        ax.annotate(str(p.trial), (p.latency_s, p.quality), fontsize=7, xytext=(3, 3), textcoords="offset points")
    # the chosen point is the pick with its changes that did not pay put back: off the front when any were
    sparsified = all(p.thresholds != chosen.thresholds for p in points)
    ax.scatter([chosen.latency_s], [chosen.quality], s=160, facecolors="none", edgecolors="tab:red", linewidths=2,
               label=f"chosen (trial {chosen.trial}{', sparsified' if sparsified else ''})")
    ax.set_xlabel("estimated latency per question (s)")
    ax.set_ylabel("mean composite quality")
    ax.set_title("Threshold search: quality vs latency")
    ax.legend(fontsize=8)
    fig.tight_layout()
    with replacing(path) as tmp:
        fig.savefig(tmp)
    plt.close(fig)
    return path
