"""A rule-based Spades player, compiled: one game at a time in a compiled loop over the batch.

Every decision of a batch is answered by the same short list of rules, written over one
game's suit lanes in ``agents.heuristic_spades_kernel`` (bidding and the other pre-play
decisions) and ``agents.heuristic_spades_play`` (card play), compiled with Numba; this
module holds the bot's options and hands the batch to them. The bot reads only what the
deciding seat can see (its own hand and the public state), and it is deterministic, so
duplicate tournaments compare bots and not dice. Its decisions are pinned by
``tests/test_heuristic_positions.py`` (positions recorded with the NumPy bot it replaced).

Bidding counts sure and likely tricks (aces, protected kings, spade length and
honours, short suits with spare trumps), bids nil with a weak hand and no
dangerous high cards, adjusts for the partner's bid and the bag count, and
bids blind nil only when far behind late in the match.

Jokers (card ids 52, 53) are the two highest spades: rank 13 and 14 of a
15-bit spade lane, so every rule below treats them as trumps. The variant
decisions are short rules of their own: the two-player draw keeps a shown
card that is a likely trick (a trump, an ace or king, a guarded queen, a card
of the longest side suit); the two-player blind-nil exchange gives up high
trumps, then aces and kings; Bemo is declared (little only) with a very
strong hand and a side contract of 10+; a weak hand is shown for a redeal
when it is nearly worthless and nil is unattractive. Forced bids (mirror,
fourteen, minimum team bids) and the forced lowest-club lead come through
the legal-action mask: the bot picks the closest legal bid, the only card.

Hearts rules [RULES 7] are played by ``agents.hearts_heuristic.HeartsHeuristicAgent``,
to which ``act`` hands every decision (the two share only ``agents.heuristic_lanes``).

Card play, in order of priority:

1. I bid nil (still alive): duck every trick (highest card that does not win).
2. Partner bid nil (still alive): cover it: play high before the partner,
   overtake the partner's winning card after it.
3. An opponent bid nil (still alive): play under it; never overtake it.
4. Otherwise, while the side still needs tricks (or can set the opponents):
   lead winners, second hand low, third hand high, do not overtake the
   partner's sure winner, win as cheaply as possible; once the contract is
   made, duck to avoid bags.
"""

from __future__ import annotations

import numba
import numpy as np

from agents import heuristic_spades_config as cfg
from agents import heuristic_spades_kernel as kernel
from agents.base import Agent, DecisionContext
from agents.hearts_heuristic import HeartsHeuristicAgent
from agents.heuristic_lanes import ACE
from agents.heuristic_turns import HeuristicTurns
from spades_env import cards
from spades_env.engine import SpadesEngine


