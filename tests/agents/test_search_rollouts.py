"""The search bot's compiled rollouts (``agents.search_rollouts``) give the values of the engine rollouts."""

import dataclasses

import numpy as np
import pytest

from agents import HeuristicAgent, SearchAgent, make_agent
from agents.base import DecisionContext
from agents.search_rollouts import play_out_values
from spades_env.engine import OVER, PLAY, SpadesEngine
from spades_env.rules import list_presets


def _play_positions(preset: str, n_games: int = 4, seed: int = 0):
    """States of ``n_games`` heuristic games copied every N + 1 steps (N players: each copy at another
    place in the trick) while any of them is in PLAY, until the first hand ends."""
    engine = SpadesEngine(preset)
    every = engine.n_players + 1
    state = engine.reset(np.arange(seed, seed + n_games))
    heuristic = HeuristicAgent()
    positions = []
    for step in range(400):
        if (state.phase == OVER).all():
            break
        if step % every == 0 and (state.phase == PLAY).any():
            positions.append(state.copy())
        masks = engine.legal_action_mask(state)
        ctx = DecisionContext(engine, state, np.arange(n_games), state.to_move.copy())
        result = engine.step(state, heuristic.act(None, masks, ctx))
        if result.hand_done.any():
            break  # one hand: the positions span it from the first trick to the last
    return engine, positions


def _values(engine, state, compiled: bool, **options) -> np.ndarray:
    """``card_values`` of every PLAY decision of ``state`` with more than one legal card."""
    masks = engine.legal_action_mask(state)
    legal = masks[:, : engine.layout.n_card_ids]
    games = np.flatnonzero((state.phase == PLAY) & (legal.sum(axis=1) > 1))
    agent = SearchAgent(seed=11, samples=3, **options)
    agent.compiled_rollouts = compiled
    ctx = DecisionContext(engine, state, games, state.to_move[games].copy())
    return agent.card_values(ctx, legal[games])


@pytest.mark.parametrize("preset", list_presets())
def test_compiled_rollouts_give_the_engine_rollouts_values_on_every_preset(preset):
    engine, positions = _play_positions(preset)
    assert len(positions) >= 5  # spread over the hand, from the first trick to the last
    compared = 0
    for state in positions:
        before = state.copy()
        compiled = _values(engine, state, True)
        assert np.array_equal(compiled, _values(engine, state, False))  # bit for bit, -inf where illegal
        assert np.isfinite(compiled).any(axis=1).all()
        compared += len(compiled)
        for field in dataclasses.fields(state):  # the rollouts change nothing in the state they read
            assert np.array_equal(getattr(state, field.name), getattr(before, field.name)), field.name
    assert compared >= 10


def test_compiled_rollouts_play_the_rollout_heuristic_options():
    engine, positions = _play_positions("partnership", n_games=6)
    policy = HeuristicAgent(set_opponents=1)
    differs = False
    for state in positions:
        compiled = _values(engine, state, True, rollout_policy=policy)
        assert np.array_equal(compiled, _values(engine, state, False, rollout_policy=policy))
        differs |= not np.array_equal(compiled, _values(engine, state, True))
    assert differs  # set_opponents changes some rollouts, so the option does reach the compiled play


@pytest.mark.parametrize("preset", ["partnership", "cutthroat-4", "two-player", "hearts"])
def test_rollouts_on_several_threads_give_the_same_values_to_the_bit(preset):
    engine, positions = _play_positions(preset, n_games=12)
    compared = 0
    for state in positions[::3]:
        one = _values(engine, state, True)
        assert np.array_equal(_values(engine, state, True, threads=2), one)  # chunks of candidates on 2 threads
        compared += len(one)
    assert compared >= 12
    roll = positions[len(positions) // 2].take(np.flatnonzero(positions[len(positions) // 2].phase == PLAY))
    seats = roll.to_move.copy()
    heuristic = HeuristicAgent()
    alone = play_out_values(engine, roll, seats, heuristic)
    assert np.array_equal(play_out_values(engine, roll, seats, heuristic, threads=2), alone)
    assert np.array_equal(play_out_values(SpadesEngine(preset, threads=2), roll, seats, heuristic), alone)


def test_the_search_bot_refuses_a_thread_count_it_cannot_run():
    message = r"search bot option 'threads' must be an integer in 1\.\.\d+ \(NUMBA_NUM_THREADS\), got 0"
    with pytest.raises(ValueError, match=message):
        SearchAgent(threads=0)
    assert make_agent("search:threads=2").threads == 2
