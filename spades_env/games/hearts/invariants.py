"""Hearts' invariants of an engine state [RULES 7]: the pass in turn (three cards each, exchanged all at
once), its own field (``state_fields.py``), and the points taken (the core's ``points_taken``, counted from
Hearts' card points). ``check_state`` (in ``spades_env.engine.check``) runs them through
``HeartsSpec.check_state``, after the invariants of every game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from spades_env.core import bits
from spades_env.core.checks import require
from spades_env.core.phases import OVER
from spades_env.games.hearts.phases import PASS, PASS_CARDS
from spades_env.games.hearts.scoring import cards_taken

if TYPE_CHECKING:
    from spades_env.core.table_facts import TableFacts
    from spades_env.facts.state import GameState

U64 = np.uint64


def check_hearts(facts: TableFacts, state: GameState) -> None:
    """Hearts: the pass in turn, three cards each, exchanged all at once; points taken [RULES 7]."""
    b, n = state.batch_size, facts.n_players
    phase = state.phase
    passing = phase == PASS
    offset = facts.pass_offset(state.hand_number)
    require(~passing | (offset != 0), "a pass phase on a no-pass hand")
    n_passed = bits.popcount(state.passed)
    require(np.all(n_passed <= PASS_CARDS, axis=1), f"a seat passes more than {PASS_CARDS} cards")
    require(np.where(passing, (state.n_tricks == 0) & (state.n_in_trick == 0), True), "tricks played while passing")
    require(np.where(passing, np.all(state.hands == state.deal, axis=1), True), "hands changed while passing")
    require(~passing | ~np.any((state.passed & ~state.hands) != 0, axis=1), "a passed card is not in the hand")
    # Seats choose clockwise from dealer+1: those before the mover have chosen 3, those after none.
    first = (state.dealer + 1) % n
    by_order = np.take_along_axis(n_passed, (first[:, None] + np.arange(n)) % n, axis=1)
    pos = ((state.to_move - first) % n)[:, None]
    k = np.arange(n)[None]
    in_turn = np.all(np.where(k < pos, by_order == PASS_CARDS, np.where(k > pos, by_order == 0, by_order < 3)), axis=1)
    require(~passing | in_turn, "passing out of turn")
    # In play: everyone passed 3 (0 on a no-pass hand) and holds what its giver passed.
    started = ~passing & (phase != OVER)
    want = np.where(offset == 0, 0, PASS_CARDS)
    require(~started | np.all(n_passed == want[:, None], axis=1), "play began before every seat passed")
    giver = (np.arange(n)[None, :] - offset[:, None]) % n
    received = np.take_along_axis(state.passed, giver, axis=1)
    moved = offset[:, None] != 0
    ok = ((received & ~state.deal) == 0) & (~moved | ((state.passed & state.deal) == 0))
    require(~started | np.all(ok, axis=1), "the passed cards did not change hands")
    taken = cards_taken(state.history, state.trick_winners, n)
    points = facts.trick_tables.points
    expect = np.zeros((b, n), np.int64)
    for c in np.flatnonzero(points):
        expect += ((taken >> U64(c)) & U64(1)).astype(np.int64) * points[c]
    require(np.all(state.points_taken == expect, axis=1), "points_taken disagrees with the tricks taken")
