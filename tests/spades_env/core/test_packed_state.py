"""``core.packed``: a state's arrays as one table of addresses, a rule set's tables as one array,
and the engine's use of them: its step through the table and its step through the arrays play the
reference engines' games."""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest
from numba import literal_unroll, njit

from spades_env.core import packed
from spades_env.engine import SpadesEngine
from spades_env.rules import list_presets, resolve_rules
from tests.crosscheck_helpers import play_and_compare


@njit(cache=True)
def _unpacked(unpack_state, table, addresses, shapes, itemsizes):
    """The address, shape and item size of each array ``unpack_state`` (a game's) makes of ``table``."""
    k = 0
    for a in literal_unroll(unpack_state(table)):
        addresses[k] = a.ctypes.data
        itemsizes[k] = a.itemsize
        for j in range(a.ndim):
            shapes[k, j] = a.shape[j]
        k += 1


@njit(cache=True)
def _rules_back(rules):
    p, t = packed.unpack_rules(rules)  # t: the TrickTables fields, in order
    return p.copy(), t[0].copy(), t[1].copy(), t[2].copy(), t[3].copy(), t[4], t[5].copy(), t[6], t[7].copy()


def _played(engine, seed, b=6, steps=40):
    state = engine.reset(np.arange(seed, seed + b))
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        engine.step(state, engine.random_actions(state, rng), auto_reset=True)
    return state


@pytest.mark.parametrize("preset", list_presets())
def test_the_table_unpacks_to_the_state_own_arrays(preset):
    engine = SpadesEngine(preset)
    state = _played(engine, 3)
    gs = engine.spec.loops().gs  # the game's generated state_arrays.py
    arrays = gs.state_arrays(state)
    assert gs.FIELDS == tuple(f.name for f in dataclasses.fields(state))
    table = packed.state_table(arrays, gs.LAYOUT)
    assert table is not None and table.dtype == np.int64 and table.shape == (packed.HEADER + gs.N_FIELDS,)
    addresses, itemsizes = np.zeros(gs.N_FIELDS, np.int64), np.zeros(gs.N_FIELDS, np.int64)
    shapes = np.full((gs.N_FIELDS, 3), -1, np.int64)
    _unpacked(gs.unpack_state, table, addresses, shapes, itemsizes)
    for k, (name, a) in enumerate(zip(gs.FIELDS, arrays, strict=True)):
        assert addresses[k] == a.ctypes.data, name
        assert tuple(shapes[k, : a.ndim]) == a.shape and (shapes[k, a.ndim :] == -1).all(), name
        assert itemsizes[k] == a.itemsize and a.dtype == gs.LAYOUT[k][0], name


@pytest.mark.parametrize("preset", ["partnership", "two-player", "hearts", "jokers"])
def test_packed_rules_unpack_to_the_parameters_and_tables(preset):
    engine = SpadesEngine(preset)
    params, t = engine.spec.params(engine.rules, engine.layout), engine.trick_tables
    back = _rules_back(packed.pack_rules(params, t))
    want = (params, t.card_bit, t.suit_of, t.power, t.preferred, t.first_trick_forbidden, t.points,
            t.broken_suit, t.lead_after)  # fmt: skip
    for got, expected in zip(back, want, strict=True):
        if isinstance(expected, np.ndarray):  # (scalars come back as Python ints)
            assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


BREAKS = {
    "int32 field": lambda s: setattr(s, "scores", s.scores.astype(np.int32)),
    "strided field": lambda s: setattr(s, "history", np.asfortranarray(s.history)),
    "read-only field": lambda s: s.bids.setflags(write=False),
    "narrow field": lambda s: setattr(s, "bids", s.bids[:, :3].copy()),
    "list field": lambda s: setattr(s, "phase", s.phase.tolist()),
}


@pytest.mark.parametrize("name", list(BREAKS))
def test_arrays_that_cannot_be_viewed_from_an_address_are_not_packed(name):
    engine = SpadesEngine("partnership")
    state = engine.reset([1, 2])
    gs = engine.spec.loops().gs
    assert packed.state_table(gs.state_arrays(state), gs.LAYOUT) is not None
    BREAKS[name](state)
    assert packed.state_table(gs.state_arrays(state), gs.LAYOUT) is None


def test_a_field_assigned_a_new_array_is_stepped_there_not_at_the_old_address():
    engine = SpadesEngine("partnership")
    state = engine.reset([5, 6])
    rng = np.random.default_rng(5)
    engine.step(state, engine.random_actions(state, rng))  # the engine keeps this state's table
    old_phase, old_to_move = state.phase, state.to_move
    state.to_move = old_to_move.copy()
    state.phase = old_phase.copy()
    kept = old_to_move.copy()
    twin = state.copy()
    actions = engine.random_actions(state, rng)
    engine.step(state, actions)
    SpadesEngine("partnership").step(twin, actions)
    np.testing.assert_array_equal(old_to_move, kept)  # the replaced array is left alone
    for name in (f.name for f in dataclasses.fields(state)):
        np.testing.assert_array_equal(getattr(state, name), getattr(twin, name), err_msg=name)


#: The engine's two ways to step (``SpadesEngine.step``): one thread through the state's packed table
#: (``loops.step_packed``), more through its arrays, in parallel (``loops.step_threads``).
STEP_PATHS = {"packed table": 1, "arrays": min(2, numba.config.NUMBA_NUM_THREADS)}


@pytest.mark.parametrize("path", list(STEP_PATHS))
@pytest.mark.parametrize("preset", list_presets())
def test_each_step_path_plays_the_reference_games(preset, path):
    style = {"blind": 0.5, "nil": 0.3, "low": 0.5}
    stats = play_and_compare(resolve_rules(preset), [0, 7, 8, 9], 3, style, max_steps=150, threads=STEP_PATHS[path])
    assert stats["hands"] > 0
