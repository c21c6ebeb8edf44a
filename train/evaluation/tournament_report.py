"""The report of a duplicate tournament: per pair and per bot figures, as a dict, JSON, CSV or rich tables.

Points per hand are ratios of totals, A - B is their difference with a 95% CI over
boards, and the ratings are a least-squares fit of the pairs' A - B (``train.evaluation.paired_stats``,
whose docstring gives the estimators). ``ESTIMATORS`` says the same in the report itself.
"""

from __future__ import annotations

import csv
import json
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from spades_env.rules import resolve_rules
from train.evaluation.paired_stats import least_squares_ratings, ratio, ratio_diff_ci
from train.evaluation.tournament_log import TournamentLogWarning, unique_games
from train.runs.output_paths import check_output_file

if TYPE_CHECKING:
    from train.evaluation.tournament_chunks import TournamentConfig

STAT_KEYS = ("contracts", "sets", "bags", "nil_bids", "nil_made")
#: How the report's figures are computed (its ``estimators`` field).
ESTIMATORS = {
    "points_per_hand": "ratio of totals: a bot's bag-adjusted points over the hands it played (each side counted)",
    "diff": "A points_per_hand - B points_per_hand; diff_ci95: 95% CI half-width, delta method over boards",
    "rating": "least squares over the pairs' diff (weighted by boards): points per hand against the average bot",
}


def summarize(config: TournamentConfig, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The report of a tournament from its game records (any order; a repeated game counts once)."""
    records, repeated = unique_games(records)
    if repeated:
        warnings.warn(f"{repeated} repeated game records ignored", TournamentLogWarning, stacklevel=2)
    labels = config.labels
    lower = resolve_rules(config.rules).points_are_penalties  # Hearts: fewer points is better
    sign = -1.0 if lower else 1.0
    recs = sorted(records, key=lambda r: (r["pair_index"], r["board"], r["seating"]))
    totals = {name: {k: 0.0 for k in ("hands", "points", "raw", "games", "wins", *STAT_KEYS)} for name in labels}
    pairs_out, fitted = [], []
    for p, (i, j) in enumerate(config.pairs):
        a, b = labels[i], labels[j]
        rs = [r for r in recs if r["pair_index"] == p]
        if rs:
            pair, per_board = _pair_report(config, a, b, rs, sign, totals)
            pairs_out.append(pair)
            fitted.append((i, j, pair["diff"], pair["diff_ci95"], per_board))
    ratings, rating_half = least_squares_ratings(len(labels), fitted)
    bots_out = []
    for k, name in enumerate(labels):
        t = totals[name]
        bots_out.append(
            {
                "bot": name,
                "games": int(t["games"]),
                "hands": int(t["hands"]),
                "points_per_hand": ratio(t["points"], t["hands"]),
                "raw_points_per_hand": ratio(t["raw"], t["hands"]),
                "win_rate": ratio(t["wins"], t["games"]),
                "set_rate": ratio(t["sets"], t["contracts"]),
                "bags_per_hand": ratio(t["bags"], t["hands"]),
                "nil_bids": int(t["nil_bids"]),
                "nil_success": ratio(t["nil_made"], t["nil_bids"]),
                "rating": None if np.isnan(ratings[k]) else float(ratings[k]),
                "rating_ci95": None if np.isnan(rating_half[k]) else float(rating_half[k]),
            }
        )
    return {
        "config": config.to_dict(),
        "games": len(recs),
        "lower_is_better": lower,
        "estimators": ESTIMATORS,
        "pairs": pairs_out,
        "bots": bots_out,
    }


def _pair_report(config, a: str, b: str, rs: list[dict[str, Any]], sign: float, totals: dict) -> tuple[dict, int]:
    """One pair's entry of the report (and the number of its boards); adds its games to ``totals``."""
    hands = np.array([max(r["hands"], 1) for r in rs], dtype=np.int64)
    owner_a = np.array([[who == a for who in r["sides"]] for r in rs])  # (G, S)
    adjusted = np.array([r["adjusted"] for r in rs], dtype=np.int64)
    raw = np.array([r["points"] for r in rs], dtype=np.int64)
    stats = {k: np.array([r[k] for r in rs], dtype=np.int64) for k in STAT_KEYS}
    boards, board_of = np.unique([r["board"] for r in rs], return_inverse=True)
    per_game, per_board = {}, {}
    for name, own in ((a, owner_a), (b, ~owner_a)):
        pts = (adjusted * own).sum(axis=1)
        played = hands * own.sum(axis=1)
        per_game[name] = pts / played
        per_board[name] = (np.bincount(board_of, weights=pts), np.bincount(board_of, weights=played))
        t = totals[name]
        t["hands"] += float(played.sum())
        t["points"] += float(pts.sum())
        t["raw"] += float((raw * own).sum())
        t["games"] += len(rs)
        for k in STAT_KEYS:
            t[k] += float((stats[k] * own).sum())
    rate_a, rate_b, diff, half = ratio_diff_ci(*per_board[a], *per_board[b])
    board_diff = per_board[a][0] / per_board[a][1] - per_board[b][0] / per_board[b][1]
    if config.mode == "match":
        winner_is_a = np.array([r["winner"] >= 0 and r["sides"][r["winner"]] == a for r in rs])
        winner_is_b = np.array([r["winner"] >= 0 and r["sides"][r["winner"]] == b for r in rs])
    else:
        game_diff = per_game[a] - per_game[b]
        winner_is_a, winner_is_b = sign * game_diff > 0, sign * game_diff < 0
    wins = {a: int(winner_is_a.sum()), b: int(winner_is_b.sum())}
    wins["tie"] = len(rs) - wins[a] - wins[b]
    totals[a]["wins"] += wins[a]
    totals[b]["wins"] += wins[b]
    pair = {
        "a": a,
        "b": b,
        "games": len(rs),
        "boards": len(boards),
        "points_per_hand": {a: rate_a, b: rate_b},
        "diff": diff,
        "diff_ci95": half,
        "game_wins": wins,
        "win_rate_a": ratio(wins[a], len(rs)),
        "board_wins": {
            a: int(np.sum(sign * board_diff > 0)),
            b: int(np.sum(sign * board_diff < 0)),
            "tie": int(np.sum(board_diff == 0)),
        },
    }
    return pair, len(boards)


# ---------------------------------------------------------------------------- files
def csv_paths(path: str | Path) -> list[Path]:
    """The files ``write_csv`` writes: ``<path>`` (one row per pair) and ``<stem>_bots.csv``."""
    path = Path(path)
    return [path, path.with_name(path.stem + "_bots.csv")]


def check_report_outputs(json_path: str | Path | None = None, csv_path: str | Path | None = None) -> None:
    """Refuse (ValueError) report paths that could not be written; call it before playing."""
    if json_path:
        check_output_file(json_path, "--json")
    for path in csv_paths(csv_path) if csv_path else []:
        check_output_file(path, "--csv")


def write_json(report: dict[str, Any], path: str | Path) -> None:
    """Write the report as JSON."""
    Path(path).write_text(json.dumps(report, indent=2, default=float) + "\n")


PAIR_COLUMNS = (
    "a", "b", "games", "boards", "a_points_per_hand", "b_points_per_hand", "diff", "diff_ci95",
    "win_rate_a", "board_wins_a", "board_wins_b", "board_ties",
)  # fmt: skip


def write_csv(report: dict[str, Any], path: str | Path) -> list[Path]:
    """Write ``<path>`` (one row per pair) and ``<stem>_bots.csv`` (one row per bot)."""
    pairs_path, bots_path = csv_paths(path)
    with pairs_path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(PAIR_COLUMNS)
        for p in report["pairs"]:
            pph, board_wins = p["points_per_hand"], p["board_wins"]
            w.writerow(
                [
                    *(p["a"], p["b"], p["games"], p["boards"], pph[p["a"]], pph[p["b"]], p["diff"], p["diff_ci95"]),
                    *(p["win_rate_a"], board_wins[p["a"]], board_wins[p["b"]], board_wins["tie"]),
                ]
            )
    with bots_path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(report["bots"][0]))
        w.writeheader()
        w.writerows(report["bots"])
    return [pairs_path, bots_path]


