"""Comparing training checkpoints bit for bit (PPO, expert iteration, sharded and resumed runs), and the committed
checkpoints with the recipes that made them."""

import torch


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
