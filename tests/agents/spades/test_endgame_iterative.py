"""The iterative endgame solver gives exactly the recursive solver's values, and is cached.

The recursive solver (the search as it was, ``git show f89a744:agents/endgame.py``) valued the positions
of ``tests.endgame_pinned`` (2 to 4 tricks left, every Spades preset); the values are pinned in
``tests/golden/endgame_recursive_values.npz`` and must come out bit for bit, ``NO_VALUE`` included.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.spades import endgame, endgame_search
from agents.spades.endgame import NO_VALUE, solve_positions
from tests.endgame_pinned import PINNED, SPADES_PRESETS, pinned_positions


@pytest.fixture(scope="module")
def pinned():
    with np.load(PINNED) as data:
        yield dict(data)


@pytest.mark.parametrize("preset", SPADES_PRESETS)
def test_iterative_solver_gives_the_recursive_solvers_values(pinned, preset):
    engine, state, adjust_bags, expected = pinned_positions(pinned, preset)
    got = np.full_like(expected, 0.0)
    for adjust in (True, False):
        games = np.flatnonzero(adjust_bags == adjust)
        got[games] = solve_positions(engine, state, games, state.hands[games], adjust)
    assert got.shape == expected.shape
    assert np.array_equal(got, expected), f"{preset}: rows {np.flatnonzero((got != expected).any(axis=1)).tolist()}"


def test_pinned_positions_cover_mid_trick_nil_blind_nil_jokers_and_the_hands_own_score(pinned):
    """The pin is worth having only if the positions reach every kind of play the solver values."""
    mid_trick = nil = blind = jokers = own_score = 0
    for preset in SPADES_PRESETS:
        engine, state, adjust_bags, values = pinned_positions(pinned, preset)
        assert (np.isfinite(values) == (values != NO_VALUE)).all()  # a legal card has a finite value
        assert (values != NO_VALUE).any(axis=1).all(), preset  # every position has a legal card
        mid_trick += int((state.n_in_trick > 0).sum())
        nil += int((state.bids == 0).sum())
        blind += int(state.blind.sum())
        own_score += int((~adjust_bags).sum())
        if engine.rules.jokers:
            jokers += int((values[:, 52:] != NO_VALUE).sum())  # a joker was legal (ids 52, 53)
    assert min(mid_trick, nil, blind, jokers, own_score) > 0


def test_every_solver_function_is_cached():
    """No function of the solver may go back to ``cache=False`` (a recursive one would have to)."""
    functions = [endgame.solve_each, endgame.root_values, endgame_search.minimax, endgame_search.maxn]
    functions.append(endgame_search.search_stack)
    assert all(type(f._cache).__name__ == "FunctionCache" for f in functions)
