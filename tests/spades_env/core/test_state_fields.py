"""The game state's declarations (``core.state_fields``, each game's ``state_fields.py``): each game's state is the
core's fields then its own, each declared once, in its generated ``state_arrays.py``'s order; the engine's empty
state is the declared neutral values; a field the game lacks is no field of its state (an AttributeError naming the
game and its fields); each game's finished hands are the core's record arrays then its own."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from spades_env import SpadesEngine, games
from spades_env.core.state_arrays import RECORD_FIELDS
from spades_env.core.state_fields import CORE_FIELDS, CORE_RESULT_FIELDS, StateField
from spades_env.engine import state_schema
from spades_env.engine.check import check_state
from spades_env.engine.results import FinishedHands
from spades_env.engine.state import GameState

CORE_NAMES = tuple(f.name for f in CORE_FIELDS)


@pytest.mark.parametrize("game", list(games.GAMES))
def test_a_games_state_is_the_core_fields_then_its_own_in_its_arrays_order(game):
    own = tuple(f.name for f in games.state_fields(game))
    names = tuple(f.name for f in dataclasses.fields(state_schema.state_class(game)))
    assert names == CORE_NAMES + own and len(set(names)) == len(names)
    assert tuple(f.name for f in dataclasses.fields(GameState)) == CORE_NAMES
    assert games.part(game, "loops").gs.FIELDS == names  # the compiled code's bundle, in the same order
    assert [f.name for f in state_schema.schema(game).fields] == list(names)


def test_each_game_owns_its_fields_and_no_other_game_has_them():
    spades = {f.name for f in games.state_fields("spades")}
    assert {"bids", "bags", "face_up", "pile"} <= spades and "passed" not in spades
    assert {f.name for f in games.state_fields("hearts")} == {"passed"}
    assert "points_taken" in CORE_NAMES  # the core's card play counts the card points of every game


def test_a_field_declared_by_the_core_and_the_game_is_refused_naming_it(monkeypatch):
    real = games.state_fields
    twice = (StateField("hands", np.uint64, ("B", "N"), 0),)
    monkeypatch.setattr(games, "state_fields", lambda g: twice if g == "hearts" else real(g))
    with pytest.raises(ValueError, match=r"state fields \['hands'\] of game 'hearts' are declared twice"):
        state_schema.schema("hearts")


def test_a_declaration_names_its_dimensions_batch_first():
    with pytest.raises(ValueError, match="dims must be 'B' then"):
        StateField("x", np.int64, ("N",), 0)
    with pytest.raises(ValueError, match="dims must be 'B' then"):
        StateField("x", np.int64, ("B", "Q"), 0)


#: A few fields of each preset's empty state, as the engine allocated them before the declarations.
EMPTY = {
    "partnership": {"phase": (np.int64, (3,), 3), "trick": (np.int64, (3, 4), -1),
                    "history": (np.int64, (3, 13, 4), -1), "looked": (np.bool_, (3, 4), True),
                    "bemo": (np.int64, (3, 2), -1), "pile": (np.int64, (3, 0), -1),
                    "shown": (np.int64, (3,), -1), "key": (np.uint64, (3,), 0)},
    "two-player": {"pile": (np.int64, (3, 52), -1), "shown": (np.int64, (3,), -1), "bids": (np.int64, (3, 2), -1)},
    "hearts": {"phase": (np.int64, (3,), 3), "passed": (np.uint64, (3, 4), 0), "points_taken": (np.int64, (3, 4), 0)},
}  # fmt: skip


@pytest.mark.parametrize("preset", list(EMPTY))
def test_the_empty_state_is_the_declared_neutral_values(preset):
    state = SpadesEngine(preset)._empty(3)
    for name, (dtype, shape, value) in EMPTY[preset].items():
        arr = getattr(state, name)
        assert arr.dtype == dtype and arr.shape == shape and np.all(arr == value), name


def test_a_field_the_game_lacks_is_an_error_naming_the_game_and_its_fields():
    hearts = SpadesEngine("hearts").reset([0, 1])
    with pytest.raises(AttributeError, match=r"a hearts state has no field 'bids' \(its own fields: \['passed'\]\)"):
        hearts.bids  # noqa: B018
    spades = SpadesEngine("partnership").reset(0)
    with pytest.raises(AttributeError, match=r"a spades state has no field 'passed' \(its own fields: \['bids', "):
        spades.passed  # noqa: B018
    assert type(hearts).__name__ == "HeartsState" and hearts.game == "hearts"


@pytest.mark.parametrize("preset", ["partnership", "hearts"])
def test_a_state_copies_takes_and_pickles_as_its_games_class(preset):
    engine = SpadesEngine(preset)
    state = engine.reset([1, 2, 3])
    copies = (state.copy(), state.take([0, 2]), GameState.concat([state, state]), pickle.loads(pickle.dumps(state)))
    for other in copies:
        assert type(other) is type(state)
        check_state(engine, other)


def test_states_of_two_games_are_not_concatenated():
    spades, hearts = SpadesEngine("partnership").reset(0), SpadesEngine("hearts").reset(0)
    with pytest.raises(ValueError, match=r"states must all be of one game, got \['hearts', 'spades'\]"):
        GameState.concat([spades, hearts])


def test_the_checker_refuses_another_games_state():
    state = SpadesEngine("hearts").reset([1, 2])
    with pytest.raises(AssertionError, match="a hearts state, not a spades state"):
        check_state(SpadesEngine("partnership"), state)


@pytest.mark.parametrize("game", list(games.GAMES))
def test_the_record_arrays_of_a_finished_hand_are_declared_where_they_belong(game):
    assert tuple(f.name for f in CORE_RESULT_FIELDS) == RECORD_FIELDS  # what every game's hand end fills, in order
    own = games.part(game, "loops").RECORD[len(RECORD_FIELDS) :]  # the game's, in the order its hand end takes them
    assert tuple(f.name for f in games.result_fields(game)) == own
    names = [f.name for f in dataclasses.fields(state_schema.finished_class(game))]
    assert names == [f.name for f in dataclasses.fields(FinishedHands)] + list(own)
    assert set(names) - {"games"} == set(state_schema.result_fields(game))


def test_a_finished_hand_holds_its_games_arrays_only():
    engine = SpadesEngine("hearts")
    state = engine.reset([3, 4])
    rng = np.random.default_rng(0)
    finished = []
    while not finished:
        finished = engine.step(state, engine.random_actions(state, rng)).finished
    (f,) = finished
    assert f.points_taken.shape == (2, 4) and (f.points_taken.sum(axis=1) == 26).all()  # Hearts' own: filled
    with pytest.raises(AttributeError, match=r"a hearts finished hand has no field 'made' \(its own fields: \['taken'"):
        f.made  # noqa: B018
    back = pickle.loads(pickle.dumps(f))
    assert type(back) is type(f) and (back.points_taken == f.points_taken).all()


def test_a_record_array_declared_by_the_core_and_the_game_is_refused(monkeypatch):
    real = games.result_fields
    twice = (StateField("deal", np.uint64, ("B", "N"), 0),)
    monkeypatch.setattr(games, "result_fields", lambda g: twice if g == "hearts" else real(g))
    with pytest.raises(ValueError, match=r"record arrays \['deal'\] of game 'hearts' are declared twice"):
        state_schema.result_fields("hearts")
