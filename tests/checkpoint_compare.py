"""Comparing training checkpoints bit for bit (PPO, expert iteration, sharded and resumed runs), and the committed
checkpoints with the recipes that made them; tiny untrained checkpoints for the tests of the bots that load one."""

from pathlib import Path

import numpy as np
import pytest
import torch

from spades_env.engine import SpadesEngine

ROOT = Path(__file__).resolve().parent.parent


def assert_same(a, b, where="checkpoint"):
    """Equal plain data: dicts (keys in order), lists and tuples item by item, tensors bit for bit."""
    assert type(a) is type(b), where
    if isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            assert_same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and torch.equal(a, b), where
    else:
        assert a == b, where


def without_run_identity(ckpt):
    """A checkpoint minus what names the run (its name and run directory)."""
    return {k: v for k, v in ckpt.items() if k != "run_name"} | {"config": ckpt["config"] | {"run_dir": ""}}


def committed_checkpoint(path, recipe, rules: str, keys) -> dict:
    """The committed slim checkpoint at ``path`` (read with ``weights_only``), asserted <= 5 MiB, trained on the
    preset ``rules`` with ``recipe``'s network size and ``recipe``'s values of the config ``keys``."""
    assert path.stat().st_size <= 5 * 2**20
    data = torch.load(path, weights_only=True)
    assert data["slim"] and data["rules"]["name"] == rules
    assert (data["model_hparams"]["hidden"], data["model_hparams"]["depth"]) == (recipe.hidden, recipe.depth)
    for key in keys:
        assert data["config"][key] == getattr(recipe, key), key
    return data


def committed(path: Path, recipe_path: Path) -> dict:
    """The committed slim checkpoint at ``path``, asserted <= 5 MiB and trained by the recipe as it stands (its
    every config value but what names the run: ``run_dir``, ``exp_name``), for all of its rounds, with the network
    size of its ``init_from`` (and no state value head where it was exported play-only)."""
    from train.runs.checkpoint import STATE_VALUE_PREFIX, load_checkpoint
    from train.values.bid_values_config import BidValuesConfig

    recipe = BidValuesConfig.from_yaml(recipe_path)
    assert path.stat().st_size <= 5 * 2**20
    data = torch.load(path, weights_only=True)
    assert data["slim"] and data["rules"]["name"] == recipe.rules and data["update"] == recipe.rounds
    # keys added after the run trained are absent from its config and take their defaults (the old behaviour)
    stored = BidValuesConfig.from_dict(data["config"]).to_dict()
    unnamed = lambda config: {k: v for k, v in config.items() if k not in ("run_dir", "exp_name")}  # noqa: E731
    assert unnamed(stored) == unnamed(recipe.to_dict())
    bidding_torso = {"bid_hidden": recipe.bid_hidden, "bid_depth": recipe.bid_depth} if recipe.bid_depth else {}
    value_head = {"card_value_hidden": recipe.card_value_hidden} if recipe.card_value_hidden else {}
    value_head |= {"card_value_torso": True} if recipe.card_value_torso else {}
    # a play-only export (``export_slim(play_only=True)``) has no state value head, and says so
    play_only = {} if any(k.startswith(STATE_VALUE_PREFIX) for k in data["model"]) else {"state_value": False}
    wanted = load_checkpoint(ROOT / recipe.init_from)["model_hparams"] | bidding_torso | value_head | play_only
    assert data["model_hparams"] == wanted
    return data


def assert_learned_plays(path: Path, rules: str) -> None:
    """``learned`` at a ``rules`` table plays the checkpoint at ``path`` (its own cards), which refuses other tables."""
    from agents import make_agent
    from agents.neural import NeuralAgent
    from spades_env.envs.vector import VectorSpades

    env = VectorSpades(rules, num_envs=3, seed=5)
    obs, info = env.reset(seed=5)
    learned, direct = make_agent("learned", seed=0), NeuralAgent.from_checkpoint(path)
    learned.check_supports(env.engine)
    assert direct.play == "network"
    np.testing.assert_array_equal(learned.act(obs, info["action_mask"]), direct.act(obs, info["action_mask"]))
    other = "cutthroat-4" if rules == "partnership" else "partnership"
    with pytest.raises(ValueError, match=rules):
        direct.check_supports(VectorSpades(other, num_envs=1).engine)


def tiny_checkpoint(path, preset):
    """A small untrained network for ``preset``, written as a training checkpoint."""
    from agents.neural import SpadesPolicy
    from spades_env.observation import VERSION, encoder_for
    from train.runs.checkpoint import CHECKPOINT_FORMAT, save_checkpoint

    engine = SpadesEngine(preset)
    torch.manual_seed(0)
    policy = SpadesPolicy.for_engine(engine, encoder_for(engine).size, hidden=16, depth=1)
    payload = {"format": CHECKPOINT_FORMAT, "rules": engine.rules.to_dict(), "obs_version": VERSION, "config": {}}
    save_checkpoint(
        path, payload | {"model_hparams": policy.hyperparameters(), "model": policy.state_dict(), "global_step": 0}
    )
    return path
