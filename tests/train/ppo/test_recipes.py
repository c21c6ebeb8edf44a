"""The training recipes of configs/train/ end to end, shrunk to seconds: each YAML loads, trains its
phases (behaviour cloning, PPO, evaluation, keep-best) on its rules, and its checkpoint plays those rules."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.neural import NeuralAgent, SpadesPolicy  # noqa: E402
from tests.checkpoint_compare import committed_checkpoint  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402
from train.runs.checkpoint import export_slim, load_checkpoint  # noqa: E402

CUTTHROAT4 = ROOT / "configs" / "train" / "cutthroat4.yaml"
CUTTHROAT4_RELATIVE = ROOT / "configs" / "train" / "cutthroat4_relative.yaml"
CUTTHROAT4_CHECKPOINT = ROOT / "checkpoints" / "cutthroat4_ppo.pt"

#: The sizes a smoke run shrinks; every other setting is the recipe's own.
TINY = {
    "num_envs": 8,
    "num_steps": 16,
    "total_updates": 2,
    "hidden": 32,
    "depth": 1,
    "imitation_updates": 2,
    "imitation_num_envs": 8,
    "imitation_num_steps": 64,  # more than one cutthroat-4 hand (52 decisions): value targets exist
    "imitation_minibatch": 128,
    "imitation_heldout": 64,
    "eval_every": 1,
    "eval_deals": 4,
    "checkpoint_every": 1,
}


def test_cutthroat4_recipe_smoke(tmp_path):
    recipe = PPOConfig.from_yaml(CUTTHROAT4)
    assert recipe.rules == "cutthroat-4" and recipe.imitation_updates > 0 and recipe.heuristic_prob == 1.0
    assert recipe.paired and recipe.bag_adjusted_reward
    assert recipe.keep_best and recipe.eval_every > 0
    cfg = dataclasses.replace(recipe, run_dir=str(tmp_path), **TINY)
    latest = train(cfg, quiet=True)
    ckpt = load_checkpoint(latest)
    assert ckpt["update"] == TINY["total_updates"]
    assert ckpt["rules"]["name"] == "cutthroat-4" and ckpt["rules"]["n_players"] == 4
    assert ckpt["config"] == recipe.to_dict() | TINY | {"run_dir": str(tmp_path)}
    checkpoints = latest.parent
    assert {"imitation.pt", "best.pt", "latest.pt"} <= {p.name for p in checkpoints.iterdir()}
    assert load_checkpoint(checkpoints / "best.pt")["best_diff"] > -float("inf")

    from spades_env.envs.vector import VectorSpades

    slim = export_slim(checkpoints / "best.pt", tmp_path / "cutthroat4.pt")
    agent = NeuralAgent.from_checkpoint(slim)
    env = VectorSpades("cutthroat-4", num_envs=4, seed=3)
    agent.check_supports(env.engine)
    obs, info = env.reset()
    for _ in range(60):  # past the first hand's end
        actions = agent.act(obs, info["action_mask"])
        assert info["action_mask"][np.arange(4), actions].all()
        obs, _, _, _, info = env.step(actions)
    with pytest.raises(ValueError, match="cutthroat-4"):
        agent.check_supports(VectorSpades("partnership", num_envs=1, seed=0).engine)


def test_the_relative_reward_experiment_is_the_cutthroat4_recipe_with_only_the_weight_changed():
    recipe, relative = PPOConfig.from_yaml(CUTTHROAT4).to_dict(), PPOConfig.from_yaml(CUTTHROAT4_RELATIVE).to_dict()
    assert recipe["opponent_reward_weight"] == 0.0 and relative["opponent_reward_weight"] == 1.0
    changed = {k for k in recipe if recipe[k] != relative[k]}
    assert changed == {"exp_name", "opponent_reward_weight"}


def test_cutthroat4_recipe_network_exports_within_5_mb(tmp_path):
    from spades_env.envs.vector import VectorSpades

    recipe = PPOConfig.from_yaml(CUTTHROAT4)
    env = VectorSpades(recipe.rules, num_envs=1, seed=0)
    obs, _ = env.reset()
    policy = SpadesPolicy.for_engine(env.engine, obs.shape[1], hidden=recipe.hidden, depth=recipe.depth)
    torch.save(policy.state_dict(), tmp_path / "weights.pt")
    assert (tmp_path / "weights.pt").stat().st_size <= 5 * 2**20


def test_the_committed_cutthroat4_checkpoint_is_the_recipes_network_and_plays_cutthroat4():
    from spades_env.envs.vector import VectorSpades

    keys = ("num_envs", "num_steps", "learning_rate", "paired", "bag_adjusted_reward", "heuristic_prob")
    committed_checkpoint(CUTTHROAT4_CHECKPOINT, PPOConfig.from_yaml(CUTTHROAT4), "cutthroat-4", keys)
    agent = NeuralAgent.from_checkpoint(CUTTHROAT4_CHECKPOINT)
    env = VectorSpades("cutthroat-4", num_envs=2, seed=5)
    agent.check_supports(env.engine)
    obs, info = env.reset()
    actions = agent.act(obs, info["action_mask"])
    assert info["action_mask"][np.arange(2), actions].all()