class HeuristicAgent(Agent):
    """Rule-based bidding and card play (partnership and cutthroat), deterministic."""

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        nil_threshold: float = 1.6,
        bid_bias: float = 0.45,
        set_opponents: int = 0,
        two_player_bonus: float = 2.0,
    ) -> None:
        super().__init__(seed)
        self.nil_threshold = nil_threshold
        """Highest estimated trick count with which the bot still considers nil."""
        self.bid_bias = bid_bias
        """Added to the trick estimate before rounding down: 0.5 rounds to nearest."""
        self.set_opponents = bool(set_opponents)
        """After making the contract, keep winning tricks while the opponents can still be set."""
        self.redeal_threshold = 1.5
        """A weak hand estimated below this many tricks is shown for a redeal (when nil is not bid)."""
        self.bemo_threshold = 7.0
        """Own estimated tricks needed before declaring little Bemo."""
        self.two_player_bonus = two_player_bonus
        """Two-player: tricks added to the estimate before bidding (it counts tricks as if four
        hands shared them; two players take 6.5 each on average). Tuned in duplicate self-play."""
        self._tables: dict = {}
        self._last_tables: tuple = (None, None, None)
        self._last_tuning: tuple = (None, None)
        self._hearts = HeartsHeuristicAgent(seed)
        """Hearts decisions go to the Hearts strategy (``agents.hearts_heuristic``)."""

    # ------------------------------------------------------------------ entry
    def act(self, observations, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        if context is None:
            raise ValueError("HeuristicAgent needs a DecisionContext (engine, state, games, seats)")
        if context.engine.rules.hearts:
            return self._hearts.act(observations, masks, context)
        return self._decide(context, masks)

    def decision_key(self) -> tuple | None:
        """Equal keys, equal decisions: the bot is deterministic, so two of this class with the same options
        play every position alike (``train.tournament_play.decision_groups`` lets one decide for both).
        None for a subclass (it may have options of its own)."""
        if type(self) is not HeuristicAgent:
            return None
        options = (self.nil_threshold, self.bid_bias, self.set_opponents, self.redeal_threshold, self.bemo_threshold)
        return (HeuristicAgent, *options, self.two_player_bonus)

    def compiled_turns(self, engine: SpadesEngine) -> HeuristicTurns | None:
        """This bot's turns in one game of ``engine``, one compiled call each (``agents.heuristic_turns``):
        what a single-seat env (``spades_env.envs.gym_env``) runs between its learner's moves, the same
        decisions as ``act``. None where compiled code is off (``NUMBA_DISABLE_JIT``)."""
        return None if numba.config.DISABLE_JIT else HeuristicTurns(self, engine)

    def _decide(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """(B,) int64: every decision of the batch, whatever its phase, in one compiled call."""
        eng, st = ctx.engine, ctx.state
        config, partner, deck = self._tables_for(eng)
        return kernel.decide(
            st.phase, st.hands, st.deal, st.trick, st.n_in_trick, st.led_suit, st.n_tricks, st.tricks_won,
            st.bids, st.blind, st.voids, st.scores, st.bags, st.shown, st.discards,
            np.asarray(ctx.games, dtype=np.int64), np.asarray(ctx.seats, dtype=np.int64),
            np.ascontiguousarray(masks, dtype=bool), eng.side_of_seat, partner, deck, config, self._tuning(eng),
        )  # fmt: skip

    # The phases one at a time (the train/ bid benchmark drives them so); each is ``act`` on
    # decisions of that phase.
    def blind(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Look at the cards, except blind nil when far behind with the opponents near the target."""
        return self._decide(ctx, masks)

    def draw(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Keep the shown card when it is a likely trick, else discard it (and keep the next, unseen).

        Likely tricks: a trump, an ace or king, a queen with a companion; or a card
        of my longest side suit (4+ cards), which keeps the other suits short for
        ruffing. A blind-nil drawer keeps low side cards and discards the rest.
        Reads only the shown card and the drawer's own hand.
        """
        return self._decide(ctx, masks)

    def exchange(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Blind nil: give up the riskiest card (high trumps, then aces and kings), up to 3, then stop."""
        return self._decide(ctx, masks)

    def bid(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Bid the estimated tricks (rounded with the bag count in mind), or nil with a weak hand."""
        return self._decide(ctx, masks)

    def bemo(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Little Bemo only with a very strong hand and a side contract to match; never big Bemo.

        The side must take the first 6 tricks, so the declarer's own hand must hold
        about 7 tricks and the side must have bid 10 or more with no nil.
        """
        return self._decide(ctx, masks)

    def play(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Choose a card for each decision in the play phase (see the module docstring)."""
        return self._decide(ctx, masks)

    def estimate_tricks(self, engine: SpadesEngine, hand: np.ndarray) -> np.ndarray:
        """(B,) float: expected tricks of each uint64 hand, by counting honours, length and shortness."""
        config = self._tables_for(engine)[0]
        top, average = config[cfg.C_TOP_TRUMP], config[cfg.C_AVERAGE]
        hands = np.asarray(hand, dtype=np.uint64).reshape(-1)
        return kernel.estimate_tricks_of(hands, engine.hand_size, top, average)

    @staticmethod
    def _closest_legal(bid: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The legal bid nearest to the wanted one (ties go up), never nil unless wanted."""
        return kernel.closest_legal_bids(np.asarray(bid, dtype=np.int64), np.ascontiguousarray(legal, dtype=bool))

    # ---------------------------------------------------------------- helpers
    def _tuning(self, engine: SpadesEngine) -> np.ndarray:
        """The thresholds, read at every call (they are plain attributes a caller may change)."""
        values = (
            self.nil_threshold,
            self.bid_bias,
            self.redeal_threshold,
            self.bemo_threshold,
            self.two_player_bonus,
            0.6 * engine.rules.target_score,
        )
        if values != self._last_tuning[0]:
            order = (cfg.T_NIL, cfg.T_BID_BIAS, cfg.T_REDEAL, cfg.T_BEMO, cfg.T_TWO_PLAYER_BONUS, cfg.T_BLIND_ALARM)
            tuning = np.zeros(cfg.N_TUNING)
            tuning[list(order)] = values
            self._last_tuning = (values, tuning)
        return self._last_tuning[1]

    def _tables_for(self, engine: SpadesEngine) -> tuple[np.ndarray, np.ndarray, np.uint64]:
        """(config, partner of each seat, deck mask) of an engine's rules and this bot's options, cached
        (the last one by identity: a call costs microseconds when the bot plays one game at a time)."""
        last_rules, last_option, tables = self._last_tables
        if engine.rules is last_rules and self.set_opponents == last_option:
            return tables
        key = (engine.rules, self.set_opponents)
        if key not in self._tables:
            self._tables[key] = (spades_config(engine, self.set_opponents), _partners(engine), _deck(engine))
        self._last_tables = (engine.rules, self.set_opponents, self._tables[key])
        return self._tables[key]


def spades_config(engine: SpadesEngine, set_opponents: bool) -> np.ndarray:
    """The ``config`` array of ``agents.heuristic_spades_config`` for an engine's rules."""
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
