"""``spades train --rules PRESET_OR_YAML``: expert iteration at any table, with the generic config of its game family.

A table's game family (``game_family``) is the first of ``<game>_<shape>`` and ``<game>`` that has a config file, its
shape read from the rules' facts (``two_player``, ``partnership`` or ``cutthroat``), never from a list of preset
names: a rules YAML of a new table trains as well as a preset, and a new game adds its ``<game>.yaml``. The families
today: ``spades_partnership`` (house variants included), ``spades_two_player``, ``spades_cutthroat`` (3 to 6 players)
and ``hearts`` (each for themselves or in partnership). The family's config is composed from files of
``train/expert_iteration/family_configs/`` (package data, in wheels): ``base.yaml`` (what every family shares: the loop,
the network, the budget for 2 cores), then the family's own file (its teacher, temperature and reward scale), then
``gpu.yaml`` for the GPU sizing (``--gpu``, or ``--device cuda``), then the command's ``--set KEY=VALUE`` options. The
run is ``train.expert_iteration.trainer.train``'s: it resumes with ``spades train --resume RUN/checkpoints/latest.pt``
as any expert-iteration run (the checkpoint keeps the composed config), and its run directory starts with the rules'
name.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from spades_env.rules import BaseRules, resolve_rules
from spades_env.rules_yaml import parse_yaml
from train.expert_iteration.config import ExpertIterationConfig

#: Where the generic configs are: ``base.yaml``, one file per family, ``gpu.yaml`` (package data).
FAMILY_DIR = Path(__file__).resolve().parent / "family_configs"
#: The file every family's config starts from, and the GPU sizing laid over it.
BASE, GPU_SIZING = "base", "gpu"


def families() -> tuple[str, ...]:
    """The game families that have a config file (every file of ``FAMILY_DIR`` but the base and the GPU sizing)."""
    return tuple(sorted(p.stem for p in FAMILY_DIR.glob("*.yaml") if p.stem not in (BASE, GPU_SIZING)))


def table_shape(rules: BaseRules) -> str:
    """How a table's seats play: ``two_player``, ``partnership`` (two sides of two) or ``cutthroat`` (each for
    themselves, 3 to 6 players)."""
    if rules.n_players == 2:
        return "two_player"
    return "partnership" if rules.partnership else "cutthroat"


def game_family(rules: BaseRules) -> str:
    """The game family of a table: the first of ``<game>_<shape>`` and ``<game>`` with a config file."""
    known = families()
    for family in (f"{rules.game}_{table_shape(rules)}", rules.game):
        if family in known:
            return family
    raise ValueError(
        f"--rules: no generic training config for game {rules.game!r} at a {table_shape(rules)} table: add "
        f"{FAMILY_DIR.name}/{rules.game}.yaml (families: {', '.join(known)})"
    )


def uses_gpu_sizing(gpu: bool, device: str | None) -> bool:
    """Whether ``--gpu`` or ``--device cuda[:N]`` asks for the GPU sizing; ``--gpu`` with a CPU device is refused."""
    cuda = device is not None and device.strip().startswith("cuda")
    if gpu and device is not None and not cuda:
        raise ValueError(f"--gpu runs the update on the GPU: it cannot be combined with --device {device}")
    return gpu or cuda


def family_files(family: str, gpu: bool) -> list[Path]:
    """The files a family's config is composed of, in order (each one's keys over the earlier ones')."""
    if family not in families():
        raise ValueError(f"unknown game family {family!r}; families: {', '.join(families())}")
    names = [BASE, family] + ([GPU_SIZING] if gpu else [])
    return [FAMILY_DIR / f"{name}.yaml" for name in names]


def check_rules_options(rules: str | None, gpu: bool, refused: dict[str, Any]) -> None:
    """Refuse, in one line, ``--gpu`` without ``--rules`` and ``--rules`` with an option of another kind of run."""
    if rules is None:
        raise ValueError("--gpu picks the GPU sizing of a --rules run; with --config give --device cuda instead")
    given = [flag for flag, value in refused.items() if value is not None]
    if given:
        raise ValueError(
            f"--rules cannot be combined with {' or '.join(given)}: --rules builds the config of its game family "
            "(change keys with --set KEY=VALUE); resume a --rules run with --resume alone"
        )


def rules_config(
    rules: str, *, gpu: bool = False, device: str | None = None, overrides: dict[str, Any] | None = None
) -> ExpertIterationConfig:
    """The expert-iteration config of ``spades train --rules RULES``: the family's composed files with ``rules``
    set, then ``overrides`` (``--set``), then ``device``; every key checked as in a config file."""
    table = resolve_rules(rules)  # an unknown preset: one line listing the presets
    overrides = dict(overrides or {})
    if "rules" in overrides:
        raise ValueError(f"--set rules={overrides['rules']}: the rules of a --rules run are --rules' ({rules})")
    files = family_files(game_family(table), uses_gpu_sizing(gpu, device))
    data: dict[str, Any] = {}
    for path in files:
        data |= parse_yaml(path.read_bytes(), str(path)) or {}
    source = " + ".join(f"{FAMILY_DIR.name}/{p.name}" for p in files)
    config = ExpertIterationConfig.from_dict(data | {"rules": str(rules)}, source=source)
    config = config.with_overrides(overrides, source="--set")
    return config if device is None else dataclasses.replace(config, device=device)


def train_rules(
    rules: str | None,
    *,
    gpu: bool = False,
    refused: dict[str, Any] | None = None,
    device: str | None = None,
    overrides: dict[str, Any] | None = None,
    run_dir: str | None = None,
    init_from: str | None = None,
    actors: int | None = None,
    stop_at: int | None = None,
    progress: bool = True,
) -> Path:
    """Run expert iteration at ``rules`` with its family's generic config (``rules_config``); ``run_dir``,
    ``init_from`` and ``actors`` as ``spades train``'s options; ``refused``: the command's options that a --rules
    run cannot take (``--config``, ``--resume``), by flag, None where not given. Returns the last checkpoint's path."""
    from train.expert_iteration.trainer import train

    check_rules_options(rules, gpu, refused or {})
    config = rules_config(rules, gpu=gpu, device=device, overrides=overrides)
    options = {"run_dir": run_dir, "init_from": init_from, "actors": actors}
    config = dataclasses.replace(config, **{k: v for k, v in options.items() if v is not None})
    return train(config, stop_at=stop_at, progress=progress)
