"""Exact, score-aware endgame solver for Spades, compiled: the value of every legal card when all hands are known.

One determinized position (every hand known, the trick in progress, the tricks taken, bids,
nil and blind nil, bags and Bemo) is searched to the end of the hand. Each seat plays to
maximize its own side's *side value*: the side's bag-adjusted hand score minus the others'
(minus their mean in cutthroat). The bag-adjusted score is the hand's points with its bag
penalties put back and every bag charged ``bag_penalty / bag_limit`` (``bag_adjusted_points``,
the score tournaments and the search bot's rollouts compare); with ``adjust_bags=False`` it is
the hand's own score instead, bag penalties at the limit included (then the bags carried in
matter) [RULES 3, 5, 6].

- Two sides (partnership, two-player): the game is zero-sum, so plain alpha-beta on side 0's
  value finds it exactly.
- More sides (cutthroat): max^n. Every seat picks the card that maximizes its own side value;
  among equal ones the lowest card id (the tie rule decides what the others get, so it is part
  of the definition). No pruning: max^n without shallow pruning is exact for any scores.

Card play follows ``core.trick_play``'s tables and its compiled ``legal_cards`` (follow suit,
the spade-lead rule, jokers as the highest trumps) [RULES 1, 6]. Cards of one hand that no
live card of another hand (or of the trick in progress) separates are equivalent (swapping
them gives the same game), so only the lowest of each run is searched and the others get its
value. Hearts is not handled (``endgame_tables`` refuses it): its rollouts stay.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from agents.spades.endgame_search import equivalent, live_cards, maxn, minimax, search_stack, side_value
from spades_env.core.trick_play import TrickTables, legal_cards
from spades_env.engine import SpadesEngine
from spades_env.engine.state import GameState
from spades_env.games.spades.hand_score import ScoreTables, score_tables

NO_VALUE = -np.inf
"""Value of a card that is not legal."""


class EndgameTables(NamedTuple):
    """What the solver needs of a rule set: card play, scoring, and how bags are charged."""

    trick: TrickTables
    score: ScoreTables
    bag_cost: float
    """Points charged per bag taken (``bag_penalty / bag_limit``; 0 without bags or ``adjust_bags``)."""
    adjust_bags: bool
    """Value the bag-adjusted score (True) or the hand's own score with bag penalties (False)."""


def endgame_tables(engine: SpadesEngine, adjust_bags: bool = True) -> EndgameTables:
    """The solver's tables for ``engine``'s rules; ValueError for a game without bidding (it values Spades'
    contracts; Hearts is not solved here)."""
    rules = engine.rules
    if not rules.has_bidding:
        raise ValueError(f"engine: the endgame solver needs a game with bidding, got table {rules.name!r}")
    cost = rules.bag_penalty / rules.bag_limit if (rules.bags and adjust_bags) else 0.0
    return EndgameTables(engine.trick_tables, score_tables(rules), float(cost), bool(adjust_bags))


def solve_positions(
    engine: SpadesEngine, state: GameState, games: np.ndarray, hands: np.ndarray, adjust_bags: bool = True
) -> np.ndarray:
    """(R, C) float64: the exact value of each legal card of the seat to move in game ``games[r]``
    of ``state`` (card play) when the hands are ``hands[r]`` ((R, N) uint64; the cards already
    played are those of ``state``), for that seat's side; ``NO_VALUE`` for the other cards."""
    tables = endgame_tables(engine, adjust_bags)
    games = np.ascontiguousarray(games, dtype=np.int64)
    hands = np.ascontiguousarray(hands, dtype=np.uint64)
    if hands.ndim != 2 or hands.shape != (len(games), engine.n_players):
        raise ValueError(f"hands must be (len(games), {engine.n_players}) uint64 masks, got shape {hands.shape}")
    out = np.full((len(games), engine.layout.n_card_ids), NO_VALUE)
    s = state
    solve_each(
        games, hands, s.trick, s.n_in_trick, s.led_suit, s.to_move, s.spades_broken, s.tricks_won, s.n_tricks,
        s.trick_winners, s.bids, s.blind, s.bags, s.bemo, tables.trick, tables.score, tables.bag_cost,
        tables.adjust_bags, out,
    )  # fmt: skip
    return out


@njit(cache=True)
def solve_each(
    games, hands, trick, n_in_trick, led_suit, to_move, broken, tricks_won, n_tricks, trick_winners,
    bids, blind, bags, bemo, k, t, cost, adjust, out,
):  # fmt: skip
    """``root_values`` of position r (game ``games[r]`` of the state arrays, hands ``hands[r]``)
    into row r of ``out`` (R, C)."""
    for r in range(len(games)):
        g = games[r]
        root_values(
            hands[r].copy(), trick[g].copy(), tricks_won[g : g + 1].copy(), trick_winners[g : g + 1].copy(),
            bids[g : g + 1], blind[g : g + 1], bags[g : g + 1], bemo[g : g + 1],
            np.int64(n_in_trick[g]), np.int64(led_suit[g]), np.int64(to_move[g]), bool(broken[g]),
            np.int64(n_tricks[g]), k, t, cost, adjust, out[r],
        )  # fmt: skip


@njit(cache=True)
def root_values(h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, k, t, cost, adjust, out):
    """Write the value of each legal card of ``mover`` into ``out`` (C,), for its side: the search
    (``minimax``, two sides; ``maxn``, more) of that card alone, from the full window.

    ``h`` (N,) uint64 hands, ``tr`` (N,) the trick's cards by seat, ``tw`` (1, N) tricks won,
    ``wn`` (1, T) trick winners, ``bids`` .. ``bemo`` row 0 of the state's arrays; the scalars as
    in ``GameState`` (``led``: ``led_suit``). ``h``, ``tr``, ``tw``, ``wn`` are changed during the
    search and restored."""
    n, n_sides = len(h), t.n_sides
    side = mover % n_sides
    stack = search_stack(n, t.hand_size - n_tr, n_sides)
    legal = legal_cards(h[mover], led, n_tr, k.preferred, k.first_trick_forbidden)
    live = live_cards(h, tr, mover, n_in, n) & ~h[mover]
    prev, prev_value = -1, 0.0
    rest = legal
    while rest:
        c = np.int64(trailing_zeros(rest))
        rest &= rest - np.uint64(1)
        if prev >= 0 and equivalent(prev, c, live, k):
            out[c] = prev_value
            prev = c
            continue
        card = np.uint64(1) << np.uint64(c)
        if n_sides == 2:
            v = minimax(h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, card,
                        k, t, cost, adjust, stack)  # fmt: skip
            value = v if side == 0 else -v
        else:
            maxn(
                h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, card, k, t, cost, adjust, stack
            )
            value = side_value(stack.scores[0], side)
        out[c] = value
        prev, prev_value = c, value
