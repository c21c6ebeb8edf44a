"""The Hearts rules of the heuristic bot [RULES 7], compiled like Spades': the rules are in
``agents.hearts.heuristic_kernel``, run one game at a time in a compiled loop over the batch.

``HeuristicAgent`` hands every Hearts decision to ``HeartsHeuristic`` (its bot part ``heuristic``,
``agents.game_parts``). It reads only what the
deciding seat can see (its hand, the cards it passed, the public trick history and the
points each seat has taken) and is deterministic.

Passing (three cards, the most dangerous first):

1. the queen of spades, then the ace and king of spades (unless five or more spades
   protect them), then high hearts (ten and up);
2. otherwise high cards of short clubs and diamonds, to void a suit.

Card play, in order of priority:

1. Stop a moon shot: when one opponent has taken every point so far (at least 14), win a
   trick with points in it if possible, and never discard a point card to that player.
2. Follow suit: duck with the highest card that loses to the current winner (the queen of
   spades goes under a king or ace); when every card wins, the last player takes the trick
   with its highest card, others play their lowest.
3. Discard (void in the led suit): the queen of spades, then the ace and king of spades
   while the queen is out, then the highest heart, then the highest card of the shortest
   suit (to void it). In partnership nothing with points goes on the partner's trick.
4. Lead: a low spade to flush out the queen when it is still out and every spade held is
   below it; otherwise the lowest card, keeping off spades while holding the queen, king
   or ace of spades.
"""

from __future__ import annotations

import numpy as np

from agents.hearts import heuristic_kernel as kernel
from agents.hearts.turns import hearts_turns
from spades_env.engine import SpadesEngine
from spades_env.games.hearts.scoring import card_points


class HeartsHeuristic:
    """The heuristic's Hearts passing and card play (individual and partnership), deterministic; built with the
    ``HeuristicAgent`` (whose options tune its Spades play: Hearts has none)."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self._points: tuple = (None, None)
        """(rules, card points) of the last rule set played: looked up by identity, since a call costs
        microseconds when the bot plays one game at a time."""

    def points(self, engine: SpadesEngine) -> np.ndarray:
        """The card points of ``engine``'s rules (``games.hearts.scoring.card_points``), kept for the last rules."""
        if engine.rules is not self._points[0]:
            self._points = (engine.rules, card_points(engine.rules))
        return self._points[1]

    def decide(self, ctx, masks: np.ndarray) -> np.ndarray:
        """(B,) int64: every decision of the batch (a card to pass or to play), in one compiled call."""
        eng, st = ctx.engine, ctx.state
        return kernel.decide(
            st.phase, st.hands, st.deal, st.trick, st.n_in_trick, st.led_suit, st.passed, st.points_taken,
            np.asarray(ctx.games, dtype=np.int64), np.asarray(ctx.seats, dtype=np.int64),
            np.ascontiguousarray(masks, dtype=bool), eng.side_of_seat, bool(eng.rules.partnership), self.points(eng),
        )  # fmt: skip

    def turns(self, engine: SpadesEngine, common: tuple) -> tuple[int, int]:
        """The heuristic's turns in game 0 (``agents.heuristic_turns.HeuristicTurns.play``; ``common``: the
        arguments every game's compiled turns take first)."""
        return hearts_turns(*common, engine.side_of_seat, bool(engine.rules.partnership), self.points(engine))
