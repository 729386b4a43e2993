"""The report's figures as PNG bytes: metrics with CIs, latency histograms, loop actions, iterations,
the confidence's reliability diagram, and the risk-coverage curves.

All systems share each figure so they read side by side. matplotlib's Agg backend, no display.
This module does not write files or know the report's layout.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from metrics.calibration import Calibration  # noqa: E402
from metrics.risk_coverage import RiskCoverage  # noqa: E402
from optimize.eval.document import number  # noqa: E402
from optimize.eval.summary import MAIN, RunSummary  # noqa: E402


def metrics_chart(summary: RunSummary) -> bytes:
    """Grouped bars of the main quality metrics, one colour per system, 95% CI whiskers."""
    fig, ax = plt.subplots(figsize=(8, 3.6))
    width = 0.8 / len(summary.systems)
    x = np.arange(len(MAIN))
    for i, system in enumerate(summary.systems):
        est = [system.metrics[m] for m in MAIN]
        means = np.array([e.mean for e in est])
        errors = np.array([[e.mean - e.low for e in est], [e.high - e.mean for e in est]])
        ax.bar(x + i * width, means, width, yerr=errors, capsize=3, label=system.system)
    ax.set_xticks(x + width * (len(summary.systems) - 1) / 2, [m.replace("_", "\n") for m in MAIN], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean (95% CI)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _png(fig)


def latency_chart(seconds: dict[str, list[float]]) -> bytes:
    """One histogram per system of seconds per question, with p50 and p95 marked."""
    fig, axes = plt.subplots(1, len(seconds), figsize=(3.2 * len(seconds), 2.8), sharey=True, squeeze=False)
    for ax, (system, values) in zip(axes[0], seconds.items()):
        ax.hist(values, bins=min(20, max(5, len(values))), color="tab:blue", alpha=0.8)
        for q, style in ((50, "-"), (95, "--")):
            at = float(np.percentile(values, q))
            ax.axvline(at, color="tab:red", linestyle=style, label=f"p{q} {at:.1f}s")
        ax.set_title(system, fontsize=9)
        ax.set_xlabel("seconds per question", fontsize=8)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return _png(fig)


def actions_chart(summary: RunSummary) -> bytes:
    """Left: loop actions per question by system. Right: share of questions by judge rounds."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
    actions = list(dict.fromkeys(a for s in summary.systems for a in s.actions))
    rounds = sorted({int(k) for s in summary.systems for k in s.iterations})
    width = 0.8 / len(summary.systems)
    for i, system in enumerate(summary.systems):
        left.bar(np.arange(len(actions)) + i * width, [system.actions.get(a, 0) / system.n for a in actions], width,
                 label=system.system)
        right.bar(np.arange(len(rounds)) + i * width, [system.iterations.get(str(r), 0) / system.n for r in rounds], width)
    left.set_xticks(np.arange(len(actions)) + width * (len(summary.systems) - 1) / 2, actions, fontsize=7, rotation=30)
    left.set_ylabel("steps per question", fontsize=8)
    fig.legend(*left.get_legend_handles_labels(), loc="upper center", ncols=len(summary.systems), fontsize=8)
    right.set_xticks(np.arange(len(rounds)) + width * (len(summary.systems) - 1) / 2, [str(r) for r in rounds])
    right.set_xlabel("judge rounds (iterations)", fontsize=8)
    right.set_ylabel("share of questions", fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return _png(fig)


def reliability_chart(calibrations: dict[str, Calibration]) -> bytes:
    """One panel per system: the share right in each confidence bin against the diagonal of a
    calibrated confidence, each bar labelled with its count; ECE and AUROC in the title."""
    fig, axes = plt.subplots(1, len(calibrations), figsize=(3.4 * len(calibrations), 3.4), squeeze=False)
    for ax, (system, c) in zip(axes[0], calibrations.items()):
        filled = [b for b in c.bins if b.n]
        bars = ax.bar([(b.low + b.high) / 2 for b in filled], [b.accuracy for b in filled],
                      width=filled[0].high - filled[0].low if filled else 0.1, edgecolor="black", alpha=0.7)
        ax.bar_label(bars, labels=[f"n={b.n}" for b in filled], fontsize=6)
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="calibrated")
        ax.plot([b.confidence for b in filled], [b.accuracy for b in filled], "o", color="tab:red", markersize=3,
                label="bin mean confidence")
        ax.set_title(f"{system}: ECE {number(c.ece)}, AUROC {number(c.auroc, 2)}", fontsize=8)
        ax.set(xlim=(0, 1), ylim=(0, 1.1), xlabel="confidence", ylabel="share right")
        ax.legend(fontsize=6, loc="upper left")
    fig.tight_layout()
    return _png(fig)


def risk_coverage_chart(curves: dict[str, RiskCoverage]) -> bytes:
    """All systems on one axis: the share of answers wrong against the share of questions answered,
    as the confidence threshold falls; each curve ends at the coverage its system reached."""
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for system, curve in curves.items():
        # subtle: drawn from coverage 0 at the first threshold's risk, so a curve of one point is a line
        coverage, risk = zip(*[(0.0, curve.points[0][1]), *curve.points]) if curve.points else ((), ())
        ax.step(coverage, risk, where="post", marker="o", markersize=3, markevery=slice(1, None),
                label=f"{system}: AURC {number(curve.aurc)}")
    ax.set(xlim=(0, 1.02), ylim=(0, 1.05), xlabel="coverage (share of questions answered)",
           ylabel="risk (share of answers wrong)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return _png(fig)


def _png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()
