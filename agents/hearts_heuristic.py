"""A rule-based Hearts player [RULES 7], compiled like ``agents.heuristic``: the rules are in
``agents.heuristic_hearts_kernel``, run one game at a time in a compiled loop over the batch.

``HeuristicAgent`` hands every Hearts decision to this class. It reads only what the
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

from agents import heuristic_hearts_kernel as kernel
from agents.base import Agent, DecisionContext
from spades_env.games.hearts.scoring import card_points


class HeartsHeuristicAgent(Agent):
    """Rule-based Hearts passing and card play (individual and partnership), deterministic."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._points: tuple = (None, None)
        """(rules, card points) of the last rule set played: looked up by identity, since a call costs
        microseconds when the bot plays one game at a time."""

    def act(self, observations, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        if context is None:
            raise ValueError("HeartsHeuristicAgent needs a DecisionContext (engine, state, games, seats)")
        eng, st = context.engine, context.state
        if eng.rules is not self._points[0]:
            self._points = (eng.rules, card_points(eng.rules))
        return kernel.decide(
            st.phase, st.hands, st.deal, st.trick, st.n_in_trick, st.led_suit, st.passed, st.points_taken,
            np.asarray(context.games, dtype=np.int64), np.asarray(context.seats, dtype=np.int64),
            np.ascontiguousarray(masks, dtype=bool), eng.side_of_seat, bool(eng.rules.partnership),
            self._points[1],
        )  # fmt: skip

    def pass_cards(self, ctx: DecisionContext, legal: np.ndarray) -> np.ndarray:
        """The most dangerous card still in hand (see the module docstring), for decisions in PASS."""
        return self.act(None, legal, ctx)

    def play(self, ctx: DecisionContext, legal: np.ndarray) -> np.ndarray:
        """A card for each decision of the play phase (see the module docstring)."""
        return self.act(None, legal, ctx)
