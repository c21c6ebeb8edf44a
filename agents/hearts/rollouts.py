"""The search's rollouts in Hearts, compiled (``agents.search_rollouts``, whose docstring says what they do):
every later card is the Hearts heuristic's (``agents.hearts.heuristic_kernel``), the hand is scored by
``games.hearts.hand_score.finish_hand``, and a triple's value is ``weight`` times the other sides' mean points
minus the seat's side's (points are penalties) [RULES 7].

Numba's cache keys a compiled function on its own file: after editing a function called from
here (the heuristic's play rules, ``core.trick_play``, the hand scoring, ``agents.search_rollouts``'s
helpers), clear this file's ``__pycache__`` too, or the cached rollouts run the old code.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from agents.hearts import heuristic_kernel
from agents.search_rollouts import (
    DEAL,
    HANDS,
    HISTORY,
    LED,
    N_IN,
    ROW,
    TAKEN,
    TO_MOVE,
    TRICK,
    WINNERS,
    borrowed_scratch,
    inlined,
    legal_row,
    load_scratch,
    margin,
    new_scratch,
    play_card,
)
from spades_env.core import state_arrays as sa
from spades_env.games.hearts import hand_score as hearts_score
from spades_env.games.hearts import state_arrays as gs

#: The Hearts heuristic's card choice, inlined in the rollouts (``agents.search_rollouts.inlined``).
hearts_play_choice = inlined(heuristic_kernel.play_choice)


def add_rollouts(engine, policy, games, seats, dec, card, sampled, discards, totals, weight, tables, chunked, tail):
    """Add the Hearts rollouts of candidates ``dec``, ``card`` to ``totals`` (``hearts_rollouts``, or with
    ``chunked`` its parallel twin ``hearts_rollouts_threads``; ``tail``: their last arguments, the scratch or the
    chunks, and the state's arrays); ``policy`` and ``discards`` are not read (the Hearts heuristic has no
    options, Hearts no draw)."""
    rules = engine.rules
    kernel = hearts_rollouts_threads if chunked else hearts_rollouts
    ht = hearts_score.hearts_tables(rules)
    args = (games, seats, dec, card, sampled, totals, float(weight), engine.side_of_seat, bool(rules.partnership))
    return kernel(*args, ht, tables, *tail)


@njit(cache=True)
def hearts_rollouts(
    games, seats, dec, card, sampled, totals, weight, side_of_seat, partnership, ht, tables, scratch, state
):  # fmt: skip
    """``agents.spades.rollouts.spades_rollouts`` for Hearts (a card of -1 plays on from the position too): the
    heuristic is the Hearts one (``partnership``: the rule set's), ``ht`` the rule set's ``HeartsTables``; a
    triple's value is ``weight`` times the others' mean points minus its side's."""
    s, t = gs.borrow(state), sa.borrow_tables(tables)
    n, n_sides = s.hands.shape[1], s.scores.shape[1]
    x = borrowed_scratch(scratch)
    row = x[ROW]
    side_of_seat = sa.borrowed(side_of_seat)
    taken = np.zeros((1, n), np.uint64)
    points, seat_delta = np.zeros((1, n), np.int64), np.zeros((1, n), np.int64)
    moon = np.zeros((1, n), np.bool_)
    delta, after_scores = np.zeros((1, n_sides), np.int64), np.zeros((1, n_sides), np.int64)
    penalty = np.zeros(n_sides)
    for i in range(len(dec)):
        d = dec[i]
        g, mine = games[d], side_of_seat[seats[d]]
        for j in range(sampled.shape[1]):
            load_scratch(s, g, sampled[d, j], x)
            done = play_card(x, card[i], t) if card[i] >= 0 else False
            while not done:
                seat = x[TO_MOVE][0]
                choice = legal_row(x, t, row)
                if choice < 0:  # a forced card is what any legal policy plays
                    choice = hearts_play_choice(
                        x[HANDS][0], x[DEAL][0], x[TRICK][0], x[N_IN][0], x[LED][0], x[TAKEN][0], seat, row,
                        side_of_seat, partnership, t.points,
                    )  # fmt: skip
                done = play_card(x, choice, t)
            hearts_score.finish_hand(
                0,
                x[HISTORY],
                x[WINNERS],
                s.scores[g : g + 1],
                s.hand_number[g : g + 1],
                ht,
                0,
                taken,
                points,
                moon,
                seat_delta,
                delta,
                after_scores,
            )
            for side in range(n_sides):
                penalty[side] = delta[0, side]
            totals[d, card[i]] -= margin(penalty, mine, weight)
    return totals


@njit(cache=True, parallel=True)
def hearts_rollouts_threads(
    games, seats, dec, card, sampled, totals, weight, side_of_seat, partnership, ht, tables, n_chunks, n, n_tricks,
    state,
):  # fmt: skip
    """``hearts_rollouts`` over ``n_chunks`` chunks of the candidates in parallel (as
    ``agents.spades.rollouts.spades_rollouts_threads``)."""
    p = len(dec)
    for c in prange(n_chunks):
        lo, hi = c * p // n_chunks, (c + 1) * p // n_chunks
        hearts_rollouts(
            games, seats, dec[lo:hi], card[lo:hi], sampled, totals, weight, side_of_seat, partnership, ht, tables,
            new_scratch(n, n_tricks), state,
        )  # fmt: skip
    return totals
