"""The Spades heuristic's turns in one game, compiled (``agents.heuristic_turns``): ``spades_turns``.

Numba's cache keys a compiled function on its own file: after editing a function called from
here (the heuristic's kernels, the game's loops), clear this file's ``__pycache__`` too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.heuristic_turns import NONE_PENDING, last_card_pending
from agents.spades import heuristic_kernel
from spades_env.core import packed
from spades_env.engine import OVER
from spades_env.games.spades import loops as spades_loops
from spades_env.games.spades import state_arrays as gs


@njit(cache=True)
def spades_turns(
    first, seats, row, action, status, rules, table, hand_size, side_of_seat, partner, deck, config, tuning
):
    """Apply ``first`` (an action of the seat to move; -1: none), then the heuristic's decisions of every
    seat s with ``seats[s]`` while one is to move, in game 0 of the state ``table`` (``core.packed``),
    Spades rules ``rules`` (``core.packed.pack_rules``), ``hand_size`` cards a hand. Returns (the action
    left pending because it plays the hand's last card, or -1; the seats that moved, bit s for seat s).
    ``row`` (1, A) bool, ``action`` (1,) int64 and ``status`` (1,) int8 are scratch."""
    p, tables = packed.unpack_rules(rules)
    state = gs.unpack_state(table)
    s = gs.borrow(state)
    games = np.zeros(1, np.int64)
    who = np.zeros(1, np.int64)
    a = first
    moved = 0
    while True:
        if a >= 0:
            if last_card_pending(s, hand_size):
                return a, moved
            moved |= 1 << s.to_move[0]
            action[0] = a
            spades_loops.apply_games(0, 1, action, status, p, tables, state)
        if s.phase[0] == OVER or not seats[s.to_move[0]]:
            return NONE_PENDING, moved
        who[0] = s.to_move[0]
        spades_loops.mask_games(0, 1, games, row, p, tables, gs.decision_view(state))
        a = heuristic_kernel.decide(
            s.phase, s.hands, s.deal, s.trick, s.n_in_trick, s.led_suit, s.n_tricks, s.tricks_won, s.bids, s.blind,
            s.voids, s.scores, s.bags, s.shown, s.discards, games, who, row, side_of_seat, partner, deck, config,
            tuning,
        )[0]  # fmt: skip
