"""The search bot's compiled rollouts (``agents.search_rollouts``) give the values of the engine rollouts."""

import numpy as np
import pytest

from agents import HeuristicAgent, SearchAgent
from agents.base import DecisionContext
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
        for field in state.__dataclass_fields__:  # the rollouts change nothing in the state they read
            assert np.array_equal(getattr(state, field), getattr(before, field)), field
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
