"""The Spades rules of the heuristic bot (``agents.heuristic.HeuristicAgent``): its options as the compiled
rules read them, its decisions and its turns in one game.

``SpadesHeuristic`` is built by ``HeuristicAgent`` for Spades tables (``agents.game_parts``): it turns the
bot's options and an engine's rules into the ``config`` and ``tuning`` arrays of
``agents.spades.heuristic_config`` and hands the batch to ``agents.spades.heuristic_kernel.decide``, one
compiled call. The rules themselves are described in ``agents.heuristic``.
"""

from __future__ import annotations

import numpy as np

from agents.heuristic_lanes import ACE
from agents.spades import heuristic_config as cfg
from agents.spades import heuristic_kernel as kernel
from agents.spades.turns import spades_turns
from spades_env import cards
from spades_env.engine import SpadesEngine


class SpadesHeuristic:
    """The heuristic's Spades decisions with the options of ``agent`` (read at every call: they are plain
    attributes a caller may change)."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self._tables: dict = {}
        self._last_tables: tuple = (None, None, None)
        self._last_tuning: tuple = (None, None)

    def decide(self, ctx, masks: np.ndarray) -> np.ndarray:
        """(B,) int64: every decision of the batch, whatever its phase, in one compiled call."""
        eng, st = ctx.engine, ctx.state
        config, partner, deck = self.tables(eng)
        return kernel.decide(
            st.phase, st.hands, st.deal, st.trick, st.n_in_trick, st.led_suit, st.n_tricks, st.tricks_won,
            st.bids, st.blind, st.voids, st.scores, st.bags, st.shown, st.discards,
            np.asarray(ctx.games, dtype=np.int64), np.asarray(ctx.seats, dtype=np.int64),
            np.ascontiguousarray(masks, dtype=bool), eng.side_of_seat, partner, deck, config, self.tuning(eng),
        )  # fmt: skip

    def turns(self, engine: SpadesEngine, common: tuple) -> tuple[int, int]:
        """The heuristic's turns in game 0 (``agents.heuristic_turns.HeuristicTurns.play``; ``common``: the
        arguments every game's compiled turns take first)."""
        config, partner, deck = self.tables(engine)
        return spades_turns(*common, engine.side_of_seat, partner, deck, config, self.tuning(engine))

    def estimate_tricks(self, engine: SpadesEngine, hand: np.ndarray) -> np.ndarray:
        """(B,) float: expected tricks of each uint64 hand, by counting honours, length and shortness."""
        config = self.tables(engine)[0]
        top, average = config[cfg.C_TOP_TRUMP], config[cfg.C_AVERAGE]
        hands = np.asarray(hand, dtype=np.uint64).reshape(-1)
        return kernel.estimate_tricks_of(hands, engine.hand_size, top, average)

    def tuning(self, engine: SpadesEngine) -> np.ndarray:
        """The thresholds, read at every call (they are plain attributes a caller may change)."""
        a = self.agent
        values = (
            a.nil_threshold,
            a.bid_bias,
            a.redeal_threshold,
            a.bemo_threshold,
            a.two_player_bonus,
            0.6 * engine.rules.target_score,
        )
        if values != self._last_tuning[0]:
            order = (cfg.T_NIL, cfg.T_BID_BIAS, cfg.T_REDEAL, cfg.T_BEMO, cfg.T_TWO_PLAYER_BONUS, cfg.T_BLIND_ALARM)
            tuning = np.zeros(cfg.N_TUNING)
            tuning[list(order)] = values
            self._last_tuning = (values, tuning)
        return self._last_tuning[1]

    def tables(self, engine: SpadesEngine) -> tuple[np.ndarray, np.ndarray, np.uint64]:
        """(config, partner of each seat, deck mask) of an engine's rules and the bot's options, cached
        (the last one by identity: a call costs microseconds when the bot plays one game at a time)."""
        set_opponents = self.agent.set_opponents
        last_rules, last_option, tables = self._last_tables
        if engine.rules is last_rules and set_opponents == last_option:
            return tables
        key = (engine.rules, set_opponents)
        if key not in self._tables:
            self._tables[key] = (spades_config(engine, set_opponents), _partners(engine), _deck(engine))
        self._last_tables = (engine.rules, set_opponents, self._tables[key])
        return self._tables[key]


def spades_config(engine: SpadesEngine, set_opponents: bool) -> np.ndarray:
    """The ``config`` array of ``agents.spades.heuristic_config`` for an engine's rules."""
    rules, lay = engine.rules, engine.layout
    out = np.full(cfg.N_CONFIG, -1, dtype=np.int64)
    out[cfg.C_PLAYERS] = engine.n_players
    out[cfg.C_HAND_SIZE] = engine.hand_size
    out[cfg.C_CARD_IDS] = lay.n_card_ids
    out[cfg.C_MAX_BID] = lay.max_bid
    out[cfg.C_BID_OFFSET] = lay.bid_offset
    for index, name in (
        (cfg.C_BLIND_NIL, "blind_nil"),
        (cfg.C_LOOK, "look"),
        (cfg.C_KEEP, "keep"),
        (cfg.C_DISCARD, "discard"),
        (cfg.C_EXCHANGE_DONE, "exchange_done"),
        (cfg.C_NO_BEMO, "no_bemo"),
        (cfg.C_LITTLE_BEMO, "little_bemo"),
        (cfg.C_REDEAL, "redeal"),
    ):
        action = lay.special(name)
        out[index] = -1 if action is None else action
    out[cfg.C_PARTNERSHIP] = int(rules.partnership)
    out[cfg.C_TWO_PLAYER] = int(rules.two_player)
    out[cfg.C_BAGS] = int(rules.bags)
    out[cfg.C_BAG_LIMIT] = rules.bag_limit
    out[cfg.C_TOP_TRUMP] = ACE + 2 * int(rules.jokers)  # the big joker (14) with jokers, else the ace
    out[cfg.C_AVERAGE] = round(13 / engine.n_players)
    out[cfg.C_SET_OPPONENTS] = int(set_opponents)
    return out


def _partners(engine: SpadesEngine) -> np.ndarray:
    """Partner of each seat (partnership), else each seat itself (never read)."""
    return np.arange(engine.n_players, dtype=np.int64) if engine.partner is None else engine.partner.astype(np.int64)


def _deck(engine: SpadesEngine) -> np.uint64:
    return np.uint64(cards.cards_to_mask(engine.deck))
