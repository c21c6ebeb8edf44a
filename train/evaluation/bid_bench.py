"""Bidding benchmark: bidding strategies compared on the same seeded deals under one fixed card play.

Design
------
* A **deal** is one seed: one hand from a 0-0 score, with the deal and dealer the
  engine draws from that seed (the tournament's hand mode).
* Every seat plays its cards with ``HeuristicAgent.play``, so differences come from
  the bids alone (bids change heuristic play only through its nil and contract logic).
* The strategy under test bids for one side, HeuristicAgent bids for the other; each
  deal is played in both **seatings** (tested side on seats 0+2, then on 1+3), as in a
  duplicate tournament, so that the card luck of a deal cancels.
* Everything runs as one engine batch per chunk of deals: every deal, seating (and, for
  the oracle, every candidate bid pair) is a game of the batch. On Ray (``ray=``,
  ``train/evaluation/bid_bench_ray.py``) the chunks are the shards, with the same report.

Strategies (``STRATEGIES``):

``heuristic``  ``HeuristicAgent.bid`` (honours, spade length, shortness; nil with weak hands).
``count``      ``count_bid``: aces + kings + spades beyond three (at least 1, never nil).
``lookahead``  ``agents.search_bidding.lookahead_bids``: every legal bid tried on ``lookahead_samples``
               sampled deals of the hidden cards (weighted by the bids already made), each
               played out by the heuristic; the best mean side score is bid (0: no row). It bids
               for the tested side in BID only (BLIND stays the heuristic's for every bidder).
``neural``     the bidding head of a ``NeuralAgent`` checkpoint (only with a checkpoint); with
               ``checkpoint_bid_samples`` its values averaged with a lookahead's (``agents.neural_lookahead``).
``oracle``     ``oracle`` below: sees every hand; an upper reference, not a playable bidder.

Reported per strategy, for the tested side, per hand: mean bag-adjusted points with a
95% CI over deals (each deal's two seatings averaged), the paired difference to the
heuristic bidder with its CI, set rate (sets per non-zero contract), bags, nil bids and
their success, mean bid, and the mean |side contract - side tricks| (nil bidders count
0 bid and their tricks count as taken by the side).

The plot shows the paired differences to the heuristic bidder with their 95% CIs (the
per-deal difference of the same deals, so luck cancels; unpaired intervals of the two
means would overlap even when the difference is clear), each bar labelled with its value.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.heuristic import HeuristicAgent
from spades_env.engine import SpadesEngine
from train.evaluation.bid_bench_bidders import (
    count_bid,
    counting_bidder,
    fixed_bidder,
    heuristic_bidder,
    lookahead_bidder,
    neural_bidder,
)
from train.evaluation.bid_bench_play import (
    DEAL_STRIDE,
    MAX_ORACLE_WIDTH,
    BidBenchConfig,
    HandOutcome,
    bench_rules,
    chunk_starts,
    deal_seeds,
    make_bidders,
    oracle,
    play_chunk,
    play_hands,
    strategy_names,
)
from train.evaluation.bid_bench_report import draw_report, plot_bars, plot_report, print_report, write_json
from train.evaluation.paired_stats import mean_ci

if TYPE_CHECKING:
    from train.distributed.ray_shards import RayOptions


def run_bid_bench(config: BidBenchConfig, progress: bool = False, ray: RayOptions | None = None) -> dict[str, Any]:
    """Play every strategy on the benchmark's deals and return the report (see ``summarize``).

    ``ray``: play the chunks as Ray tasks (``train/evaluation/bid_bench_ray.py``); the report is the same.
    """
    rules = bench_rules(config)
    engine = SpadesEngine(rules)
    bidders = make_bidders(config, engine)  # built (a checkpoint loaded) here first, on Ray too: bad input fails now
    if ray is not None:
        from train.distributed.ray_shards import check_reachable
        from train.evaluation.bid_bench_ray import play_on_ray

        check_reachable(ray.address)
        return summarize(config, play_on_ray(config, rules, ray, progress))
    per: dict[str, dict[str, list[np.ndarray]]] = {name: {} for name in bidders}
    for lo in chunk_starts(config):
        for name, stats in play_chunk(config, engine, bidders, lo).items():
            for key, v in stats.items():
                per[name].setdefault(key, []).append(v)
        if progress:
            print(f"bid-bench: {min(lo + config.chunk, config.deals)}/{config.deals} deals", flush=True)
    return summarize(config, {name: {k: np.concatenate(v) for k, v in d.items()} for name, d in per.items()})


def summarize(config: BidBenchConfig, stats: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
    """The report: per strategy, figures per hand of the tested side (see the module docstring)."""
    base = stats["heuristic"]["points"].reshape(-1, 2).mean(axis=1)
    out = {}
    for name, s in stats.items():
        per_deal = s["points"].reshape(-1, 2).mean(axis=1)
        mean, half = mean_ci(per_deal)
        diff, diff_half = mean_ci(per_deal - base)
        hands = len(s["points"])
        contracts, nils = s["contracts"].sum(), s["nil_bids"].sum()
        out[name] = {
            "points_per_hand": mean,
            "ci95": half,
            "diff_vs_heuristic": diff,
            "diff_ci95": diff_half if name != "heuristic" else 0.0,
            "set_rate": float(s["sets"].sum() / contracts) if contracts else None,
            "bags_per_hand": float(s["bags"].mean()),
            "nil_bids": int(nils),
            "nil_bids_per_hand": float(nils / hands),
            "nil_success": float(s["nil_made"].sum() / nils) if nils else None,
            "mean_contract": float(s["bid"].mean()),
            "mean_abs_bid_error": float(s["abs_error"].mean()),
            "hands": hands,
        }
    cfg = asdict(config)
    return {"config": cfg, "strategies": out}


__all__ = [
    "BidBenchConfig",
    "count_bid",
    "deal_seeds",
    "lookahead_bidder",
    "draw_report",
    "oracle",
    "play_hands",
    "plot_bars",
    "plot_report",
    "print_report",
    "run_bid_bench",
    "summarize",
    "write_json",
]


__all__ = [
    "DEAL_STRIDE",
    "MAX_ORACLE_WIDTH",
    "BidBenchConfig",
    "HandOutcome",
    "HeuristicAgent",
    "bench_rules",
    "chunk_starts",
    "count_bid",
    "counting_bidder",
    "deal_seeds",
    "draw_report",
    "fixed_bidder",
    "heuristic_bidder",
    "lookahead_bidder",
    "make_bidders",
    "neural_bidder",
    "oracle",
    "play_chunk",
    "play_hands",
    "plot_bars",
    "plot_report",
    "print_report",
    "run_bid_bench",
    "strategy_names",
    "summarize",
    "write_json",
]
