"""Training checkpoints: written atomically, loaded with everything a run needs to resume exactly.

A checkpoint is one ``torch.save`` file holding a dict of plain data only (tensors,
numbers, strings, ``None``, lists, tuples, dicts), so that it loads with
``torch.load(weights_only=True)`` and can never run code (``agents.checkpoint_io``
reads and format-checks every checkpoint; ``save_checkpoint`` refuses anything else).
NumPy arrays are stored as tensors (``array_to_tensor``), NumPy generator states as
their dicts of ints.

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
``rng``             NumPy generator states (dicts of ints) and torch RNG states
``global_step``     decisions taken so far
``update``          PPO updates done so far
``run_name``        the run's name (TensorBoard directory)
``env``             ``env_state``: the games in progress (every ``GameState`` array, ``compact_tensor``)
``next_obs``, ...   the pending observations, masks and seats (tensors)
``buffer``          ``TurnBuffer.state_dict()`` as tensors (decisions whose return is pending)
``pool``            opponent pool: list of past network ``state_dict``s
==================  ==============================================================

A *slim* checkpoint (``export_slim``) keeps only what playing needs: ``format``,
``slim`` (True), ``rules``, ``obs_version``, ``config``, ``model_hparams``, ``model``
(float32 weights), ``global_step`` and ``update``. ``NeuralAgent.from_checkpoint`` and
``PPOConfig.init_from`` read it; it cannot resume a run.
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.checkpoint_io import CHECKPOINT_FORMAT, REQUIRED_KEYS, CheckpointError, read_checkpoint
from spades_env.engine.state import GameState
from spades_env.engine.state_schema import state_class

__all__ = [
    "CHECKPOINT_FORMAT",
    "REQUIRED_KEYS",
    "CheckpointError",
    "array_to_tensor",
    "env_state",
    "export_slim",
    "load_checkpoint",
    "restore_env",
    "save_checkpoint",
    "state_from_env",
    "tensor_to_array",
]

PLAIN_TYPES = (bool, int, float, str, bytes, type(None), torch.Tensor)


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write ``payload`` to ``path`` atomically: a temp file in the same directory, then ``os.replace``.

    A run killed mid-write leaves the previous checkpoint intact. The payload must be
    plain data (TypeError naming the first other value).
    """
    path = Path(path)
    missing = [k for k in REQUIRED_KEYS if k not in payload]
    if missing:
        raise ValueError(f"checkpoint payload lacks {missing}")
    _check_plain(payload, "payload")
    path.parent.mkdir(parents=True, exist_ok=True)
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


