"""What a card-value round's collection costs, part by part: ``python -m bench.card_value_rounds [--deals N]``.

The recipe's own functions on its own network (``configs/train/card_values_torso.yaml``: the learned partnership
bot's start), one torch thread: the deals bid (with and without valuing every candidate bid, which a card-value run
skips since it trains no bid: ``deal_and_bid(value_bids=False)``), the realized hands played by the network, and every
legal card of its decisions played out by the compiled heuristic (the labels). Rounds alternate, so that both ways
see the same load; the ratio is the figure to read.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def measure(deals: int, repeats: int, config_path: str) -> list[dict[str, float]]:
    import torch

    from agents.heuristic import HeuristicAgent
    from spades_env.engine import SpadesEngine
    from spades_env.observation import encoder_for
    from spades_env.rules import resolve_rules
    from train.values.bid_values import BidLearner, deal_and_bid, play_card_positions
    from train.values.bid_values_config import BidValuesConfig
    from train.values.bid_values_network import load_network
    from train.values.card_values import with_card_values

    torch.set_num_threads(1)
    config = BidValuesConfig.from_yaml(config_path)
    engine = SpadesEngine(resolve_rules(config.rules))
    encoder = encoder_for(engine)
    policy = load_network(config, engine, encoder).eval()
    learner = BidLearner(policy, engine, encoder, torch.device("cpu"), config.card_margin, config.value_scale)
    heuristic = HeuristicAgent()
    seeds = np.arange(deals)
    deal_and_bid(engine, seeds[:8], learner, heuristic, 0.0, np.random.default_rng(0))  # compiled before timing
    out = []
    for _ in range(repeats):
        for value_bids in (True, False):
            t0 = time.perf_counter()
            _, state = deal_and_bid(
                engine, seeds, learner, heuristic, 0.0, np.random.default_rng(0), value_bids=value_bids
            )
            t1 = time.perf_counter()
            cards = play_card_positions(engine, state, learner, heuristic, 1.0, np.random.default_rng(0))
            t2 = time.perf_counter()
            with_card_values(engine, cards, heuristic)
            t3 = time.perf_counter()
            out.append({"value_bids": value_bids, "bid": t1 - t0, "play": t2 - t1, "label": t3 - t2, "total": t3 - t0})
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2048)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--config", default="configs/train/card_values_torso.yaml")
    args = parser.parse_args(argv)
    rows = measure(args.deals, args.repeats, args.config)
    for r in rows:
        print(
            f"value_bids={r['value_bids']!s:5}  bid {r['bid']:.2f}s  play {r['play']:.2f}s  "
            f"label {r['label']:.2f}s  collection {r['total']:.2f}s"
        )
    before = np.mean([r["total"] for r in rows if r["value_bids"]])
    after = np.mean([r["total"] for r in rows if not r["value_bids"]])
    print(f"collection without valuing the bids: {before / after:.2f}x faster ({args.deals} deals)")


if __name__ == "__main__":
    main()
