"""A rule-based player, compiled: one game at a time in a compiled loop over the batch.

Every decision of a batch is answered by the same short list of rules of the table's game, its
bot part (``agents.game_parts``): in Spades written over one game's suit lanes in
``agents.spades.heuristic_kernel`` (bidding and the other pre-play decisions) and
``agents.spades.heuristic_play`` (card play), compiled with Numba, with this bot's options
(``agents.spades.heuristic``); this module holds the options and hands the batch to the game's rules.
The bot reads only what the deciding seat can see (its own hand and the public state), and it is deterministic, so
duplicate tournaments compare bots and not dice. Its decisions are pinned by
``tests/agents/test_heuristic_positions.py`` (positions recorded with the NumPy bot it replaced).

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

Hearts rules [RULES 7] are played by ``agents.hearts.heuristic.HeartsHeuristic``, to which
``act`` hands every Hearts decision (the two share only ``agents.heuristic_lanes``).

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

from agents.base import Agent, DecisionContext
from agents.game_parts import bot_part
from agents.heuristic_turns import HeuristicTurns
from agents.spades.heuristic_kernel import closest_legal_bids
from spades_env.engine import SpadesEngine


class HeuristicAgent(Agent):
    """Rule-based decisions of every game (Spades: bidding and card play, partnership and cutthroat; Hearts:
    the pass and card play), deterministic. Its options tune the Spades bidding and play."""

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
        self._games: dict = {}
        """Each game's rules of this bot (``game_rules``), by ``Rules.game``."""
        self._last_game: tuple = (None, None)
        """(rules, game rules) of the last rule set played: looked up by identity, since a call costs
        microseconds when the bot plays one game at a time."""

    # ------------------------------------------------------------------ entry
    def act(self, observations, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        if context is None:
            raise ValueError("HeuristicAgent needs a DecisionContext (engine, state, games, seats)")
        return self._decide(context, masks)

    def game_rules(self, engine: SpadesEngine):
        """This bot's rules of ``engine``'s game (its bot part ``heuristic``, built once per game with this
        bot's options: ``agents.spades.heuristic.SpadesHeuristic``, ``agents.hearts.heuristic.HeartsHeuristic``)."""
        rules = engine.rules
        if rules is self._last_game[0]:
            return self._last_game[1]
        if rules.game not in self._games:
            self._games[rules.game] = bot_part(rules.game, "heuristic", "the heuristic bot")(self)
        self._last_game = (rules, self._games[rules.game])
        return self._last_game[1]

    def decision_key(self) -> tuple | None:
        """Equal keys, equal decisions: the bot is deterministic, so two of this class with the same options
        play every position alike (``train.evaluation.tournament_play.decision_groups`` lets one decide for both).
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
        """(B,) int64: every decision of the batch, whatever its phase, in one compiled call of the game's rules."""
        return self.game_rules(ctx.engine).decide(ctx, masks)

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
        """(B,) float: expected tricks of each uint64 hand, by counting honours, length and shortness (what the
        bot bids on: a game with bidding)."""
        if not engine.rules.has_bidding:
            raise ValueError(f"estimate_tricks needs a game with bidding, got table {engine.rules.name!r}")
        return self.game_rules(engine).estimate_tricks(engine, hand)

    @staticmethod
    def _closest_legal(bid: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The legal bid nearest to the wanted one (ties go up), never nil unless wanted."""
        return closest_legal_bids(np.asarray(bid, dtype=np.int64), np.ascontiguousarray(legal, dtype=bool))
