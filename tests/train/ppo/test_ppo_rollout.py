"""Rollout pieces of PPO (train/ppo/rollout.py): bag-adjusted hand rewards."""

import numpy as np
import pytest

pytest.importorskip("torch")

from spades_env.envs.vector import VectorSpades  # noqa: E402
from train.ppo.rollout import adjusted_rewards  # noqa: E402


def finished_steps(rules, games=64, hands=40):
    """(raw rewards, finished hands) of the env steps in which hands ended (random legal play)."""
    env = VectorSpades(rules, games, seed=5)
    _, info = env.reset()
    rng, steps = np.random.default_rng(1), []
    while sum(len(f.games) for _, fs in steps for f in fs) < hands:
        mask = info["action_mask"]
        _, rewards, _, _, info = env.step(np.argmax(np.where(mask, rng.random(mask.shape), -1), 1))
        if info["finished_hands"]:
            steps.append((rewards, info["finished_hands"]))
    return env.engine, steps


def test_bag_adjusted_rewards_put_the_penalties_back_and_charge_every_bag():
    engine, steps = finished_steps("partnership", games=128, hands=600)
    side = engine.side_of_seat
    charged = penalised = 0
    for rewards, finished in steps:
        out = adjusted_rewards(engine, rewards, finished)
        for f in finished:
            expected = f.delta + 100 * f.bag_penalties - 10 * f.bags_added  # bag_penalty 100, bag_limit 10
            np.testing.assert_array_equal(out[f.games], expected[:, side])
            np.testing.assert_array_equal(rewards[f.games], f.delta[:, side])  # the env's reward: the score change
            charged += int((f.bags_added > 0).sum())
            penalised += int((f.bag_penalties > 0).sum())
        others = np.setdiff1d(np.arange(len(rewards)), np.concatenate([f.games for f in finished]))
        np.testing.assert_array_equal(out[others], rewards[others])
    assert charged > 0 and penalised > 0


def test_hearts_rewards_stay_minus_the_points():
    engine, steps = finished_steps("hearts", hands=20)
    for rewards, finished in steps:
        np.testing.assert_array_equal(adjusted_rewards(engine, rewards, finished), rewards)
