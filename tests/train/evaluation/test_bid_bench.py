"""The bidding benchmark: counting rule, oracle bound, neural bidder, and the table/JSON/PNG outputs."""

import json

import numpy as np
import pytest

from spades_env import cards
from spades_env.engine import SpadesEngine
from train.evaluation.bid_bench import (
    BidBenchConfig,
    HeuristicAgent,
    count_bid,
    deal_seeds,
    draw_report,
    heuristic_bidder,
    lookahead_bidder,
    oracle,
    play_hands,
    plot_bars,
    plot_report,
    print_report,
    run_bid_bench,
    summarize,
    write_json,
)


def _mask(names: str) -> np.uint64:
    return np.uint64(cards.cards_to_mask([cards.parse_card(c) for c in names.split()]))


@pytest.mark.parametrize(
    ("hand", "bid"),
    [
        ("AS KS 5S 4S 3S AH KH 2H AD 2D 3C 4C 5C", 7),  # 2 aces + 2 kings (spades) + AH KH + AD + 2 long spades
        ("2S 3H 4H 5H 6D 7D 8D 9C 2C 3C 4C 5C 6C", 1),  # nothing to count: never nil
        ("KS QS JS 10S 9S 2H 3H 4H 5D 6D 7D 8C 9C", 3),  # KS + two spades beyond three
    ],
)
def test_count_bid_counts_aces_kings_and_spades_beyond_three(hand, bid):
    assert count_bid(np.array([_mask(hand)]))[0] == bid


@pytest.fixture(scope="module")
def small_report():
    return run_bid_bench(BidBenchConfig(deals=24, seed=3, chunk=16, lookahead_samples=4))


def test_oracle_never_scores_less_than_the_heuristic_bidder_on_the_same_deals():
    engine = SpadesEngine("partnership")
    seeds = np.repeat(deal_seeds(BidBenchConfig(deals=12, seed=5)), 2)
    side = np.tile(np.arange(2), 12)
    heur = play_hands(engine, seeds, side, heuristic_bidder, HeuristicAgent())
    best = oracle(engine, seeds, side, heur.bids, width=1)
    rows = np.arange(len(seeds))
    assert np.all(best.points[rows, side] >= heur.points[rows, side])


def test_report_has_every_strategy_and_the_oracle_beats_the_heuristic(small_report):
    s = small_report["strategies"]
    assert list(s) == ["heuristic", "count", "lookahead", "oracle"]
    assert s["oracle"]["points_per_hand"] >= s["heuristic"]["points_per_hand"]
    assert s["oracle"]["diff_vs_heuristic"] >= 0
    for r in s.values():
        assert r["hands"] == 48 and r["ci95"] > 0
        assert 0 <= r["bags_per_hand"] and r["mean_abs_bid_error"] >= 0
    assert s["count"]["nil_bids"] == 0 and s["count"]["nil_success"] is None


def test_the_lookahead_row_bids_by_lookahead_for_the_tested_side_only():
    engine = SpadesEngine("partnership")
    seeds = np.repeat(deal_seeds(BidBenchConfig(deals=6, seed=8)), 2)
    side = np.tile(np.arange(2), 6)
    heur = play_hands(engine, seeds, side, heuristic_bidder, HeuristicAgent())
    look = play_hands(engine, seeds, side, lookahead_bidder(8, seed=8), HeuristicAgent())
    again = play_hands(engine, seeds, side, lookahead_bidder(8, seed=8), HeuristicAgent())
    assert np.array_equal(look.bids, again.bids)  # seeded: reproducible
    tested = engine.side_of_seat[None, :] == side[:, None]
    assert (look.bids[tested] != heur.bids[tested]).any()
    # The opponents bid first in half the games, where the tested side's bids cannot reach them.
    first = (np.arange(4)[None, :] - engine.reset(seeds).dealer[:, None] - 1) % 4 == 0
    untouched = ~tested & first
    assert np.array_equal(look.bids[untouched], heur.bids[untouched])


def test_no_lookahead_row_with_zero_samples():
    report = run_bid_bench(BidBenchConfig(deals=4, chunk=4, lookahead_samples=0, oracle_width=0))
    assert list(report["strategies"]) == ["heuristic", "count", "oracle"]


