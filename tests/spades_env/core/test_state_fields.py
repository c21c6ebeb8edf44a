"""The game state's declarations (``core.state_fields``, each game's ``state_fields.py``): ``GameState`` is the
core's fields plus every registered game's, each declared once and in ``StateArrays``' order; the engine's empty
state is the declared neutral values; the invariant checker names a field of another game left non-neutral."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from spades_env import SpadesEngine, games
from spades_env.core.state_arrays import FIELDS
from spades_env.core.state_fields import CORE_FIELDS, StateField
from spades_env.engine import state_schema
from spades_env.engine.check import check_state
from spades_env.engine.state import GameState
from tests.toy_game import TRICKS

STATE_NAMES = tuple(f.name for f in dataclasses.fields(GameState))


def test_the_state_is_the_core_fields_and_every_games_own_each_declared_once():
    declared = [f.name for f in CORE_FIELDS]
    for game in games.GAMES:
        declared += [f.name for f in games.state_fields(game)]
    assert len(declared) == len(set(declared)), "a field declared twice"
    assert sorted(declared) == sorted(STATE_NAMES)
    assert FIELDS == STATE_NAMES  # the compiled code's bundle, in the same order
    assert [f.name for f in state_schema.schema("spades").fields] == list(STATE_NAMES)


def test_each_game_owns_its_fields_and_a_game_without_any_declares_none(monkeypatch):
    assert "bids" in {f.name for f in games.state_fields("spades")}
    assert {f.name for f in games.state_fields("hearts")} == {"passed", "points_taken"}
    monkeypatch.setitem(games.GAMES, "tricks", TRICKS)
    assert games.state_fields("tricks") == ()
    owned = {f.name for g in ("spades", "hearts") for f in games.state_fields(g)}
    assert {f.name for _, f in state_schema.schema("tricks").foreign} == owned
    assert {f.name for _, f in state_schema.schema("hearts").foreign} == owned - {"passed", "points_taken"}


def test_a_field_declared_by_two_games_is_refused_naming_it(monkeypatch):
    monkeypatch.setitem(games.GAMES, "copy", games.GAMES["hearts"])
    with pytest.raises(ValueError, match="'passed' is declared by hearts and by copy"):
        state_schema.declared_fields()


def test_a_declaration_names_its_dimensions_batch_first():
    with pytest.raises(ValueError, match="dims must be 'B' then"):
        StateField("x", np.int64, ("N",), 0)
    with pytest.raises(ValueError, match="dims must be 'B' then"):
        StateField("x", np.int64, ("B", "Q"), 0)


@pytest.mark.parametrize("preset", ["partnership", "two-player", "hearts"])
def test_the_empty_state_is_the_declared_neutral_values(preset):
    engine = SpadesEngine(preset)
    state = engine._empty(3)
    n, s, t, p = engine.n_players, engine.n_sides, engine.hand_size, engine.pile_size
    assert p == (52 if preset == "two-player" else 0)
    expect = {  # a few, as the engine allocated them before the declarations
        "phase": (np.int64, (3,), 3), "trick": (np.int64, (3, n), -1), "history": (np.int64, (3, t, n), -1),
        "looked": (np.bool_, (3, n), True), "bemo": (np.int64, (3, s), -1), "pile": (np.int64, (3, p), -1),
        "shown": (np.int64, (3,), -1), "passed": (np.uint64, (3, n), 0), "key": (np.uint64, (3,), 0),
    }  # fmt: skip
    for name, (dtype, shape, value) in expect.items():
        arr = getattr(state, name)
        assert arr.dtype == dtype and arr.shape == shape and np.all(arr == value), name


def _foreign(game: str) -> list[str]:
    return [f.name for _, f in state_schema.schema(game).foreign]


def _set_off_neutral(state: GameState, name: str) -> None:
    field = {f.name: f for f in state_schema.schema("spades").fields}[name]
    arr = getattr(state, name)
    row = arr[0].reshape(-1)
    row[0] = (not field.neutral) if arr.dtype == np.bool_ else field.neutral + 1
    arr[0] = row.reshape(arr[0].shape)


@pytest.mark.parametrize(("preset", "name"), [("hearts", n) for n in _foreign("hearts")] + [
    ("partnership", n) for n in _foreign("spades")])  # fmt: skip
def test_the_checker_names_a_field_of_another_game_left_non_neutral(preset, name):
    engine = SpadesEngine(preset)
    state = engine.reset([1, 2])
    check_state(engine, state)
    if getattr(state, name)[0].size == 0:  # the pile outside two-player: no column to set
        return
    _set_off_neutral(state, name)
    with pytest.raises(AssertionError, match=f"game 0: field '{name}' .* is not its neutral"):
        check_state(engine, state)


def test_a_hearts_state_with_a_bid_is_refused_naming_bids():
    engine = SpadesEngine("hearts")
    state = engine.reset(0)
    state.bids[0, 1] = 4
    with pytest.raises(AssertionError, match=r"field 'bids' of spades is not its neutral -1 in hearts"):
        check_state(engine, state)


def test_the_record_arrays_of_a_finished_hand_are_declared_where_they_belong():
    from spades_env.core.state_arrays import RECORD_FIELDS
    from spades_env.core.state_fields import CORE_RESULT_FIELDS
    from spades_env.engine.results import FinishedHands

    assert tuple(f.name for f in CORE_RESULT_FIELDS) == RECORD_FIELDS  # what every game's hand end fills, in order
    for game in games.GAMES:  # a game's own, in the order its hand end takes them
        own = games.part(game, "loops").RECORD[len(RECORD_FIELDS) :]
        assert tuple(f.name for f in games.result_fields(game)) == own, game
    declared = state_schema.result_fields()
    assert set(FinishedHands.__dataclass_fields__) - {"games"} <= set(declared)
    assert declared["made"].dims == ("B", "S") and declared["taken"].dtype is np.uint64


def test_a_finished_hand_holds_another_games_arrays_as_zeros_and_its_own_filled():
    engine = SpadesEngine("hearts")
    state = engine.reset([3, 4])
    rng = np.random.default_rng(0)
    finished = []
    while not finished:
        finished = engine.step(state, engine.random_actions(state, rng)).finished
    (f,) = finished
    assert f.made.dtype == np.bool_ and not f.made.any() and not f.bags_added.any()  # Spades' arrays: zeros
    assert f.points_taken.shape == (2, 4) and (f.points_taken.sum(axis=1) == 26).all()  # Hearts' own: filled


def test_two_games_declaring_one_record_array_differently_are_refused(monkeypatch):
    import types

    other = types.SimpleNamespace(RESULT_FIELDS=(StateField("made", np.int64, ("B", "N"), 0),), FIELDS=())
    monkeypatch.setitem(games.GAMES, "other", games.GAMES["hearts"])
    real_part = games.part
    monkeypatch.setattr(games, "part", lambda g, name: other if g == "other" else real_part(g, name))
    with pytest.raises(ValueError, match="record array 'made' is declared twice, differently"):
        state_schema.result_fields()
