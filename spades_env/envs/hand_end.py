"""What a hand looked like as it ended, after the engine has already dealt the next one.

When a hand ends and the match goes on, ``SpadesEngine.step`` scores it and deals the next
hand in the same call. An env whose episode is one hand (``episode="hand"``) shows the hand's
end instead: ``hand_end_view`` rebuilds it from a copy of the games taken before their last
card and the engine's ``FinishedHands`` of the step.

The tricks, winners, points and scores come from ``FinishedHands``; what the last card did to
the seat's voids and to the broken suit is applied here, as the card-play kernel
(``core.trick_play.play_cards``) does it, because neither ``FinishedHands`` nor a public
engine attribute gives it: with the engine's card-play tables public, playing the last card
on the copy with that kernel would replace those lines.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from spades_env import cards
from spades_env.engine import OVER, PLAY, SpadesEngine
from spades_env.engine.core import FinishedHands
from spades_env.engine.state import FREE_LEAD, GameState


def last_card_pending(engine: SpadesEngine, state: GameState) -> np.ndarray:
    """(B,) bool: the next action of each game plays the last card of its hand."""
    return (state.phase == PLAY) & (state.n_tricks == engine.hand_size - 1) & (state.n_in_trick == engine.n_players - 1)


def hand_end_view(
    engine: SpadesEngine, before: GameState, finished: list[FinishedHands], played: np.ndarray
) -> GameState:
    """The games of ``before`` (copies taken before each played its last card, ``played`` (G,))
    as their hands ended: phase OVER, the last card played and the tricks and scores of
    ``finished``, which must hold every game of ``before``, in the same order. Changes ``before``."""
    view = before
    f = _join(finished, before.batch_size)
    seat, led = view.to_move, view.led_suit
    played = np.asarray(played, np.int64)
    suit = np.where(played >= cards.N_STANDARD_CARDS, cards.SPADES, played // cards.N_RANKS)
    off_suit = suit != led
    view.voids |= np.where(off_suit, np.left_shift(1, 4 * seat + np.maximum(led, 0)), 0)
    view.spades_broken |= suit == engine.broken_suit
    view.hands[:] = 0
    view.trick[:] = -1
    view.n_in_trick[:] = 0
    view.led_suit[:] = FREE_LEAD
    view.n_tricks[:] = engine.hand_size
    view.tricks_won[:] = f.tricks_won
    view.trick_winners[:] = f.trick_winners
    view.history[:] = f.history
    view.scores[:] = f.scores
    engine.spec.hand_end_fields(view, f)
    view.hand_number += 1
    view.phase[:] = OVER
    return view


def _join(finished: list[FinishedHands], n_games: int) -> FinishedHands:
    """``finished`` as one record in game order; it must hold ``n_games`` games."""
    if len(finished) == 1 and np.all(np.diff(finished[0].games) > 0):
        one = finished[0]
    else:
        order = np.argsort(np.concatenate([f.games for f in finished]), kind="stable")
        kind = type(finished[0])
        one = kind(**{x.name: np.concatenate([getattr(f, x.name) for f in finished])[order]
                      for x in dataclasses.fields(kind)})  # fmt: skip
    if len(one.games) != n_games:
        raise ValueError(f"expected the finished hands of {n_games} games, got {len(one.games)}")
    return one
