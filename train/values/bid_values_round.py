"""One round's collection of the ``bid_values`` trainer (``train/values/bid_values_train.py``): deal and bid, value the
learner's bids, play the realized hands out and value its cards, and the round's scalars, by the network as it was
when the collection began.

``RoundCollector.collect`` does it in the calling thread; ``RoundCollector.start`` in a thread of its own, on a copy
of the network, so that the next round's collection runs while this round's update trains (the config's
``pipeline``): the engine, the compiled rollouts and the network's forward passes release Python's lock, so on two
cores the two overlap (the trainer's round lines then end ``wait W s of R s``: the part of the round the update
waited for a collection). Each round's positions are then played by the network of one update before, and the run is
as reproducible as without: every random stream belongs to one side (``explore`` and ``cards`` to the collection,
``minibatches`` to the update).
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from train.values.bid_values import (
    BidLearner,
    BidPositions,
    CardPositions,
    bid_regret,
    deal_and_bid,
    no_bid_choice,
    play_card_positions,
)
from train.values.bid_values_config import BidValuesConfig
from train.values.card_values import ValuedCardPositions, card_value_gain, with_card_values

#: The card scalars a round's line shows, where the run has them.
CARD_SCALARS_SHOWN = (
    ("cards", "agreement/heuristic_cards"),
    ("switched", "cards/switched"),
    ("gain", "cards/value_gain"),
)


@dataclass
class Collected:
    """A round's fresh positions (None where the round has none of that kind) and what collecting them showed."""

    bids: BidPositions | None
    cards: CardPositions | None
    scalars: dict[str, float] = field(default_factory=dict)
    """``regret/*``, ``bidding/*``, card agreement and value gain: the network as it collected."""
    times: dict[str, float] = field(default_factory=dict)
    """``time/*`` seconds of its parts."""


def card_opponent_of(config: BidValuesConfig, engine) -> tuple[Any, np.ndarray | None]:
    """The bot of ``card_opponent`` (None for the heuristic, which plays the other games anyway) and the (deals,)
    bool of the games it plays: the first ``card_opponent_share`` of each round's deals. Refused (ValueError, one
    line) where the spec names no bot or one that cannot play the rules."""
    if config.card_opponent == "heuristic" or not (config.card_weight > 0 or config.card_value_hidden):
        return None, None
    from agents import make_agent

    try:
        bot = make_agent(config.card_opponent, seed=config.seed)
    except (KeyError, ValueError, TypeError) as error:
        raise ValueError(f"bid-values config: card_opponent {config.card_opponent!r}: {error}") from None
    why = bot.unsupported_reason(engine)
    if why:
        raise ValueError(f"bid-values config: card_opponent {config.card_opponent!r} cannot play here: {why}")
    against = np.arange(config.deals) < round(config.card_opponent_share * config.deals)
    return bot, against


def reseeded(bot: Any, seed: int, rnd: int) -> Any:
    """``bot`` reset with a seed of its own for round ``rnd`` (so that a resumed run plays as one never stopped)."""
    if bot is not None:
        bot.reset(int(np.random.SeedSequence([seed, 5, rnd]).generate_state(1)[0]))
    return bot


def round_seeds(config: BidValuesConfig, rnd: int) -> np.ndarray:
    """The deal seeds of round ``rnd`` (a pure function of the seed and the round: resuming deals the same)."""
    return np.random.default_rng([config.seed, 3, rnd]).integers(0, 2**31 - 1, config.deals)