def test_table_json_and_png_are_written(small_report, tmp_path):
    from rich.console import Console

    console = Console(record=True, width=160)
    print_report(small_report, console=console)
    text = console.export_text()
    assert "oracle" in text and "count" in text and "±" in text
    data = json.loads(write_json(small_report, tmp_path / "b.json").read_text())
    assert data["strategies"]["heuristic"]["diff_vs_heuristic"] == 0
    png = plot_report(small_report, tmp_path / "b.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_bid_bench_with_a_neural_checkpoint(tmp_path):
    torch = pytest.importorskip("torch")
    from agents.neural import SpadesPolicy
    from spades_env.observation import VERSION, ObservationEncoder
    from train.runs.checkpoint import CHECKPOINT_FORMAT, save_checkpoint

    engine = SpadesEngine("partnership")
    torch.manual_seed(0)
    policy = SpadesPolicy.for_engine(engine, ObservationEncoder(engine).size, hidden=16, depth=1)
    ckpt = tmp_path / "net.pt"
    save_checkpoint(
        ckpt,
        {"format": CHECKPOINT_FORMAT, "rules": engine.rules.to_dict(), "obs_version": VERSION, "config": {}}
        | {"model_hparams": policy.hyperparameters(), "model": policy.state_dict(), "global_step": 0},
    )
    from typer.testing import CliRunner

    from train.cli.app import app

    args = [
        "bid-bench",
        "--deals",
        "8",
        "--chunk",
        "8",
        "--oracle-width",
        "0",
        "--lookahead-samples",
        "0",
        "--no-progress",
    ]
    run = CliRunner().invoke(app, args + ["--checkpoint", str(ckpt), "--out", str(tmp_path / "out")])
    assert run.exit_code == 0, run.output
    assert "neural" in run.output
    data = json.loads((tmp_path / "out" / "bid_bench.json").read_text())
    assert list(data["strategies"]) == ["heuristic", "count", "neural", "oracle"]  # --lookahead-samples 0
    assert (tmp_path / "out" / "bid_bench.png").stat().st_size > 0


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"deals": 0}, "deals must be an integer from 1 to 1000000, got 0"),
        ({"deals": -2}, "deals must be an integer from 1 to 1000000, got -2"),
        ({"chunk": 0}, "chunk must be an integer from 1 up, got 0"),
        ({"oracle_width": -1}, "oracle_width must be an integer from 0 to 12, got -1"),
        ({"oracle_width": 13}, "oracle_width must be an integer from 0 to 12, got 13"),
        ({"seed": 2**31}, "seed must be an integer from 0 to 2147483647"),
        ({"lookahead_samples": -1}, "lookahead_samples must be an integer from 0 to 4096, got -1"),
        ({"checkpoint_bid_samples": -1}, "checkpoint_bid_samples must be an integer from 0 to 4096, got -1"),
        ({"checkpoint_bid_samples": 8}, "checkpoint_bid_samples 8 needs a checkpoint"),
    ],
)
def test_a_config_refuses_bad_numbers_naming_the_setting(settings, message):
    with pytest.raises(ValueError, match=f"^{message}"):
        BidBenchConfig(**settings)


def test_the_plot_shows_the_paired_differences_to_the_heuristic_labelled():
    # Count scores exactly 1 more than the heuristic on every deal: a paired CI of 0 however noisy the deals.
    rng = np.random.default_rng(0)
    heur = rng.normal(0, 40, 40)
    stats = {}
    for name, points in (("heuristic", heur), ("count", heur + 1), ("oracle", heur + rng.uniform(0, 20, 40))):
        stats[name] = {k: np.zeros(40) for k in ("contracts", "sets", "bags", "nil_bids", "nil_made", "bid")}
        stats[name] |= {"points": points, "abs_error": np.zeros(40)}
    report = summarize(BidBenchConfig(deals=20), stats)
    count, oracle_row = report["strategies"]["count"], report["strategies"]["oracle"]
    assert count["diff_vs_heuristic"] == pytest.approx(1) and count["diff_ci95"] == pytest.approx(0, abs=1e-9)
    assert count["ci95"] > 5  # the unpaired interval of its mean is wide
    assert plot_bars(report) == [
        ("count", count["diff_vs_heuristic"], count["diff_ci95"]),
        ("oracle", oracle_row["diff_vs_heuristic"], oracle_row["diff_ci95"]),
    ]
    fig = draw_report(report)
    ax = fig.axes[0]
    from matplotlib.container import BarContainer

    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert [p.get_width() for p in bars.patches] == pytest.approx([1, oracle_row["diff_vs_heuristic"]])
    (segments,) = [c.get_segments() for c in bars.errorbar.lines[2]]
    assert [s[1][0] - s[0][0] for s in segments] == pytest.approx([0, 2 * oracle_row["diff_ci95"]], abs=1e-9)
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["+1.0 ± 0.0", f"{oracle_row['diff_vs_heuristic']:+.1f} ± {oracle_row['diff_ci95']:.1f}"]
