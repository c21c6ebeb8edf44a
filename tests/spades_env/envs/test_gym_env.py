"""The Gymnasium single-seat env: env_checker, opponents of both kinds, rewards."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import spades_env  # registers spades_env/Spades-v0
from agents import RandomAgent
from spades_env import IllegalActionError, Rules, list_presets
from spades_env.envs import DecisionContext, SpadesGymEnv

RULE_SETS = list_presets() + [Rules(partnership=False, n_players=6)]


def _id(rules):
    return rules if isinstance(rules, str) else f"cutthroat{rules.n_players}-object"


def run_episode(env, seed: int) -> tuple[float, int]:
    """Random legal play for the learner; returns (total reward, steps)."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, done, truncated, _ = env.step(action)
        assert not truncated
        total += reward
        steps += 1
    return total, steps


@pytest.mark.parametrize("rules", RULE_SETS, ids=_id)
def test_env_checker_passes(rules):
    env = gymnasium.make("spades_env/Spades-v0", rules=rules, seat=1)
    check_env(env.unwrapped, skip_render_check=True)


def test_make_with_defaults_and_spaces():
    env = gymnasium.make("spades_env/Spades-v0")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()
    assert env.action_space.n == 68
    assert env.unwrapped.seat == 0 and env.unwrapped.game.episode == "hand"


@pytest.mark.parametrize("seat", [0, 3])
def test_hand_reward_is_the_learners_side_points(seat):
    env = SpadesGymEnv(rules="partnership", seat=seat, episode="hand")
    total, steps = run_episode(env, seed=seat)
    state = env.game.game_state
    assert steps >= 13 and total == state.scores[0, seat % 2]


def test_match_episode_reward_adds_up_to_the_final_score():
    env = SpadesGymEnv(rules="partnership-250", seat=2, episode="match")
    total, _ = run_episode(env, seed=8)
    state = env.game.game_state
    assert state.winner[0] >= 0 and total == state.scores[0, 0]


def test_same_seed_same_episode():
    a = SpadesGymEnv(rules="cutthroat-4", seat=2)
    b = SpadesGymEnv(rules="cutthroat-4", seat=2)
    assert run_episode(a, 3) == run_episode(b, 3)


class CountingAgent:
    """Mimics ``agents.base.Agent``: batched act with a decision context."""

    def __init__(self):
        self.calls = 0

    def act(self, observations, masks, context=None):
        assert observations.ndim == 2 and masks.ndim == 2 and masks.dtype == bool
        assert isinstance(context, DecisionContext)
        state, g, seat = context.state, int(context.games[0]), int(context.seats[0])
        assert state.to_move[g] == seat
        self.calls += 1
        return np.argmax(masks, axis=1)


def test_opponents_batched_agents_and_plain_callables():
    seen = []

    def lowest_legal(observation, mask):
        seen.append(observation.shape)
        return int(np.flatnonzero(mask)[0])

    counting = CountingAgent()
    env = SpadesGymEnv(rules="partnership", seat=0, opponents={1: counting, 2: lowest_legal, 3: RandomAgent(seed=0)})
    run_episode(env, seed=1)
    assert counting.calls >= 13 and len(seen) >= 13 and seen[0] == env.observation_space["observation"].shape
    env = SpadesGymEnv(rules="partnership", seat=1, opponents=[RandomAgent(0), None, RandomAgent(1), RandomAgent(2)])
    run_episode(env, seed=2)
    env = SpadesGymEnv(rules="cutthroat-3", seat=0, opponents=lowest_legal)
    run_episode(env, seed=3)


def test_bad_arguments_and_illegal_actions():
    with pytest.raises(ValueError, match="seat"):
        SpadesGymEnv(seat=4)
    with pytest.raises(ValueError, match="one entry per seat"):
        SpadesGymEnv(opponents=[None, None])
    with pytest.raises(TypeError, match="opponent"):
        SpadesGymEnv(opponents={1: 42})
    env = SpadesGymEnv(rules="partnership-no-blind-nil", illegal="raise")
    obs, _ = env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    env = SpadesGymEnv(rules="partnership-no-blind-nil")  # default: the penalty ends the episode
    obs, _ = env.reset(seed=0)
    obs, reward, terminated, _, info = env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert terminated and reward == -500 and info["illegal_action"] and not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_ansi_render():
    env = SpadesGymEnv(render_mode="ansi")
    env.reset(seed=0)
    assert "player_0" in env.render() and "♠" in env.render()


def test_action_masks_is_the_learners_legal_mask():
    env = SpadesGymEnv(rules="partnership", seat=1)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(4)
    done = False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (68,)
        np.testing.assert_array_equal(mask, obs["action_mask"].astype(bool))
        obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
    assert not env.action_masks().any()


@pytest.mark.parametrize("rules", ["partnership", "hearts"])
def test_check_env_runs_warning_free(rules):
    for render_mode in (None, "ansi"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(gymnasium.make("spades_env/Spades-v0", rules=rules, render_mode=render_mode).unwrapped)
        assert not caught, [str(w.message) for w in caught]
    assert SpadesGymEnv.metadata["render_fps"] == spades_env.raw_env.metadata["render_fps"] > 0


def test_unknown_reset_options_are_refused_naming_the_allowed_keys():
    env = SpadesGymEnv()
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['dealr'\].*'dealer'"):
        env.reset(seed=0, options={"dealr": 2})


@pytest.mark.parametrize("bad", [0.5, "0", 10_000, None])
def test_an_action_outside_the_action_space_is_illegal(bad):
    env = SpadesGymEnv(rules="partnership-no-blind-nil")  # the first decision is a bid
    obs, _ = env.reset(seed=0)
    if isinstance(bad, float):
        bad += float(np.flatnonzero(obs["action_mask"])[0])  # a legal action and a half
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and reward == -500 and info["illegal_action"]
    env = SpadesGymEnv(rules="partnership-no-blind-nil", illegal="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not in the action space"):
        env.step(bad)


@pytest.mark.parametrize("seed", ["5", 1.5, True, -1])
def test_reset_refuses_bad_seeds_naming_the_argument(seed):
    env = gymnasium.make("spades_env/Spades-v0")
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)


def test_render_shows_the_game_as_it_is_now():
    """The render is of the game the learner sees: after the bots' moves, the learner to move."""
    env = SpadesGymEnv(rules="cutthroat-4", seat=2, opponents=RandomAgent(seed=0), render_mode="ansi")
    obs, _ = env.reset(seed=1)
    head = env.render().splitlines()[0]
    assert head.endswith("to move player_2"), head
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert env.render().splitlines()[0].endswith("to move player_2")
    assert env.render() == env.game.render()


def test_a_bad_render_mode_is_refused_naming_the_modes():
    with pytest.raises(ValueError, match=r"render_mode must be None or one of \['ansi', 'human'\], got 'rgb'"):
        SpadesGymEnv(render_mode="rgb")