# ---------------------------------------------------------------------------- tables
def report_console(console=None):
    """``console``, or a new rich console: the terminal's, or 160 columns wide for logs and pipes
    (wide enough that no column of the report tables is cut)."""
    from rich.console import Console

    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=160)
    return console


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _pm(value: float | None, half: float | None) -> str:
    return "-" if value is None else f"{value:+.1f} ± {_fmt(half, '.1f')}"


def print_report(report: dict[str, Any], console=None) -> None:
    """Print the report as rich tables."""
    from rich.table import Table

    console = report_console(console)
    cfg = report["config"]
    unit = "board" if cfg["mode"] == "hand" else "match"
    lower = report.get("lower_is_better", False)
    title = f"Duplicate {cfg['mode']} tournament: {cfg['rules']}, {cfg['boards']} boards, seed {cfg['seed']}"
    if lower:
        title += " (Hearts: points are penalties, lower is better; A wins a board when A - B < 0)"
    caption = (
        "pts/hand: a bot's total points / the hands it played. "
        "A - B: A pts/hand - B pts/hand, 95% CI over boards (delta method)."
    )
    t = Table(title=title, caption=caption)
    diff_col = "A - B pts/hand (95% CI" + ("; lower is better)" if lower else ")")
    for col in ("A", "B", "games", "A pts/hand", "B pts/hand", diff_col, f"A {unit} wins"):
        t.add_column(col, justify="right" if col not in ("A", "B") else "left")
    for p in report["pairs"]:
        pph = p["points_per_hand"]
        wins = p["game_wins"] if cfg["mode"] == "match" else p["board_wins"]
        n = sum(wins.values())
        t.add_row(
            p["a"],
            p["b"],
            str(p["games"]),
            _fmt(pph[p["a"]], ".1f"),
            _fmt(pph[p["b"]], ".1f"),
            _pm(p["diff"], p["diff_ci95"]),
            f"{wins[p['a']] / n:.0%} ({wins['tie']} tied)" if n else "-",
        )
    console.print(t)
    points = "Hearts points, lower is better" if lower else "points are bag-adjusted"
    t = Table(title=f"Bots ({points}; rating: least squares on the pairs' A - B, pts/hand vs the average bot)")
    columns = ("bot", "hands", "pts/hand", "raw pts/hand", "set rate", "bags/hand", "nil bids", "nil made", "rating")
    for col in columns:
        t.add_column(col + (" (95% CI)" if col == "rating" else ""), justify="left" if col == "bot" else "right")
    for b in report["bots"]:
        t.add_row(
            b["bot"],
            str(b["hands"]),
            _fmt(b["points_per_hand"], ".1f"),
            _fmt(b["raw_points_per_hand"], ".1f"),
            _fmt(b["set_rate"], ".0%"),
            _fmt(b["bags_per_hand"], ".2f"),
            str(b["nil_bids"]),
            _fmt(b["nil_success"], ".0%"),
            _pm(b["rating"], b["rating_ci95"]),
        )
    console.print(t)
