"""Training checkpoints: written atomically, loaded with everything a run needs to resume exactly.

A checkpoint is one ``torch.save`` file holding a dict:

==================  ==============================================================
key                 meaning
==================  ==============================================================
``format``          ``CHECKPOINT_FORMAT`` (this file's layout)
``rules``           ``Rules.to_dict()`` of the rule set trained on
``obs_version``     ``spades_env.observation.VERSION`` the network reads
``config``          the training config as a dict
``model_hparams``   arguments of ``SpadesPolicy`` (rebuilds the network)
``model``           network ``state_dict``
``optimizer``       optimizer ``state_dict``
``rng``             NumPy generator states and torch RNG states
``global_step``     decisions taken so far
``update``          PPO updates done so far
``run_name``        the run's name (TensorBoard directory)
``env``             the pickled vector environment (games in progress)
``buffer``          ``TurnBuffer.state_dict()`` (decisions whose return is pending)
``pool``            opponent pool: list of past network ``state_dict``s
==================  ==============================================================

A *slim* checkpoint (``export_slim``) keeps only what playing needs: ``format``,
``slim`` (True), ``rules``, ``obs_version``, ``config``, ``model_hparams``, ``model``
(float32 weights), ``global_step`` and ``update``. ``NeuralAgent.from_checkpoint`` and
``PPOConfig.init_from`` read it; it cannot resume a run.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

CHECKPOINT_FORMAT = 1
REQUIRED_KEYS = ("format", "rules", "obs_version", "config", "model_hparams", "model", "global_step")


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write ``payload`` to ``path`` atomically: a temp file in the same directory, then ``os.replace``.

    A run killed mid-write leaves the previous checkpoint intact.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    missing = [k for k in REQUIRED_KEYS if k not in payload]
    if missing:
        raise ValueError(f"checkpoint payload lacks {missing}")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(payload, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> dict[str, Any]:
    """Read a checkpoint written by ``save_checkpoint``; checks its format."""
    ckpt = torch.load(Path(path), map_location=map_location, weights_only=False)
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path}: not a spades_env training checkpoint of format {CHECKPOINT_FORMAT}")
    return ckpt


SLIM_KEYS = (*REQUIRED_KEYS, "update")


def export_slim(src: str | Path, dst: str | Path) -> Path:
    """Write the playing part of checkpoint ``src`` (weights, rules, observation version, config) to ``dst``."""
    ckpt = load_checkpoint(src)
    slim = {k: ckpt[k] for k in SLIM_KEYS if k in ckpt}
    slim["model"] = {k: v.detach().to("cpu", copy=True).contiguous() for k, v in ckpt["model"].items()}
    slim["slim"] = True
    return save_checkpoint(dst, slim)
