"""The B = 1 fast paths of ``step``, ``random_actions`` and ``legal_action_mask`` give what the
general paths give: independent results, the same arrays, the same games."""

from __future__ import annotations

import pickle

import numpy as np

from spades_env.engine import SpadesEngine, StepResult


def test_step_results_without_a_hand_end_are_independent_no_event_arrays():
    engine = SpadesEngine("partnership")
    state = engine.reset([1, 2, 3])
    rng = np.random.default_rng(0)
    first = engine.step(state, engine.random_actions(state, rng))
    second = engine.step(state, engine.random_actions(state, rng))
    assert first.finished == [] and second.finished == []
    for result in (first, second):
        assert result.hand_done.dtype == bool and result.hand_done.shape == (3,) and not result.hand_done.any()
        assert result.match_done.dtype == bool and not result.match_done.any()
        assert result.score_delta.dtype == np.int64 and result.score_delta.shape == (3, 2)
        assert not result.score_delta.any()
        assert result.winner.dtype == np.int64 and (result.winner == -1).all()
    for name in ("hand_done", "match_done", "score_delta", "winner"):
        a, b = getattr(first, name), getattr(second, name)
        assert a is getattr(first, name)  # made once, then the same array
        assert not np.shares_memory(a, b)
        a[...] = 1
        assert (getattr(first, name) == 1).all() and not (getattr(second, name) == 1).any()


def test_step_result_keeps_given_arrays_and_assignments_and_pickles():
    given = np.array([True, False])
    result = StepResult(hand_done=given, winner=np.array([0, -1]), n_sides=2)
    assert result.hand_done is given and result.finished == []
    assert result.score_delta.shape == (2, 2) and not result.match_done.any()
    result.match_done = np.array([True, True])
    back = pickle.loads(pickle.dumps(result))
    assert back.match_done.all() and back.hand_done.tolist() == [True, False] and back.winner.tolist() == [0, -1]
    assert "hand_done=array([ True, False])" in repr(result)


def _step_until_hands_end(engine, state, rng):
    while True:
        result = engine.step(state, engine.random_actions(state, rng), auto_reset=True)
        if result.finished:
            return result


def test_a_step_that_ends_every_game_hand_reports_them_in_arrays_of_its_own():
    engine = SpadesEngine("partnership-no-blind-nil")  # lockstep: the three hands end together
    state = engine.reset([4, 5, 6])
    result = _step_until_hands_end(engine, state, np.random.default_rng(4))
    (finished,) = result.finished
    assert finished.games.tolist() == [0, 1, 2] and result.hand_done.all()
    np.testing.assert_array_equal(result.score_delta, finished.delta)
    assert not np.shares_memory(result.score_delta, finished.delta)
    assert result.match_done.dtype == bool and result.winner.dtype == np.int64
    assert (result.winner[~result.match_done] == -1).all() and (result.winner[result.match_done] >= 0).all()


def test_a_step_that_ends_some_hands_marks_only_those_games():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(16))
    rng = np.random.default_rng(1)
    for _ in range(300):
        result = _step_until_hands_end(engine, state, rng)
        games = result.finished[0].games
        if len(games) < 16:
            break
    assert 0 < len(games) < 16
    assert np.flatnonzero(result.hand_done).tolist() == games.tolist()
    np.testing.assert_array_equal(result.score_delta[games], result.finished[0].delta)
    others = np.setdiff1d(np.arange(16), games)
    assert not result.score_delta[others].any() and (result.winner[others] == -1).all()
