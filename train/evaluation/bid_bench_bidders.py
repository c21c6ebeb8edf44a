"""The bidders of the bidding benchmark (``train/evaluation/bid_bench.py``): a function (context, legal masks) -> bid
actions.

``count_bid`` is the counting rule; the others wrap a bot's bidding (``HeuristicAgent.bid``, the
lookahead of ``agents.search_bidding``, a ``NeuralAgent``'s bidding head, any bot spec's ``act``: ``BotBidder``)
or fixed bids (the oracle's candidates). Every bid but a bot's goes through ``_legal_bid_action``: the legal bid
nearest to the one wanted; a bot's must be legal itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from agents import make_agent
from agents.base import DecisionContext
from agents.heuristic import HeuristicAgent
from spades_env import cards
from spades_env.engine import SpadesEngine, bits

#: A bidder: (context of the deciding seats, (G, A) legal masks) -> (G,) bid action ids.
Bidder = Callable[[DecisionContext, np.ndarray], np.ndarray]


def count_bid(hand: np.ndarray) -> np.ndarray:
    """The counting rule: one trick per ace, one per king, one per spade beyond the third.

    hand: (G,) uint64 card masks -> (G,) int64 bids, at least 1 (this rule never bids nil).
    """
    lanes = bits.lanes(np.asarray(hand, dtype=np.uint64), 4)  # (G, 4) 13-bit rank sets per suit
    aces = ((lanes >> (cards.N_RANKS - 1)) & 1).sum(axis=1)
    kings = ((lanes >> (cards.N_RANKS - 2)) & 1).sum(axis=1)
    spades = bits.popcount(lanes[:, cards.SPADES].astype(np.uint64)).astype(np.int64)
    return np.maximum(1, aces + kings + np.maximum(0, spades - 3)).astype(np.int64)


def _legal_bid_action(engine: SpadesEngine, want: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The legal bid action nearest to each wanted bid (HeuristicAgent's rounding)."""
    lay = engine.layout
    return HeuristicAgent._closest_legal(want, masks[:, lay.bid_offset : lay.blind_nil]) + lay.bid_offset


def counting_bidder(ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
    """``count_bid`` of each deciding seat's hand, as legal bid actions."""
    hand = ctx.state.hands[ctx.games, ctx.seats]
    return _legal_bid_action(ctx.engine, count_bid(hand), masks)


def heuristic_bidder(ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
    """HeuristicAgent's bid."""
    return HeuristicAgent().bid(ctx, masks)


def lookahead_bidder(samples: int, seed: int) -> Bidder:
    """``agents.search_bidding.lookahead_bids`` with ``samples`` deals per decision, seeded with ``seed``,
    maximizing the side's own points (the benchmark's measure, as the oracle does)."""
    from agents.search_bidding import lookahead_bids

    rng = np.random.default_rng(seed)
    heuristic = HeuristicAgent()

    def bid(ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        return lookahead_bids(ctx, masks, samples, rng, heuristic=heuristic, opponents_weight=0.0)[0]

    return bid


def neural_bidder(checkpoint: str | Path, bid_samples: int = 0, seed: int | None = None) -> Bidder:
    """The bidding head of a NeuralAgent checkpoint (greedy), reading the seat's observation; ``bid_samples``: its
    values averaged with a lookahead's on that many sampled deals (``NeuralAgent.bid_samples``; seeded: ``seed``)."""
    from agents.neural import NeuralAgent
    from spades_env.observation import encoder_for

    agent = NeuralAgent.from_checkpoint(checkpoint, bid_samples=bid_samples, seed=seed)
    encoders: dict = {}

    def bid(ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        enc = encoders.setdefault(id(ctx.engine), encoder_for(ctx.engine))
        return agent.act(enc.encode(ctx.state, ctx.games, ctx.seats), masks, ctx)

    return bid


def fixed_bidder(bids: np.ndarray) -> Bidder:
    """Bids given in advance: ``bids`` (G, N) int64 wanted bid of each seat of each game."""

    def bid(ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        return _legal_bid_action(ctx.engine, bids[ctx.games, ctx.seats], masks)

    return bid


class BotBidder:
    """The bids of any bot spec (``agents.make_agent``): its ``act`` at the tested side's bid decisions, given the
    seat's observation where the bot reads them (``uses_observations``). Re-seeded at each chunk of deals
    (``start_chunk``), so that a chunk's bids depend on the chunk alone, here or on Ray."""

    def __init__(self, spec: str, seed: int, engine: SpadesEngine) -> None:
        self.spec, self.seed = spec, seed
        self.agent = make_agent(spec, seed=seed)
        self.agent.check_supports(engine)
        self.encoder = None
        if self.agent.uses_observations:
            from spades_env.observation import encoder_for

            self.encoder = encoder_for(engine)

    def start_chunk(self, first_deal: int) -> None:
        """Re-seed the bot for the chunk whose first deal is ``first_deal``."""
        self.agent.reset(int(np.random.SeedSequence([self.seed, first_deal]).generate_state(1)[0]))

    def __call__(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        observations = None if self.encoder is None else self.encoder.encode(ctx.state, ctx.games, ctx.seats)
        actions = np.asarray(self.agent.act(observations, masks, ctx), dtype=np.int64).reshape(len(masks))
        legal = (actions >= 0) & (actions < masks.shape[1])
        legal[legal] = masks[np.flatnonzero(legal), actions[legal]]
        if not legal.all():
            row = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"bidder {self.spec!r} chose the illegal action {int(actions[row])}; legal: "
                f"{np.flatnonzero(masks[row]).tolist()}"
            )
        return actions
