"""What every trainer does around its own rounds, once: start or resume a run (its config, device, rules, name,
directory and seeds), start from another run's network (``init_from``), open its TensorBoard writer, keep the best
network by the evaluation's gain and anneal the learning rate. PPO (``train/ppo/trainer.py``), expert iteration
(``train/expert_iteration/trainer.py``) and bid values (``train/values/``) build on it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from train.runs.checkpoint import load_checkpoint, make_run_name, run_path_of, seed_everything, training_payload


@dataclasses.dataclass(frozen=True)
class RunStart:
    """Where a run starts: its config, the checkpoint it resumes (None: a new run), the torch device, the rules,
    the run's name and directory (``checkpoints/`` inside it). Made by ``start_run``."""

    config: Any
    ckpt: dict[str, Any] | None
    device: torch.device
    rules: Any
    name: str
    path: Path

    @property
    def checkpoints(self) -> Path:
        return self.path / "checkpoints"


def start_run(
    config: Any,
    resume: str | Path | None,
    load_resume: Callable[[str | Path], tuple[dict[str, Any], Any]],
    what: str,
    **overrides: Any,
) -> RunStart:
    """A new run of ``config``, or the run ``resume`` names (``load_resume(path)`` gives its checkpoint and config),
    with ``overrides`` of the config (None: keep; ``device`` checked before any work), seeded
    (``seed_everything``). ``what`` names the trainer in the error of a call with neither."""
    from agents.neural import torch_device
    from spades_env.rules import resolve_rules

    if config is None and resume is None:
        raise ValueError(f"{what} needs a config, or a checkpoint to resume")
    overrides = {k: v for k, v in overrides.items() if v is not None}
    device_name = overrides.get("device", config.device if config is not None else None)
    if device_name is not None:
        torch_device(device_name)  # a missing GPU fails before any work
    ckpt, config = load_resume(resume) if resume is not None else (None, config)
    if overrides:
        config = dataclasses.replace(config, **overrides)
    rules = resolve_rules(ckpt["rules"] if ckpt else config.rules)
    name = ckpt["run_name"] if ckpt else make_run_name(config, rules.name)
    start = RunStart(config, ckpt, torch_device(config.device), rules, name, run_path_of(config.run_dir, name, resume))
    seed_everything(config.seed, config.threads)
    return start


def load_initial_weights(policy: torch.nn.Module, init_from: str) -> None:
    """``policy`` given the network of the checkpoint ``init_from``; another observation version or network shape
    fails in one line naming the file."""
    from spades_env.observation import VERSION as OBS_VERSION

    init = load_checkpoint(init_from)
    if init["obs_version"] != OBS_VERSION:
        raise ValueError(f"{init_from}: observation VERSION {init['obs_version']} != current {OBS_VERSION}")
    if init["model_hparams"] != policy.hyperparameters():
        raise ValueError(f"{init_from}: network {init['model_hparams']} != {policy.hyperparameters()}")
    policy.load_state_dict(init["model"])


def open_writer(start: RunStart, global_step: int):
    """The run's TensorBoard writer. A new run writes its config and rules as tables; a resumed one drops what the
    killed run logged after its checkpoint (every step past ``global_step``)."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(start.path), purge_step=global_step + 1 if start.ckpt else None)
    if start.ckpt is None:
        writer.add_text("hyperparameters", _table("param", start.config.to_dict()))
        writer.add_text("rules", _table("field", start.rules.to_dict()))
    return writer


def _table(key: str, values: dict[str, Any]) -> str:
    return f"|{key}|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in values.items())


class BestNetwork:
    """The best evaluation so far (``best_diff`` in a checkpoint): ``improves(diff)`` says whether an evaluation
    beats it, by ``gain`` (``train.evaluation.network_eval.eval_gain``: Hearts' lower points are better), and
    keeps it if so."""

    def __init__(self, gain: Callable[[float], float], ckpt: dict[str, Any] | None) -> None:
        self.gain = gain
        worst = gain(-float("inf"))  # the diff of gain -inf (a gain is its own inverse)
        self.diff = ckpt.get("best_diff", worst) if ckpt else worst

    def improves(self, diff: float) -> bool:
        if self.gain(diff) <= self.gain(self.diff):
            return False
        self.diff = diff
        return True


def anneal_learning_rate(optimizer: torch.optim.Optimizer, learning_rate: float, done: int, total: int) -> None:
    """Every parameter group's rate linearly from ``learning_rate`` (``done`` = 0) toward 0 (``done`` = ``total``)."""
    for group in optimizer.param_groups:
        group["lr"] = learning_rate * (1.0 - done / max(1, total))


def due_after(done: int, total: int, stop: int, config: Any) -> tuple[bool, bool]:
    """(evaluate, checkpoint) after ``done`` of a run's ``total`` rounds or updates, the run stopping at ``stop``: an
    evaluation every ``eval_every`` (0: none) and after the last (``eval_final``); ``latest.pt`` every
    ``checkpoint_every`` and where the run stops. The rule of every trainer (PPO, expert iteration, bid values)."""
    evaluate = bool(config.eval_every and done % config.eval_every == 0) or (done == total and config.eval_final)
    return evaluate, done % config.checkpoint_every == 0 or done == stop


def run_rounds(
    first: int,
    stop: int,
    total: int,
    config: Any,
    step: Callable[[int], None],
    evaluate: Callable[[int], None],
    checkpoint: Callable[[int], Path],
    last_path: Path,
) -> Path:
    """Rounds (or updates) ``first`` to ``stop`` of ``total``: ``step(k)`` each, then ``evaluate(done)`` and
    ``checkpoint(done)`` when ``due_after`` says; the path of the last checkpoint written (``last_path`` if none)."""
    for k in range(first, stop):
        step(k)
        done = k + 1
        eval_due, save_due = due_after(done, total, stop, config)
        if eval_due:
            evaluate(done)
        if save_due:
            last_path = checkpoint(done)
    return last_path


def run_payload(run: Any, update: int) -> dict[str, Any]:
    """``training_payload`` of a trainer's run (its ``rules``, ``config``, ``policy``, ``optimizer``, ``rngs``,
    ``global_step`` and ``start.name``) after ``update`` rounds or updates: what every trainer's checkpoint holds
    first."""
    return training_payload(
        rules=run.rules, config=run.config, policy=run.policy, optimizer=run.optimizer, rngs=run.rngs,
        global_step=run.global_step, update=update, run_name=run.start.name,
    )  # fmt: skip