def _check_plain(value: Any, where: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, (str, int)):
                raise TypeError(f"checkpoint {where}: key {key!r} is not a str or int")
            _check_plain(item, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _check_plain(item, f"{where}[{i}]")
    elif not isinstance(value, PLAIN_TYPES):
        raise TypeError(f"checkpoint {where} is a {type(value).__name__}; checkpoints hold tensors and plain data only")


def load_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> dict[str, Any]:
    """Read a checkpoint written by ``save_checkpoint`` (``agents.checkpoint_io.read_checkpoint``)."""
    return read_checkpoint(path, map_location=map_location)


SLIM_KEYS = (*REQUIRED_KEYS, "update")


#: The weights a play-only export drops: PPO's state value head, which no decision reads.
STATE_VALUE_PREFIX = "value_head."


def check_new_output(path: str | Path, force: bool) -> None:
    """ValueError naming ``path`` where it exists and ``force`` is off: a command writes over no file of the user's
    by mistake (checked before the work, so that a refusal loses nothing)."""
    if not force and Path(path).exists():
        raise ValueError(f"{path} already exists: choose another path, or pass --force to replace it")


def export_slim(
    src: str | Path, dst: str | Path, play_only: bool = False, half: bool = False, force: bool = False
) -> Path:
    """Write the playing part of checkpoint ``src`` (weights, rules, observation version, config) to ``dst``
    (not ``src`` itself: that would drop the run state it holds). ``play_only`` also drops the state value head
    (``SpadesPolicy(state_value=False)``: the same decisions, a smaller file that PPO cannot train on). ``half``
    stores the weights as float16 (half the file): loading casts them back to float32, so the network plays the
    rounded weights, which can change a close decision (evaluate the exported file). An existing ``dst`` is
    replaced only with ``force`` (``check_new_output``)."""
    if Path(dst).exists() and Path(dst).resolve() == Path(src).resolve():
        raise ValueError(f"export {src} to another path: writing the slim copy over it would lose its run state")
    check_new_output(dst, force)
    ckpt = load_checkpoint(src)
    slim = {k: ckpt[k] for k in SLIM_KEYS if k in ckpt}
    model = ckpt["model"]
    if play_only:
        model = {k: v for k, v in model.items() if not k.startswith(STATE_VALUE_PREFIX)}
        slim["model_hparams"] = dict(slim["model_hparams"]) | {"state_value": False}
    slim["model"] = {k: v.detach().to("cpu", copy=True).contiguous() for k, v in model.items()}
    if half:
        slim["model"] = {k: v.half() if v.is_floating_point() else v for k, v in slim["model"].items()}
    slim["slim"] = True
    return save_checkpoint(dst, slim)


def save_network(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write the playing part of a run's ``payload`` (``training_payload``'s dict: its network as it is now) as a
    slim checkpoint at ``path``, as ``export_slim`` would write it from the run's checkpoint: a bot
    (``neural:path=``, ``guided:path=``) plays it."""
    slim = {k: payload[k] for k in SLIM_KEYS}
    slim["slim"] = True
    return save_checkpoint(path, slim)


# ------------------------------------------------------------------ plain data


def array_to_tensor(array: np.ndarray) -> torch.Tensor:
    """A NumPy array as a tensor of the same dtype, shape and values (a copy)."""
    return torch.from_numpy(np.array(array, copy=True, order="C"))


def tensor_to_array(tensor: torch.Tensor) -> np.ndarray:
    """The NumPy array ``array_to_tensor`` stored (a writable copy)."""
    return tensor.detach().cpu().numpy().copy()


NARROW_INTS = (np.int8, np.int16, np.int32)


def narrow_ints(array: np.ndarray) -> np.ndarray:
    """An int64 array in the narrowest signed integer type that holds its values (others as they are)."""
    if array.dtype != np.int64 or array.size == 0:
        return array
    lo, hi = int(array.min()), int(array.max())
    for kind in NARROW_INTS:
        info = np.iinfo(kind)
        if info.min <= lo and hi <= info.max:
            return array.astype(kind)
    return array


def compact_tensor(array: np.ndarray) -> torch.Tensor:
    """``array`` as a tensor that ``torch.save`` stores small: int64 narrowed (``narrow_ints``), and an array of one
    value repeated (a variant's unused field: all zeros) as that one value broadcast to the shape (stride 0: one
    element on disk). ``tensor_to_array`` reads it back as a full array."""
    array = narrow_ints(array)
    if array.size > 1 and (array == array.flat[0]).all():
        return torch.from_numpy(np.array(array.flat[0], dtype=array.dtype)).expand(array.shape)
    return array_to_tensor(array)


def env_state(state: GameState) -> dict[str, torch.Tensor]:
    """The batched games in progress as ``{field: tensor}`` (every array of the state's game, ``compact_tensor``:
    about 5x smaller than the arrays; ``state_from_env`` restores them)."""
    return {f.name: compact_tensor(getattr(state, f.name)) for f in dataclasses.fields(state)}


def state_from_env(data: dict[str, torch.Tensor], game: str, path: str | Path = "") -> GameState:
    """The state of ``game`` of ``env_state``: the same values, every narrowed integer field int64 again (a state's
    integer fields are all int64; checkpoints written before the narrowing load as they are). Of a checkpoint
    written when every game's state had every game's fields, the game's own are read, the others left; a field of
    the game missing fails in one line naming it (``path``: the checkpoint)."""
    names = [f.name for f in dataclasses.fields(state_class(game))]
    missing = [name for name in names if name not in data]
    if missing:
        raise CheckpointError(f"checkpoint {path}: its 'env' lacks the {game} state fields {missing}")
    arrays = {k: tensor_to_array(data[k]) for k in names}
    return state_class(game)(**{k: a.astype(np.int64) if a.dtype in NARROW_INTS else a for k, a in arrays.items()})


def restore_env(envs: Any, data: dict[str, torch.Tensor], path: str | Path) -> None:
    """Put the games of ``env_state`` back into a fresh ``VectorSpades`` of the same rules and size."""
    state = state_from_env(data, envs.engine.rules.game, path)
    if state.batch_size != envs.num_envs:
        raise CheckpointError(f"checkpoint {path}: 'env' holds {state.batch_size} games, the run has {envs.num_envs}")
    envs.restore(state)


def load_run_state(resume: str | Path, run_keys: tuple[str, ...] | list[str], kind: str = "") -> dict[str, Any]:
    """A full checkpoint to resume (``kind``: what run, for the error, e.g. ``"expert-iteration "``); a slim
    one, a checkpoint lacking ``run_keys`` or of another format or observation VERSION fails in one line."""
    from spades_env.observation import VERSION as OBS_VERSION

    ckpt = load_checkpoint(resume)
    if ckpt.get("slim"):
        raise ValueError(f"{resume}: a slim checkpoint holds no run state to resume; use init_from to start from it")
    missing = [k for k in run_keys if k not in ckpt]
    if missing or ckpt["format"] != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"checkpoint {resume}: no {kind}run state of format {CHECKPOINT_FORMAT} to resume "
            f"(format {ckpt['format']}, lacking {missing})"
        )
    if ckpt["obs_version"] != OBS_VERSION:
        raise ValueError(f"{resume}: observation VERSION {ckpt['obs_version']} != current {OBS_VERSION}")
    return ckpt


def training_payload(
    *, rules: Any, config: Any, policy: torch.nn.Module, optimizer: torch.optim.Optimizer,
    rngs: dict[str, np.random.Generator], global_step: int, update: int, run_name: str,
) -> dict[str, Any]:  # fmt: skip
    """What every training checkpoint holds first (PPO and expert iteration add their run state after it):
    the format, rules, observation version, config, network, optimizer, generators and progress."""
    from spades_env.observation import VERSION as OBS_VERSION

    return {
        "format": CHECKPOINT_FORMAT,
        "rules": rules.to_dict(),
        "obs_version": OBS_VERSION,
        "config": config.to_dict(),
        "model_hparams": policy.hyperparameters(),
        "model": {k: v.detach().cpu() for k, v in policy.state_dict().items()},
        "optimizer": optimizer.state_dict(),
        "rng": rng_states(rngs),
        "global_step": global_step,
        "update": update,
        "run_name": run_name,
    }


def make_run_name(config: Any, rules_name: str) -> str:
    """``{rules}__{exp_name}__{seed}__{unix time}``: a new run's name, from its config's ``exp_name`` and ``seed``."""
    return f"{rules_name}__{config.exp_name}__{config.seed}__{int(time.time())}"


def run_path_of(run_dir: str | Path, run_name: str, resume: str | Path | None) -> Path:
    """Where a run writes its logs and ``checkpoints/``: ``run_dir/run_name``, or, resumed from a
    ``RUN/checkpoints/*.pt``, beside that checkpoint (it goes on writing there, from any directory)."""
    if resume is not None and Path(resume).resolve().parent.name == "checkpoints":
        return Path(resume).resolve().parent.parent
    return Path(run_dir) / run_name


def seed_everything(seed: int, threads: int) -> None:
    """Python's, NumPy's and torch's global generators seeded with ``seed``, and torch's CPU threads set."""
    import random

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(threads)


def rng_states(rngs: dict[str, np.random.Generator]) -> dict[str, Any]:
    """The run's generators' states, with torch's (and CUDA's where there is one): a checkpoint's ``rng``."""
    states: dict[str, Any] = {k: g.bit_generator.state for k, g in rngs.items()}
    states["torch"] = torch.get_rng_state()
    if torch.cuda.is_available():
        states["torch_cuda"] = torch.cuda.get_rng_state_all()
    return states


def restore_rng_states(rngs: dict[str, np.random.Generator], states: dict[str, Any]) -> None:
    """Put back what ``rng_states`` saved (in place), so that a resumed run draws what it would have."""
    for name, g in rngs.items():
        g.bit_generator.state = states[name]
    torch.set_rng_state(states["torch"])
    if "torch_cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["torch_cuda"])
