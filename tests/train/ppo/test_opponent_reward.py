"""The opponent-relative hand reward (``opponent_reward_weight``, train/ppo/rollout.py relative_rewards): a seat's
side reward minus the weight times the mean of the other sides' rewards."""

import numpy as np
import pytest

pytest.importorskip("torch")

import train.ppo.rollout as ppo_rollout  # noqa: E402
from spades_env.envs.vector import VectorSpades  # noqa: E402
from train.ppo.rollout import relative_rewards  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402


def engine_of(rules):
    return VectorSpades(rules, num_envs=1, seed=0).engine


def test_cutthroat4_subtracts_the_mean_of_the_three_other_seats():
    rewards = np.array([[30, -60, 90, 120], [0, 0, 0, 0]], np.float32)
    engine = engine_of("cutthroat-4")
    # seat 0: 30 - (-60 + 90 + 120) / 3 = -20; seat 1: -60 - (30 + 90 + 120) / 3 = -140; ...
    expected = np.array([[-20, -140, 60, 100], [0, 0, 0, 0]], np.float32)
    np.testing.assert_array_equal(relative_rewards(engine, rewards, 1.0), expected)
    half = np.array([[5, -100, 75, 110], [0, 0, 0, 0]], np.float32)
    np.testing.assert_array_equal(relative_rewards(engine, rewards, 0.5), half)
    assert relative_rewards(engine, rewards, 0.5).dtype == np.float32


def test_partnership_subtracts_the_other_side():
    rewards = np.array([[50, -30, 50, -30], [-120, 40, -120, 40]], np.float32)  # seats 0 and 2 are side 0
    engine = engine_of("partnership")
    np.testing.assert_array_equal(
        relative_rewards(engine, rewards, 1.0), np.array([[80, -80, 80, -80], [-160, 160, -160, 160]], np.float32)
    )
    np.testing.assert_array_equal(
        relative_rewards(engine, rewards, 0.5), np.array([[65, -55, 65, -55], [-140, 100, -140, 100]], np.float32)
    )


def test_weight_zero_leaves_the_rewards_bit_identical():
    rewards = np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32)
    out = relative_rewards(engine_of("cutthroat-4"), rewards, 0.0)
    assert out.dtype == np.float32 and out.tobytes() == rewards.tobytes()
    assert PPOConfig().opponent_reward_weight == 0.0


@pytest.mark.parametrize("weight", [-0.1, 1.5])
def test_the_weight_must_lie_in_0_to_1(weight):
    with pytest.raises(ValueError, match=rf"opponent_reward_weight={weight} \(0 <= w <= 1\)"):
        PPOConfig(opponent_reward_weight=weight)


TINY_CUTTHROAT = dict(
    rules="cutthroat-4",
    num_envs=4,
    num_steps=60,
    total_updates=1,
    hidden=16,
    depth=1,
    heuristic_prob=1.0,
    paired=True,
    bag_adjusted_reward=True,
    eval_final=False,
    checkpoint_every=1,
)


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_the_rollout_applies_the_weight_only_when_it_is_set(tmp_path, monkeypatch, weight):
    calls = []

    def spy(engine, rewards, w):
        calls.append((rewards.copy(), w))
        return relative_rewards(engine, rewards, w)

    monkeypatch.setattr(ppo_rollout, "relative_rewards", spy)
    train(PPOConfig(run_dir=str(tmp_path), opponent_reward_weight=weight, **TINY_CUTTHROAT), quiet=True)
    if weight == 0.0:
        assert calls == []  # the default never touches a reward
    else:
        assert calls and {w for _, w in calls} == {weight}
        assert any(np.any(r != 0) for r, _ in calls)  # hand-end rewards went through it
