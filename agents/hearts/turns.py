"""The Hearts heuristic's turns in one game, compiled (``agents.heuristic_turns``): ``hearts_turns``.

Numba's cache keys a compiled function on its own file: after editing a function called from
here (the heuristic's kernel, the game's loops), clear this file's ``__pycache__`` too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.hearts import heuristic_kernel
from agents.heuristic_turns import NONE_PENDING, last_card_pending
from spades_env.core import packed
from spades_env.engine import OVER
from spades_env.games.hearts import loops as hearts_loops
from spades_env.games.hearts import state_arrays as gs


@njit(cache=True)
def hearts_turns(first, seats, row, action, status, rules, table, hand_size, side_of_seat, partnership, points):
    """``agents.spades.turns.spades_turns`` for Hearts rules: the Hearts heuristic (``partnership``, card
    ``points``: the rule set's)."""
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
            hearts_loops.apply_games(0, 1, action, status, p, tables, state)
        if s.phase[0] == OVER or not seats[s.to_move[0]]:
            return NONE_PENDING, moved
        who[0] = s.to_move[0]
        hearts_loops.mask_games(0, 1, games, row, p, tables, gs.decision_view(state))
        a = heuristic_kernel.decide(
            s.phase, s.hands, s.deal, s.trick, s.n_in_trick, s.led_suit, s.passed, s.points_taken, games, who, row,
            side_of_seat, partnership, points,
        )[0]  # fmt: skip
