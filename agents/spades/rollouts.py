"""The search's rollouts in Spades, compiled (``agents.search_rollouts``, whose docstring says what they do):
every later card is the Spades heuristic's (``agents.spades.heuristic_play``), the hand is scored by
``games.spades.hand_score.finish_hand``, and a triple's value is the seat's side's bag-adjusted points
(``games.spades.scoring.bag_adjusted_points``: bag penalties put back, every bag charged
``bag_penalty / bag_limit``) minus ``weight`` times the mean of the other sides' [RULES 3].

Numba's cache keys a compiled function on its own file: after editing a function called from
here (the heuristic's play rules, ``core.trick_play``, the hand scoring, ``agents.search_rollouts``'s
helpers), clear this file's ``__pycache__`` too, or the cached rollouts run the old code.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from agents.search_rollouts import (
    DEAL,
    HANDS,
    LED,
    N_IN,
    N_TRICKS,
    ROW,
    TO_MOVE,
    TRICK,
    VOIDS,
    WINNERS,
    WON,
    borrowed_scratch,
    inlined,
    legal_row,
    load_scratch,
    margin,
    new_scratch,
    play_card,
)
from agents.spades import heuristic_play
from spades_env.core import state_arrays as sa
from spades_env.games.spades import hand_score as spades_score
from spades_env.games.spades import state_arrays as gs

#: The Spades heuristic's card choice, inlined in the rollouts (``agents.search_rollouts.inlined``).
spades_play_choice = inlined(heuristic_play.play_choice)


def add_rollouts(engine, policy, games, seats, dec, card, sampled, discards, totals, weight, tables, chunked, tail):
    """Add the Spades rollouts of candidates ``dec``, ``card`` to ``totals`` (``spades_rollouts``, or with
    ``chunked`` its parallel twin ``spades_rollouts_threads``; ``tail``: their last arguments, the scratch or the
    chunks, and the state's arrays); ``policy``: the ``HeuristicAgent`` whose options the rollouts play with."""
    rules = engine.rules
    kernel = spades_rollouts_threads if chunked else spades_rollouts
    config, partner, deck = policy.game_rules(engine).tables(engine)
    bag_cost = rules.bag_penalty / rules.bag_limit if rules.bags else 0.0
    st = spades_score.score_tables(rules)
    args = (games, seats, dec, card, sampled, discards, totals, float(weight), engine.side_of_seat, partner, deck)
    return kernel(*args, config, st, bag_cost, tables, *tail)


@njit(cache=True)
def _spades_buffers(n_sides):
    """The hand-score outputs of ``hand_score.finish_hand`` for one game, and the bag-adjusted points."""
    delta = np.zeros((1, n_sides), np.int64)
    return (
        delta, np.zeros_like(delta), np.zeros((1, n_sides), np.bool_), np.zeros_like(delta), np.zeros_like(delta),
        np.zeros((1, n_sides), np.bool_), np.zeros_like(delta), np.zeros(n_sides),
    )  # fmt: skip


@njit(cache=True)
def _spades_play_out(
    s, g, x, discards, done, t, row, side_of_seat, partner, deck, config, st, bag_cost, buf, mine, weight
):  # fmt: skip
    """Play the scratch game ``x`` (game ``g`` of ``s`` with its hands, ``discards`` (N,) each seat's two-player
    draw discards in the layout; ``done``: its hand is over) to the hand's end with the heuristic, score it, and
    return side ``mine``'s bag-adjusted points minus ``weight`` times the other sides' mean (``margin``)."""
    while not done:
        seat = x[TO_MOVE][0]
        choice = legal_row(x, t, row)
        if choice < 0:  # a forced card is what any legal policy plays
            choice = spades_play_choice(
                x[HANDS][0], x[DEAL][0], x[TRICK][0], x[N_IN][0], x[LED][0], x[N_TRICKS][0], x[WON][0],
                s.bids[g], s.blind[g], x[VOIDS][0], s.bags[g, side_of_seat[seat]], discards[seat], seat,
                row, side_of_seat, partner, deck, config,
            )  # fmt: skip
        done = play_card(x, choice, t)
    delta, after, made, added, penalties, boston, after_scores, adjusted = buf
    spades_score.finish_hand(
        0, x[WON], s.bids[g : g + 1], s.blind[g : g + 1], x[WINNERS], s.bemo[g : g + 1], s.scores[g : g + 1],
        s.bags[g : g + 1], s.hand_number[g : g + 1], st, 0, delta, after, made, added, penalties, boston,
        after_scores,
    )  # fmt: skip
    for side in range(len(adjusted)):  # ``games.spades.scoring.bag_adjusted_points``
        adjusted[side] = (delta[0, side] + penalties[0, side] * st.bag_penalty) - added[0, side] * bag_cost
    return margin(adjusted, mine, weight)


@njit(cache=True)
def spades_rollouts(
    games, seats, dec, card, sampled, discards, totals, weight, side_of_seat, partner, deck, config, st, bag_cost,
    tables, scratch, state,
):  # fmt: skip
    """Add to ``totals[dec[i], card[i]]`` the value of each sample's rollout of candidate i (Spades).

    ``games``, ``seats`` (D,): the decisions; ``dec``, ``card`` (P,): the candidates (a card of -1: none,
    the game plays on from its position, and its value goes to ``totals[dec[i], -1]``); ``sampled``
    (D, S, N) uint64: each decision's sampled hands; ``discards`` (D, S, N) uint64: each sample's two-player draw
    discards (the rollout heuristic of each seat reads its own; never the state's, which hold the hidden ones);
    ``weight``: of the other sides' mean (``margin``);
    ``side_of_seat``, ``partner``, ``deck``, ``config``: the heuristic's tables
    (``agents.spades.heuristic.spades_config``); ``st``: the rule set's ``ScoreTables``; ``bag_cost``: points
    charged per bag; ``tables``: ``TrickTables`` fields in order; ``scratch``: ``new_scratch``'s arrays (the
    one game played; passed in, so that they outlive their borrowed views); ``state``: the state's arrays
    (``core.state_arrays.FIELDS``)."""
    s, t = gs.borrow(state), sa.borrow_tables(tables)
    x = borrowed_scratch(scratch)
    row = x[ROW]
    buf = _spades_buffers(s.scores.shape[1])
    side_of_seat, partner, config = sa.borrowed(side_of_seat), sa.borrowed(partner), sa.borrowed(config)
    for i in range(len(dec)):
        d = dec[i]
        g, mine = games[d], side_of_seat[seats[d]]
        for j in range(sampled.shape[1]):
            load_scratch(s, g, sampled[d, j], x)
            done = play_card(x, card[i], t) if card[i] >= 0 else False
            totals[d, card[i]] += _spades_play_out(
                s, g, x, discards[d, j], done, t, row, side_of_seat, partner, deck, config, st, bag_cost, buf, mine,
                weight,
            )  # fmt: skip
    return totals


@njit(cache=True, parallel=True)
def spades_rollouts_threads(
    games, seats, dec, card, sampled, discards, totals, weight, side_of_seat, partner, deck, config, st, bag_cost,
    tables, n_chunks, n, n_tricks, state,
):  # fmt: skip
    """``spades_rollouts`` over ``n_chunks`` chunks of the candidates in parallel (``prange``), each with a scratch
    game of its own (``new_scratch(n, n_tricks)``): the same values to the bit (a candidate's samples add up in order
    on one thread, and no two candidates share a ``totals`` entry)."""
    p = len(dec)
    for c in prange(n_chunks):
        lo, hi = c * p // n_chunks, (c + 1) * p // n_chunks
        spades_rollouts(
            games, seats, dec[lo:hi], card[lo:hi], sampled, discards, totals, weight, side_of_seat, partner, deck,
            config, st, bag_cost, tables, new_scratch(n, n_tricks), state,
        )  # fmt: skip
    return totals
