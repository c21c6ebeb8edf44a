"""Comparing training checkpoints bit for bit (PPO, expert iteration, sharded and resumed runs)."""

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
