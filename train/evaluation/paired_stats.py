"""Statistics of duplicate play: means with 95% CIs, the A - B difference of points per hand, ratings.

Estimators
----------
* **Points per hand** of a bot is a ratio of totals: all its (bag-adjusted) points over
  all the hands it played, a bot on two sides of a game counting each side's hand. Every
  hand weighs the same, so a long match weighs more than a short one.
* **A - B** is the difference of the two bots' points per hand, exactly (one estimator
  for the columns and their difference). Its 95% confidence interval is the delta
  method's over boards: the seatings of a board share its deal, so a board is one
  independent observation. Linearised, board ``b`` contributes
  ``z_b = (P_ab - R_a H_ab) / mean(H_a) - (P_bb - R_b H_bb) / mean(H_b)`` (P points, H hands,
  R the ratios) and the half-width is ``1.96 * sd(z) / sqrt(boards)``. When every board
  has as many hands for both bots (hand mode), this is the plain mean of the per-board
  differences with its normal interval.
* **Ratings** are a least-squares fit of the pairs' A - B: ratings ``r`` minimise
  ``sum n_ij (r_i - r_j - d_ij)^2`` over the played pairs (``n_ij`` boards, ``d_ij`` their
  A - B), with the ratings of connected bots summing to zero. They are in points per hand
  relative to the average bot, depend only on each pair's totals (not on the order of the
  boards) and use the margins; with every pair on the same number of boards, ``r_i`` is
  the sum of bot i's differences against the others over the number of bots. For two bots
  ``r_A - r_B = A - B``, so the points winner is never rated below the loser. Their 95%
  intervals propagate the pairs' intervals through the (linear) fit, treating the pairs
  as independent (they play the same deals, so this is only a guide).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.96


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% confidence interval."""
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return float("nan"), float("nan")
    if len(values) < 2:
        return float(values.mean()), float("inf")
    return float(values.mean()), float(Z95 * values.std(ddof=1) / math.sqrt(len(values)))


def ratio(num: float, den: float) -> float | None:
    """num / den, or None (JSON null) when den is 0."""
    return float(num / den) if den else None


def ratio_diff_ci(
    points_a: np.ndarray, hands_a: np.ndarray, points_b: np.ndarray, hands_b: np.ndarray
) -> tuple[float, float, float, float]:
    """Points per hand of A and of B (ratios of totals), their difference and its 95% half-width.

    Each argument is (B,) float64, one value per board (every seating of the board summed),
    with a positive total of hands. Returns ``(rate_a, rate_b, rate_a - rate_b, half_width)``;
    the half-width is the delta method's over boards (module docstring), infinite for one board.
    """
    pa, ha, pb, hb = (np.asarray(x, dtype=float) for x in (points_a, hands_a, points_b, hands_b))
    rate_a, rate_b = float(pa.sum() / ha.sum()), float(pb.sum() / hb.sum())
    diff = rate_a - rate_b
    if len(pa) < 2:
        return rate_a, rate_b, diff, float("inf")
    z = (pa - rate_a * ha) / ha.mean() - (pb - rate_b * hb) / hb.mean()
    return rate_a, rate_b, diff, float(Z95 * z.std(ddof=1) / math.sqrt(len(z)))


def least_squares_ratings(
    n_bots: int, pairs: Sequence[tuple[int, int, float, float, float]]
) -> tuple[np.ndarray, np.ndarray]:
    """Ratings of ``n_bots`` bots from pairwise differences (module docstring).

    pairs: ``(i, j, d_ij, half_width_ij, boards_ij)`` per played pair, ``d_ij`` the mean of
    i's points per hand minus j's. Returns (n_bots,) float64 ratings and the half-widths of
    their 95% intervals; a bot in no pair gets NaN for both.
    """
    ratings = np.full(n_bots, np.nan)
    half = np.full(n_bots, np.nan)
    if not pairs:
        return ratings, half
    design = np.zeros((len(pairs), n_bots))
    for row, (i, j, *_) in enumerate(pairs):
        design[row, i], design[row, j] = 1.0, -1.0
    diffs = np.array([p[2] for p in pairs], dtype=float)
    variances = (np.array([p[3] for p in pairs], dtype=float) / Z95) ** 2
    weights = np.array([p[4] for p in pairs], dtype=float)
    weighted = design.T * weights  # (K, P)
    # The minimum-norm solution: the ratings of each connected group of bots sum to zero.
    solve = np.linalg.pinv(weighted @ design) @ weighted  # (K, P): ratings = solve @ diffs
    solve[np.abs(solve) < 1e-12] = 0.0
    played = np.abs(design).sum(axis=0) > 0
    ratings[played] = (solve @ diffs)[played]
    counts = solve != 0  # a pair's variance (infinite for one board) only where it moves the rating
    spread = np.zeros_like(solve)
    spread[counts] = (solve**2)[counts] * np.broadcast_to(variances, solve.shape)[counts]
    half[played] = (Z95 * np.sqrt(spread.sum(axis=1)))[played]
    return ratings, half
