"""VectorSpades as a ``gymnasium.vector.VectorEnv``: spaces, same-step autoreset, reset options, wrappers."""

from __future__ import annotations

import dataclasses

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space
from gymnasium.wrappers.vector import ClipReward, RecordEpisodeStatistics

import spades_env
from spades_env import Rules, SpadesEngine, VectorSpades
from spades_env.envs.vector import sample_legal
from spades_env.rules import resolve_rules

ONE_HAND = Rules(max_hands=1)  # every match is one hand: episodes end quickly


def play(env, steps: int, seed: int = 0):
    """Random legal play; yields each step's (actions, step result)."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(steps):
        actions = sample_legal(info["action_mask"], rng)
        out = env.step(actions)
        info = out[-1]
        yield actions, out


@pytest.mark.parametrize("bad", [2.5, 0, -3, "4", True, None])
def test_num_envs_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match=r"num_envs must be a positive int, got"):
        VectorSpades("partnership", num_envs=bad)


def test_num_envs_takes_numpy_ints():
    assert VectorSpades("partnership", num_envs=np.int64(3)).num_envs == 3


def test_is_a_gymnasium_vector_env_with_batched_spaces():
    env = VectorSpades("partnership", num_envs=3, seed=0)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.observation_space == batch_space(env.single_observation_space, 3)
    assert env.action_space == batch_space(env.single_action_space, 3)
    obs, info = env.reset()
    assert env.observation_space.contains(obs)
    assert (
        VectorSpades("partnership", num_envs=2, auto_reset=False).metadata["autoreset_mode"] is AutoresetMode.DISABLED
    )
    assert VectorSpades.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP  # the class's is untouched
    env.close()
    assert env.closed


def test_unknown_reset_options_are_refused_naming_the_allowed_keys():
    env = VectorSpades("partnership", num_envs=2, seed=0)
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['dealr'\].*'dealers'"):
        env.reset(options={"dealr": 2})
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=[("dealers", 2)])


def test_reset_options_set_up_the_first_hand():
    env = VectorSpades("partnership", num_envs=2, seed=0)
    env.reset(seed=5, options={"dealers": [3, 1], "scores": [[100, 20], [0, 0]]})
    assert env.state.dealer.tolist() == [3, 1]
    assert env.state.scores.tolist() == [[100, 20], [0, 0]]
    with pytest.raises(ValueError, match="dealers is given twice"):
        env.reset(dealers=[0, 0], options={"dealers": [1, 1]})


def test_reset_mask_starts_new_matches_in_those_games_only():
    env = VectorSpades("partnership", num_envs=3, seed=0)
    for _ in play(env, 20):
        pass
    before = env.state.copy()
    obs, info = env.reset(seed=7, options={"reset_mask": np.array([False, True, False])})
    fresh = spades_env.SpadesEngine("partnership").reset(7 + 1)  # game i plays seed + i
    np.testing.assert_array_equal(env.state.deal[1], fresh.deal[0])
    assert env.state.n_bids[1] == 0 and env.state.hand_number[1] == 0
    for g in (0, 2):
        np.testing.assert_array_equal(env.state.hands[g], before.hands[g])
        np.testing.assert_array_equal(env.state.bids[g], before.bids[g])
    assert obs.shape == (3, env.encoder.size) and info["action_mask"][1].any()
    with pytest.raises(ValueError, match=r"reset_mask.*\(3,\) bool array"):
        env.reset(options={"reset_mask": np.array([1, 0, 1])})


def test_same_step_final_obs_is_what_the_game_shows_without_auto_reset():
    """Gymnasium 1.x same-step autoreset: the finished episode's observation and info come in
    ``final_obs`` / ``final_info`` with ``_final_obs`` / ``_final_info`` masks, as SyncVectorEnv."""
    reset = VectorSpades(ONE_HAND, num_envs=4, seed=3)
    waits = VectorSpades(ONE_HAND, num_envs=4, seed=3, auto_reset=False)
    waits.reset(seed=0)
    ended = 0
    for actions, (_, rewards, terminated, _, info) in play(reset, 80):
        w_obs, w_rewards, w_terminated, _, w_info = waits.step(actions)
        np.testing.assert_array_equal(terminated, w_terminated)
        np.testing.assert_array_equal(rewards, w_rewards)
        if not terminated.any():
            assert "final_obs" not in info and "final_info" not in info
            continue
        ended += terminated.sum()
        np.testing.assert_array_equal(info["_final_obs"], terminated)
        np.testing.assert_array_equal(info["_final_info"], terminated)
        for g in range(4):
            if terminated[g]:
                np.testing.assert_array_equal(info["final_obs"][g], w_obs[g])
                assert info["final_info"]["to_play"][g] == -1 and not info["final_info"]["action_mask"][g].any()
                assert info["final_info"]["match_done"][g] and info["final_info"]["winner"][g] == w_info["winner"][g]
                assert info["to_play"][g] >= 0 and info["action_mask"][g].any()  # the new match's first decision
            else:
                assert info["final_obs"][g] is None
        break
    assert ended


@pytest.mark.parametrize("rules", ["partnership", "hearts"])
def test_hand_episodes_final_obs_is_the_aec_view_of_the_hand_end(rules):
    env = VectorSpades(rules, num_envs=1, seed=11, episode="hand")
    aec = spades_env.env(rules=rules, episode="hand")
    aec.reset(seed=11)
    for actions, (_, _, terminated, _, info) in play(env, 200, seed=11):
        aec.step(int(actions[0]))
        if terminated[0]:
            assert aec.terminations["player_0"]
            np.testing.assert_array_equal(info["final_obs"][0], aec.observe("player_0")["observation"])
            assert info["final_info"]["hand_done"][0]
            assert info["final_info"]["match_done"][0] == info["match_done"][0]
            return
    pytest.fail("no hand ended")


def test_reward_seat_gives_one_reward_per_game():
    per_seat = VectorSpades(ONE_HAND, num_envs=3, seed=2)
    seat1 = VectorSpades(ONE_HAND, num_envs=3, seed=2, reward_seat=1)
    seat1.reset(seed=0)
    scored = False
    for actions, (_, rewards, *_) in play(per_seat, 70):
        _, r1, *_ = seat1.step(actions)
        assert r1.shape == (3,) and r1.dtype == np.float32
        np.testing.assert_array_equal(r1, rewards[:, 1])
        scored |= bool(r1.any())
    assert scored
    for bad in (4, -1, 1.0, "0"):
        with pytest.raises(ValueError, match="reward_seat must be None or a seat in 0..3"):
            VectorSpades("partnership", num_envs=1, reward_seat=bad)


def test_gymnasium_vector_wrappers_work_on_it():
    env = RecordEpisodeStatistics(ClipReward(VectorSpades(ONE_HAND, num_envs=2, seed=4, reward_seat=0), -50, 50))
    returns, lengths = np.zeros(2), np.zeros(2, int)
    done = 0
    for _, (_, rewards, terminated, _, info) in play(env, 70):
        assert ((-50 <= rewards) & (rewards <= 50)).all()
        returns += rewards
        lengths += 1
        if terminated.any():
            stats = info["episode"]
            np.testing.assert_array_equal(stats["r"][terminated], returns[terminated])
            np.testing.assert_array_equal(stats["l"][terminated], lengths[terminated])
            returns[terminated], lengths[terminated] = 0, 0
            done += terminated.sum()
    assert done and len(env.return_queue) == done


def test_hearts_rewards_are_never_minus_zero():
    env = VectorSpades("hearts", num_envs=4, seed=0)
    hands = 0
    for _, (_, rewards, _, _, info) in play(env, 70):
        assert not np.signbit(rewards[rewards == 0]).any()
        hands += info["hand_done"].sum()
    assert hands


AUTO_RESET_PRESETS = ["partnership", "two-player", "hearts", "cutthroat-3", "jokers", "partnership-house"]


@pytest.mark.parametrize("preset", AUTO_RESET_PRESETS)
def test_auto_reset_starts_the_match_the_engines_auto_reset_starts(preset):
    """Match episodes observe a finished match before starting the next: the states stay those
    of ``engine.step(auto_reset=True)``."""
    rules = dataclasses.replace(resolve_rules(preset), max_hands=1)
    env = VectorSpades(rules, num_envs=4, seed=9)
    engine = SpadesEngine(rules)
    state = engine.reset(9 + np.arange(4))
    matches = 0
    for actions, (_, _, terminated, _, _) in play(env, 150, seed=9):
        result = engine.step(state, actions, auto_reset=True)
        np.testing.assert_array_equal(result.match_done, terminated)
        matches += terminated.sum()
        for field in dataclasses.fields(state):
            name = field.name
            np.testing.assert_array_equal(getattr(env.state, name), getattr(state, name), err_msg=name)
    assert matches >= 4


@pytest.mark.parametrize("rules", ["partnership", "hearts"])
def test_the_view_of_a_hand_end_is_what_a_finished_match_shows(rules):
    """With one-hand matches, the end of a hand episode (rebuilt from a copy taken before the
    last card) is the engine's finished match, as a game without auto_reset shows it."""
    one_hand = dataclasses.replace(resolve_rules(rules), max_hands=1)
    hands = VectorSpades(one_hand, num_envs=3, seed=5, episode="hand")
    waits = VectorSpades(one_hand, num_envs=3, seed=5, auto_reset=False)
    waits.reset(seed=0)
    for actions, (_, _, terminated, _, info) in play(hands, 80):
        w_obs, *_ = waits.step(actions)
        if terminated.any():
            for g in np.flatnonzero(terminated):
                np.testing.assert_array_equal(info["final_obs"][g], w_obs[g])
            return
    pytest.fail("no hand ended")


@pytest.mark.parametrize("actions", [[66.7] * 4, ["66"] * 4, [66 + 0j] * 4, [[66, 66], [66, 66]], [True] * 4])
def test_step_refuses_actions_that_are_not_one_integer_per_game(actions):
    env = VectorSpades("partnership", num_envs=4, seed=0)
    env.reset()
    before = env.state.copy()
    with pytest.raises(ValueError, match="actions must"):
        env.step(np.array(actions))
    for field in dataclasses.fields(before):
        np.testing.assert_array_equal(getattr(env.state, field.name), getattr(before, field.name))


@pytest.mark.parametrize("seed", ["5", 1.5, True, -1, 2**64, [1.5, 2, 3, 4], [[1, 2], [3, 4]]])
def test_reset_refuses_bad_seeds_naming_the_argument(seed):
    env = VectorSpades("partnership", num_envs=4)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)
