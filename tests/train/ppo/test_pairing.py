"""Duplicate-paired games (``paired: true``, train/ppo/pairing.py): same deals, paired hand rewards, GAE on them."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from spades_env.engine import OVER  # noqa: E402
from spades_env.envs.vector import VectorSpades  # noqa: E402
from spades_env.rules import Rules  # noqa: E402
from tests.train.ppo.test_training import SMOKE, full_and_resumed  # noqa: E402
from train.ppo.core import TurnBuffer  # noqa: E402
from train.ppo.opponents import HEURISTIC, SELF_PLAY, Opponents  # noqa: E402
from train.ppo.pairing import PairedGames  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402


def play(buf, pairing, seats, ends, rewards, values, hand=0):
    """Steps of two twin games: ``seats[t]`` (2,) the seat to move, ``ends[t]`` (2,) the hand ends after
    step t, with (2, 2) ``rewards[t]``; ``values[t]`` (2,) the critic's values; both play hand ``hand``."""
    for t, seat in enumerate(seats):
        seat = np.asarray(seat)
        buf.add(np.zeros((2, 1)), np.ones((2, 2), bool), np.zeros(2), np.zeros(2), values[t], seat, np.ones(2, bool))
        done = np.asarray(ends[t], bool)
        reward = np.asarray(rewards.get(t, np.zeros((2, 2))), np.float32)
        buf.add_rewards(pairing.credit(buf, reward, done, np.full(2, hand)), done)


def test_gae_with_the_paired_baseline_on_a_crafted_buffer():
    # Both games: seats 0 1 0 1. Game 0 ends its hand after step 3 with (+1.0, -1.0); its twin, game 1,
    # takes one more decision and ends the same hand (the same cards) after step 4 with (+0.2, -0.2).
    buf, pairing = TurnBuffer(2, 2, 5, 1, 2), PairedGames(2, 2, weight=1.0)
    buf.start_rollout()
    values = np.array([[0.1, 0.0], [0.2, 0.1], [0.3, 0.2], [-0.4, 0.3], [0.0, -0.1]], np.float32)
    seats = [(0, 0), (1, 1), (0, 0), (1, 0), (1, 1)]
    ends = [(0, 0), (0, 0), (0, 0), (1, 0), (0, 1)]
    play(buf, pairing, seats, ends, {3: [[1.0, -1.0], [0, 0]], 4: [[0, 0], [0.2, -0.2]]}, values)
    n = buf.n
    # Game 0 waited for its twin; when game 1 ended the hand both got their result minus the twin's.
    np.testing.assert_allclose(buf.reward[n + 2, 0], 0.8) and np.testing.assert_allclose(buf.reward[n + 3, 0], -0.8)
    np.testing.assert_allclose(buf.reward[n + 3, 1], -0.8) and np.testing.assert_allclose(buf.reward[n + 4, 1], 0.8)
    assert pairing.scalars() == {"charts/paired_fraction": 1.0}
    adv, ret = buf.advantages(gamma=1.0, lam=0.5)
    # Game 0, seat 0: rows 0 -> 2 (done, +0.8): A2 = 0.8 - 0.3 = 0.5; A0 = (0.3 - 0.1) + 0.5 * 0.5 = 0.45.
    # Seat 1: rows 1 -> 3 (done, -0.8): A3 = -0.8 + 0.4 = -0.4; A1 = (-0.4 - 0.2) + 0.5 * -0.4 = -0.8.
    np.testing.assert_allclose(adv[n : n + 4, 0], [0.45, -0.8, 0.5, -0.4], atol=1e-6)
    # Game 1, seat 0: rows 0 -> 2 -> 3 (done, -0.8): A3 = -1.1, A2 = (0.3 - 0.2) - 0.55 = -0.45,
    # A0 = (0.2 - 0.0) - 0.225 = -0.025. Seat 1: rows 1 -> 4 (done, +0.8): A4 = 0.9, A1 = (-0.1 - 0.1) + 0.45.
    np.testing.assert_allclose(adv[n : n + 5, 1], [-0.025, 0.25, -0.45, -1.1, 0.9], atol=1e-6)
    np.testing.assert_allclose(ret[n : n + 5, 1], adv[n : n + 5, 1] + values[:, 1], atol=1e-6)


def test_half_the_twins_reward_mixes_own_and_duplicate_returns_and_a_late_twin_is_not_waited_for():
    buf, pairing = TurnBuffer(2, 2, 4, 1, 2), PairedGames(2, 2, weight=0.5)
    buf.start_rollout()
    values = np.zeros((4, 2), np.float32)
    play(buf, pairing, [(0, 0), (1, 1)] * 2, [(0, 0), (0, 0), (0, 0), (1, 1)], {3: [[1.0, -1.0], [0.2, -0.2]]}, values)
    n = buf.n
    np.testing.assert_allclose(buf.reward[n + 2 : n + 4, 0], [0.9, -0.9])  # 1.0 - 0.5 * 0.2 (together)
    np.testing.assert_allclose(buf.reward[n + 2 : n + 4, 1], [-0.3, 0.3])  # 0.2 - 0.5 * 1.0
    # The next hand: game 0 ends it in this rollout, its twin not: that last decision is not trained.
    buf.start_rollout()
    play(buf, pairing, [(0, 0), (1, 1), (0, 0)], [(0, 0), (0, 0), (1, 0)], {2: [[0.6, -0.6], [0, 0]]}, values, hand=1)
    assert buf.trainable()[n : n + 3, 0].all() and buf.reward[n + 2, 0] == pytest.approx(0.6)
    pairing.end_rollout(buf)
    assert buf.trainable()[n : n + 3, 0].tolist() == [True, False, False]  # seat 0's first decision bootstraps
    adv, _ = buf.advantages(1.0, 0.95)
    assert adv[n + 1 : n + 3, 0].tolist() == [0.0, 0.0]
    assert pairing.scalars()["charts/paired_fraction"] == pytest.approx(4 / 6)  # 4 of 6 seat-hands so far


