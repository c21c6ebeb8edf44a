"""The tournament report's estimators: A - B is the difference of the points-per-hand columns, ratings are
order-free least squares over the pairs' margins."""

import json

import numpy as np
import pytest
from rich.console import Console

from train.evaluation.paired_stats import least_squares_ratings, mean_ci, ratio_diff_ci
from train.evaluation.tournament import TournamentConfig, print_report, run_tournament, summarize, write_json

PAIR = TournamentConfig(bots=("a", "b"), boards=10)


def _game(board: int, seating: int, a_points: int, b_points: int, hands: int = 1) -> dict:
    """A partnership game record: A holds side ``seating`` (the other side is B's)."""
    sides = ["a", "b"] if seating == 0 else ["b", "a"]
    points = [a_points, b_points] if seating == 0 else [b_points, a_points]
    zeros = [0, 0]
    return {
        "type": "game", "pair_index": 0, "board": board, "seating": seating, "sides": sides, "hands": hands,
        "points": points, "adjusted": points, "winner": -1,
        "contracts": zeros, "sets": zeros, "bags": zeros, "nil_bids": zeros, "nil_made": zeros,
    }  # fmt: skip


def _ratings(report) -> dict[str, float]:
    return {b["bot"]: b["rating"] for b in report["bots"]}


@pytest.mark.parametrize("mode", ["hand", "match"])
def test_a_minus_b_is_exactly_the_difference_of_the_points_per_hand_columns(mode):
    config = TournamentConfig(bots=("heuristic", "random"), rules="partnership-250", boards=4, mode=mode)
    report = run_tournament(config, None, progress=False)
    pair = report["pairs"][0]
    pph = pair["points_per_hand"]
    assert pair["diff"] == pph["heuristic"] - pph["random"]
    assert "ratio of totals" in report["estimators"]["points_per_hand"]
    console = Console(record=True, width=200)
    print_report(report, console=console)
    text = console.export_text()
    assert "A - B: A pts/hand - B pts/hand" in text and f"{pair['diff']:+.1f} ±" in text


def test_match_mode_weighs_every_hand_the_same():
    # Board 0: A scores 10 a hand over 9 hands, B 0; board 1: one hand where B scores 100.
    records = [_game(0, k, 90, 0, hands=9) for k in (0, 1)] + [_game(1, k, 0, 100, hands=1) for k in (0, 1)]
    pair = summarize(TournamentConfig(bots=("a", "b"), boards=2, mode="match"), records)["pairs"][0]
    assert pair["points_per_hand"] == {"a": 9.0, "b": 10.0}
    assert pair["diff"] == -1.0  # (180 - 200) / 20 hands, not the mean of the match rates (+10 - 100) / 2


def test_ratio_diff_ci_is_the_paired_mean_and_interval_when_hands_are_equal():
    rng = np.random.default_rng(0)
    pa, pb = rng.integers(-50, 100, 30).astype(float), rng.integers(-50, 100, 30).astype(float)
    hands = np.full(30, 2.0)
    rate_a, rate_b, diff, half = ratio_diff_ci(pa, hands, pb, hands)
    mean, expected_half = mean_ci((pa - pb) / 2)
    assert diff == pytest.approx(mean) and half == pytest.approx(expected_half)
    assert (rate_a, rate_b) == (pa.sum() / 60, pb.sum() / 60)


def test_the_points_winner_is_never_rated_below_the_loser():
    # A wins 9 boards by 1 point and loses one by 100: more board wins, fewer points.
    records = [_game(b, k, 1, 0) for b in range(9) for k in (0, 1)] + [_game(9, k, 0, 100) for k in (0, 1)]
    report = summarize(PAIR, records)
    pair, ratings = report["pairs"][0], _ratings(report)
    assert pair["board_wins"]["a"] == 9 and pair["diff"] < 0
    assert ratings["a"] < ratings["b"]
    assert ratings["a"] - ratings["b"] == pytest.approx(pair["diff"])
    rng = np.random.default_rng(1)
    for _ in range(20):
        points = rng.integers(-30, 30, size=(10, 2))
        report = summarize(PAIR, [_game(b, k, *map(int, points[b])) for b in range(10) for k in (0, 1)])
        diff, ratings = report["pairs"][0]["diff"], _ratings(report)
        assert np.sign(ratings["a"] - ratings["b"]) == np.sign(diff)


def test_ratings_do_not_depend_on_the_order_of_the_boards(tmp_path):
    config = TournamentConfig(bots=("heuristic", "random", "random"), boards=8, chunk=8)
    run_tournament(config, tmp_path / "log.jsonl", progress=False)
    records = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()[1:]]
    report = summarize(config, records)
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(config.boards)
        permuted = [{**r, "board": int(order[r["board"]])} for r in records]
        shuffled = summarize(config, permuted)
        assert _ratings(shuffled) == _ratings(report)
        assert [b["rating_ci95"] for b in shuffled["bots"]] == pytest.approx([b["rating_ci95"] for b in report["bots"]])
    ratings = _ratings(report)
    assert ratings["heuristic"] > ratings["random"] and ratings["heuristic"] > ratings["random#2"]
    assert sum(ratings.values()) == pytest.approx(0, abs=1e-9)
    write_json(report, tmp_path / "r.json")
    bots = json.loads((tmp_path / "r.json").read_text())["bots"]
    assert {"rating", "rating_ci95"} <= set(bots[0]) and "mu" not in bots[0]


def test_least_squares_ratings_of_a_round_robin_average_the_differences():
    # d(0,1) = 2, d(1,2) = 4, d(0,2) = 6 on 10 boards each: r_i = sum_j d_ij / 3.
    ratings, half = least_squares_ratings(3, [(0, 1, 2.0, 0.3, 10), (1, 2, 4.0, 0.3, 10), (0, 2, 6.0, 0.3, 10)])
    assert ratings == pytest.approx([8 / 3, 2 / 3, -10 / 3])
    assert (half > 0).all() and (half < 0.3).all()
    ratings, half = least_squares_ratings(3, [(0, 1, 2.0, float("inf"), 1)])
    assert ratings[:2] == pytest.approx([1.0, -1.0]) and np.isnan(ratings[2]) and np.isinf(half[0])
