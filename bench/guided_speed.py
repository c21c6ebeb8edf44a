"""Card decisions per second of search-like bot specs on one fixed set of decisions, back to back in one process.

python -m bench.guided_speed --decisions 128 "guided:samples=8,top=2" guided:fast search:fast

Every spec plays the same partnership card decisions (several legal cards each, drawn from seeded heuristic games),
seeded alike, after one small warm-up call; the cards each picks are compared with the first spec's.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents import make_agent
from agents.infoset_probe import sample_decisions
from spades_env.engine import PLAY, SpadesEngine
from spades_env.envs.context import DecisionContext
from spades_env.observation import encoder_for


def card_decisions(engine: SpadesEngine, n: int, seed: int) -> tuple[DecisionContext, np.ndarray, np.ndarray]:
    """(context, observations, masks) of up to ``n`` card decisions with more than one legal card."""
    state, seats = sample_decisions(engine, 4 * n, seed=seed, games=64)
    masks = engine.legal_action_mask(state)
    rows = np.flatnonzero((state.phase == PLAY) & (masks[:, : engine.layout.n_card_ids].sum(axis=1) > 1))[:n]
    ctx = DecisionContext(engine, state, rows, seats[rows])
    return ctx, encoder_for(engine).encode(state, rows, seats[rows]), masks[rows]


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("specs", nargs="+", help="bot specs (options joined by ',')")
    parser.add_argument("--decisions", type=int, default=128)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--rules", default="partnership")
    args = parser.parse_args(argv)
    engine = SpadesEngine(args.rules)
    ctx, obs, masks = card_decisions(engine, args.decisions, args.seed)
    rates, actions = {}, {}
    for spec in args.specs:
        bot = make_agent(spec, seed=1)
        bot.check_supports(engine)
        bot.act(obs[:2], masks[:2], ctx.take(np.arange(2)))  # loads, binds and compiles
        start = time.perf_counter()
        actions[spec] = bot.act(obs, masks, ctx)
        rates[spec] = len(masks) / (time.perf_counter() - start)
        print(f"{spec}: {len(masks)} decisions, {rates[spec]:.1f} decisions/s", flush=True)
    first = args.specs[0]
    for spec in args.specs[1:]:
        print(f"{spec}: the card of {first} on {np.mean(actions[spec] == actions[first]):.0%}")
    return rates


if __name__ == "__main__":
    main()