def test_twins_are_dealt_the_same_cards_and_restart_their_matches_together():
    rules = Rules.preset("partnership").replace(target_score=150)
    env = VectorSpades(rules, 4, auto_reset=False)
    _, info = env.reset(seed=PairedGames.seeds(7, 4))
    assert (env.state.hands[0] == env.state.hands[1]).all() and (env.state.hands[2] == env.state.hands[3]).all()
    assert (env.state.hands[0] != env.state.hands[2]).any()
    pairing, rng = PairedGames(4, 4, 1.0), np.random.default_rng(0)
    restarts = 0
    for _ in range(6000):
        mask = info["action_mask"]
        actions = np.argmax(np.where(mask, rng.random(mask.shape), -1), 1)  # the twins play differently
        _, _, _, _, info = env.step(actions)
        was_over = env.state.phase == OVER
        restarted = pairing.restart_finished(env)
        if restarted is not None:
            restarts += 1
            _, info = restarted
            new = np.flatnonzero(was_over & (env.state.phase != OVER))
            assert len(new) % 2 == 0 and (new[0::2] % 2 == 0).all() and (new[1::2] == new[0::2] + 1).all()
            for g in new[0::2]:
                assert env.state.key[g] == env.state.key[g + 1] and (env.state.hands[g] == env.state.hands[g + 1]).all()
        over = info["to_play"] < 0  # a finished match waits only for its twin's
        assert not (over[0::2] & over[1::2]).any()
        if restarts == 2:
            break
    assert restarts >= 2


def test_twins_draw_the_same_opponents_with_the_learner_on_the_other_side():
    config = PPOConfig(num_envs=64, heuristic_prob=0.5, paired=True)
    opponents = Opponents(config, 2, np.random.default_rng(0))
    env = VectorSpades("partnership", 64, auto_reset=False)
    env.reset(seed=PairedGames.seeds(3, 64))
    PairedGames.draw_opponents(opponents, env.state, np.arange(64))
    assert (opponents.opponent[0::2] == opponents.opponent[1::2]).all()
    assert (opponents.learner_side[1::2] == 1 - opponents.learner_side[0::2]).all()
    assert {HEURISTIC, SELF_PLAY} == set(opponents.opponent.tolist())


def test_paired_settings_are_checked():
    with pytest.raises(ValueError, match=r"num_envs=7 \(even with paired: true\)"):
        PPOConfig(num_envs=7, paired=True)
    with pytest.raises(ValueError, match=r"pool_prob=0.5 \(0 with paired: true\)"):
        PPOConfig(num_envs=8, paired=True, pool_prob=0.5)


def test_a_paired_perfect_critic_run_resumes_exactly(tmp_path):
    def smoke(path):
        cfg = PPOConfig.from_yaml(SMOKE)
        return dataclasses.replace(cfg, run_dir=str(path), critic="perfect", paired=True, pool_prob=0.0)

    a, _ = full_and_resumed(smoke, tmp_path)
    assert (a["pairing"]["hand"] >= 0).any()  # twins' results carried across the checkpoint


def test_a_waiting_game_takes_no_decision_in_the_buffer():
    buf = TurnBuffer(2, 2, 3, 1, 2)
    buf.start_rollout()
    z = np.zeros(2)
    for seats, live in (((0, 0), (True, True)), ((1, -1), (True, False)), ((0, 1), (True, True))):
        buf.add(np.zeros((2, 1)), np.ones((2, 2), bool), z, z, z, np.array(seats), np.ones(2, bool), np.array(live))
    n = buf.n
    assert buf.valid[n:, 1].tolist() == [True, False, True] and not buf.learn[n + 1, 1]
    assert buf.next_row[n, 0] == n + 2 and buf.next_row[n, 1] == -1 and buf.last[1].tolist() == [n, n + 2]


def test_the_selfplay_paired_recipe_runs_in_small(tmp_path):
    recipe = PPOConfig.from_yaml(ROOT / "configs/train/selfplay_paired.yaml")
    assert (recipe.critic, recipe.paired, recipe.bag_adjusted_reward) == ("perfect", True, True)
    assert recipe.imitation_updates == 0 and recipe.init_from is None  # from scratch
    small = dict(num_envs=8, num_steps=16, total_updates=2, hidden=32, depth=1, eval_every=0, eval_deals=8)
    latest = load_checkpoint(train(dataclasses.replace(recipe, run_dir=str(tmp_path), **small), quiet=True))
    assert latest["update"] == 2 and "critic" in latest and "pairing" in latest
