"""The AEC env is a thin adapter over the engine at B = 1: what it shows is the engine's game.

Random games with random options: every observation and mask is the encoder's and the
engine's of ``game_state``, the state stays valid (``check_state``), rewards are the sides'
score changes; and the state is the engine's object, stepped in place, copied or assigned.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import spades_env
from spades_env import list_presets
from spades_env.engine import OVER
from spades_env.engine.check import check_state
from tests.spades_env.envs.test_aec_env import play_random


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(list_presets()),
    episode=st.sampled_from(["match", "hand"]),
    reward=st.sampled_from(["points", "scaled"]),
    perfect_information=st.booleans(),
    seed=st.integers(0, 2**31),
    dealer=st.none() | st.integers(0, 5),
)
def test_the_env_shows_the_engines_game(rules, episode, reward, perfect_information, seed, dealer):
    env = spades_env.env(rules=rules, episode=episode, reward=reward, perfect_information=perfect_information)
    raw = env.unwrapped
    engine, encoder = raw.engine, raw.encoder
    options = None if dealer is None else {"dealer": dealer % engine.n_players}
    env.reset(seed=seed, options=options)
    state = raw.game_state
    start = engine.reset(seed, dealers=None if dealer is None else [dealer % engine.n_players])
    np.testing.assert_array_equal(state.deal, start.deal)
    scale = (0.01 if reward == "scaled" else 1.0) * (-1.0 if engine.rules.game == "hearts" else 1.0)
    rng = np.random.default_rng(seed)
    scores = state.scores[0].copy()
    for step in range(100):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                break
            continue
        seat = raw.agent_name_mapping[agent]
        assert seat == state.to_move[0] and state.phase[0] != OVER
        np.testing.assert_array_equal(obs["observation"], encoder.encode(state, [0], [seat])[0])
        np.testing.assert_array_equal(obs["action_mask"], engine.legal_action_mask(state)[0])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert raw.game_state is state
        if step % 5 == 0:  # (the checker is the slow part: every fifth state)
            check_state(engine, state)
        delta = (state.scores[0] - scores).tolist()  # the sides' points of a hand that ended, else 0
        side = engine.side_of_seat
        assert raw.rewards == {a: delta[side[raw.agent_name_mapping[a]]] * scale for a in raw.rewards}
        scores = state.scores[0].copy()


def test_a_copied_or_pickled_env_plays_on_by_itself():
    env = spades_env.env(rules="partnership")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    before = env.last()[0]["observation"].copy()
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        raw = twin.unwrapped
        assert raw.game_state is not env.unwrapped.game_state
        for _ in range(40):
            obs, _, term, trunc, _ = twin.last()
            if term or trunc:
                break
            seat = raw.agent_name_mapping[twin.agent_selection]
            np.testing.assert_array_equal(obs["observation"], raw.encoder.encode(raw.game_state, [0], [seat])[0])
            np.testing.assert_array_equal(obs["action_mask"], raw.engine.legal_action_mask(raw.game_state)[0])
            twin.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            check_state(raw.engine, raw.game_state)
    np.testing.assert_array_equal(env.last()[0]["observation"], before)


def test_assigning_a_state_makes_it_the_game():
    env = spades_env.env(rules="partnership")
    env.reset(seed=8)
    raw = env.unwrapped
    saved = raw.game_state.copy()
    rng = np.random.default_rng(8)
    for _ in range(25):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raw.game_state = saved.copy()
    raw.agent_selection = raw.possible_agents[int(saved.to_move[0])]
    seat = int(saved.to_move[0])
    obs = env.observe(raw.agent_selection)
    np.testing.assert_array_equal(obs["observation"], raw.encoder.encode(saved, [0], [seat])[0])
    np.testing.assert_array_equal(obs["action_mask"], raw.engine.legal_action_mask(saved)[0])


@pytest.mark.parametrize("rules", ["partnership", "two-player", "hearts"])
def test_the_state_is_the_engine_state_updated_in_place(rules):
    env = spades_env.env(rules=rules)
    env.reset(seed=11)
    state = env.unwrapped.game_state
    rng = np.random.default_rng(0)
    for _ in range(300):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.unwrapped.game_state is state
        check_state(env.unwrapped.engine, state)


def test_the_wrapper_asserts_the_action_space_and_enforces_the_order():
    env = spades_env.env(rules="partnership")
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    env.reset(seed=0)
    assert str(env) == str(env.unwrapped)
    for bad in (68, -1, 3.0, None, "1"):
        with pytest.raises(spades_env.IllegalActionError, match="not in the action space"):
            env.step(bad)
    obs, *_ = env.last()
    env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))  # NumPy integers are actions too
    assert isinstance(env, OrderEnforcingWrapper)


def test_assigning_a_finished_match_shows_no_legal_action():
    env = spades_env.env(rules="partnership-250")
    env.reset(seed=2)
    play_random(env, seed=2)
    final = env.unwrapped.game_state.copy()
    assert final.winner[0] >= 0
    env.reset(seed=3)
    assert env.observe(env.agent_selection)["action_mask"].any()
    env.unwrapped.game_state = final
    assert not env.observe(env.agent_selection)["action_mask"].any()
    env.unwrapped.game_state = env.unwrapped.engine.reset(4)
    assert env.observe(env.agent_selection)["action_mask"].any()