class RoundCollector:
    """Collects rounds for one run: its engine, bidders and random streams (``explore``, ``cards``), which only the
    collection draws from (the update draws ``minibatches``), one round after another in round order."""

    def __init__(self, config: BidValuesConfig, engine, heuristic, rngs: dict, teacher=None, teacher_scale=100.0):
        self.config, self.engine, self.heuristic, self.rngs = config, engine, heuristic, rngs
        self.teacher, self.teacher_scale = teacher, teacher_scale
        self.opponent, self.against = card_opponent_of(config, engine)
        self._pool: ThreadPoolExecutor | None = None

    def collect(self, rnd: int, learner: BidLearner) -> Collected:
        """Round ``rnd``'s positions, played and scored by ``learner``'s network."""
        config, engine, heuristic = self.config, self.engine, self.heuristic
        t0 = time.perf_counter()
        fresh, bid_state = deal_and_bid(
            engine, round_seeds(config, rnd), learner, heuristic, config.explore, self.rngs["explore"],
            self.teacher, self.teacher_scale, value_bids=config.trains_bids,
        )  # fmt: skip
        if fresh is None and config.trains_bids:
            raise no_bid_choice(engine.rules.name)
        scalars = round_scalars(learner, fresh, engine) if fresh is not None and config.trains_bids else {}
        t_bid = t_play = time.perf_counter()
        cards = None
        if config.card_weight > 0 or config.card_value_hidden:
            cards = play_card_positions(
                engine, bid_state, learner, heuristic, config.card_keep, self.rngs["cards"], config.card_keep_nil,
                reseeded(self.opponent, config.seed, rnd), self.against,
            )  # fmt: skip
            t_play = time.perf_counter()
            if config.card_value_hidden:
                rollout_learner = learner if config.card_rollout == "network" else None
                cards = with_card_values(engine, cards, heuristic, rollout_learner)
            scalars |= card_scalars(cards)
        t1 = time.perf_counter()
        times = {
            "time/collect_value_s": t1 - t0,  # the three below
            "time/bid_s": t_bid - t0,  # deal and bid, each candidate bid valued (rollouts or the value teacher)
            "time/play_cards_s": t_play - t_bid,  # the realized hands played out, the network at the learner's seats
            "time/label_cards_s": t1 - t_play,  # every legal card of the kept decisions played out (card values)
        }
        return Collected(fresh, cards, scalars, times)

    def start(self, rnd: int, learner: BidLearner) -> Future:
        """``collect`` in a thread of its own (one at a time: the rounds keep their order); ``learner`` must not
        change meanwhile (the trainer gives it a copy of the network)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="collect")
        return self._pool.submit(self.collect, rnd, learner)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def card_scalars(fresh: CardPositions) -> dict[str, float]:
    """The card play of a round's card positions, by the network as it collected them (``base``, ``played``, recorded
    as it played): agreement with the heuristic's card; with values, the share of cards the value head changed
    (``cards/switched``) and the points per decision on the real deal the played cards gain over the card head's
    (``cards/value_gain``) and over the heuristic's (``cards/gain_over_heuristic``)."""
    if not len(fresh):
        return {}
    base, played = fresh.base, fresh.played
    out = {"agreement/heuristic_cards": float((played == fresh.target).mean())}
    if isinstance(fresh, ValuedCardPositions):
        out |= {
            "cards/switched": float((played != base).mean()),
            "cards/value_gain": card_value_gain(played, base, fresh.values),
            "cards/gain_over_heuristic": card_value_gain(played, fresh.target, fresh.values),
        }
    return out


def bid_line(scalars: dict[str, float]) -> str:
    """The bids' part of a round's line (empty without bid positions: Hearts)."""
    if "regret/learner" not in scalars:
        return ""
    return (
        f"regret {scalars['regret/learner']:.1f} (heuristic {scalars['regret/heuristic']:.1f}) "
        f"nil {scalars['bidding/nil_rate']:.3f} "
    )


def round_scalars(learner: BidLearner, fresh: BidPositions, engine) -> dict[str, float]:
    """``regret/*`` and ``bidding/*`` of a round's positions, by the network as it collected them."""
    off = engine.layout.bid_offset
    mine = np.argmax(np.where(fresh.cand, learner.values(fresh.obs), -np.inf), axis=1)
    heur = fresh.heuristic - off
    nil = engine.layout.special("blind_nil")
    return {
        "regret/learner": bid_regret(mine, fresh.cand, fresh.values),
        "regret/heuristic": bid_regret(heur, fresh.cand, fresh.values),
        "bidding/agreement_heuristic": float((mine == heur).mean()),
        "bidding/nil_rate": float((mine == 0).mean()),
        "bidding/blind_nil_rate": float((mine == nil - off).mean()) if nil is not None else 0.0,
        "bidding/mean_bid": float(np.where(mine < engine.layout.bid_end - off, mine, 0).mean()),
    }
