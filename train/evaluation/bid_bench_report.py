"""The bidding benchmark's outputs: a rich table, JSON and a plot of the paired differences to the heuristic."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from train.evaluation.tournament_report import report_console


# ---------------------------------------------------------------------- output
def print_report(report: dict[str, Any], console=None) -> None:
    """Print the report as a rich table."""
    from rich.table import Table

    console = report_console(console)
    cfg = report["config"]
    table = Table(
        title=f"Bidding benchmark: {cfg['deals']} deals x 2 seatings, {cfg['rules']}, heuristic card play",
        caption="Points: bag-adjusted, tested side, per hand, 95% CI over deals. "
        "Δ: paired difference to the heuristic on the same deals. Abs err: |side contract - side tricks|.",
    )
    for col in ("bidder", "points/hand", "Δ vs heuristic", "set rate", "bags/hand", "nil bids", "nil made", "contract"):
        table.add_column(col, justify="left" if col == "bidder" else "right")
    table.add_column("abs err", justify="right")
    for name, r in report["strategies"].items():
        pct = lambda x: "-" if x is None else f"{100 * x:.1f}%"  # noqa: E731
        table.add_row(
            name,
            f"{r['points_per_hand']:+.1f} ± {r['ci95']:.1f}",
            "-" if name == "heuristic" else f"{r['diff_vs_heuristic']:+.1f} ± {r['diff_ci95']:.1f}",
            pct(r["set_rate"]),
            f"{r['bags_per_hand']:.2f}",
            str(r["nil_bids"]),
            pct(r["nil_success"]),
            f"{r['mean_contract']:.2f}",
            f"{r['mean_abs_bid_error']:.2f}",
        )
    console.print(table)


def write_json(report: dict[str, Any], path: str | Path) -> Path:
    """Write the report as JSON (NaN and infinity as null)."""

    def clean(x):
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, float) and not math.isfinite(x):
            return None
        return x

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(clean(report), indent=2) + "\n")
    return path


def plot_bars(report: dict[str, Any]) -> list[tuple[str, float, float]]:
    """What ``plot_report`` draws: (strategy, paired difference to the heuristic, its 95% half-width),
    every strategy but the heuristic, in the report's order."""
    return [
        (name, r["diff_vs_heuristic"], r["diff_ci95"])
        for name, r in report["strategies"].items()
        if name != "heuristic"
    ]


def draw_report(report: dict[str, Any]):
    """A matplotlib figure of ``plot_bars``: one bar per strategy, paired 95% CIs, each bar labelled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = plot_bars(report)
    names = [b[0] for b in bars]
    diffs = np.array([b[1] for b in bars], dtype=float)
    cis = np.array([b[2] if b[2] is not None and math.isfinite(b[2]) else 0.0 for b in bars], dtype=float)
    fig, ax = plt.subplots(figsize=(6.4, 0.6 * len(names) + 1.8))
    colors = ["tab:orange" if n == "oracle" else "tab:blue" for n in names]
    ax.barh(names, diffs, xerr=cis, color=colors, capsize=4)
    ax.axvline(0, color="k", lw=0.8)
    for y, (_, diff, ci) in enumerate(bars):
        label = f"{diff:+.1f} ± {ci:.1f}" if ci is not None and math.isfinite(ci) else f"{diff:+.1f}"
        ax.annotate(
            label,
            (diff + math.copysign(cis[y], diff), y),
            xytext=(4 if diff >= 0 else -4, 0),
            textcoords="offset points",
            ha="left" if diff >= 0 else "right",
            va="center",
            fontsize=8,
        )
    low, high = min(0.0, float((diffs - cis).min(initial=0))), max(0.0, float((diffs + cis).max(initial=0)))
    pad = 0.3 * ((high - low) or 1.0)  # room for the labels
    ax.set_xlim(low - pad, high + pad)
    ax.invert_yaxis()
    ax.set_xlabel("points per hand minus the heuristic bidder's, same deals (paired, 95% CI)")
    cfg, heur = report["config"], report["strategies"]["heuristic"]
    ax.set_title(
        f"Bidding benchmark, {cfg['deals']} deals x 2 seatings, heuristic card play\n"
        f"heuristic bidder: {heur['points_per_hand']:+.1f} ± {heur['ci95']:.1f} points per hand",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def plot_report(report: dict[str, Any], path: str | Path) -> Path:
    """Write ``draw_report``'s figure as a PNG (matplotlib, Agg backend)."""
    import matplotlib.pyplot as plt

    fig = draw_report(report)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
