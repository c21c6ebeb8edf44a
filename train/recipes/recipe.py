"""A learned bot's whole training, one command: the stages of a recipe YAML (``configs/recipes/*.yaml``) run in order,
each a training config of ``configs/train/`` started from an earlier stage's network, resumable stage by stage.

A recipe names its rules and its stages; a stage names its training config, the earlier stages its network starts from
(``init_from``) and whose bid values it learns (``value_teacher``), which of its run's checkpoints it hands on
(``take``: ``best``, the best evaluated network, or ``latest``), how that one is exported, and ``overrides``: keys of
its training config set for this stage (a config run again with another seed or length needs no copy). Each stage's
network is
written to ``OUT/<stage>.pt`` (a slim checkpoint, ``spades export``); the last stage's is the bot. A stage whose file
exists is done; a stage whose run has a ``latest.pt`` goes on from it (``--resume``); so running the same command
again after a kill loses at most the stage's last round. ``OUT/recipe.yaml`` records what the folder was made by, and
another recipe (or the same one at another scale) is refused there rather than mixed in.

``smoke=True`` shrinks every stage to seconds (``SMOKE``: tiny networks, a few games, one or two rounds): CI runs each
shipped recipe so, end to end.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from spades_env.rules_yaml import parse_yaml

TAKES = ("best", "latest")
STAGE_KEYS = ("name", "config", "init_from", "value_teacher", "take", "play_only", "half", "overrides")
#: Training-config keys a stage's ``overrides`` may not set: the recipe sets them (stage keys, ``--out``, ``rules``).
RECIPE_SET_KEYS = ("init_from", "value_teacher", "run_dir", "rules")

#: The sizes a smoke run sets, by trainer; every other setting is the stage's own.
SMOKE: dict[str, dict[str, Any]] = {
    "ppo": {
        "num_envs": 8,
        "num_steps": 16,
        "total_updates": 2,
        "imitation_num_envs": 8,
        "imitation_num_steps": 80,  # more than one hand (Hearts: 12 passes and 52 cards): value targets exist
        "imitation_minibatch": 128,
        "imitation_heldout": 64,
        "eval_every": 1,
        "eval_deals": 4,
        "checkpoint_every": 1,
    },
    "expert_iteration": {
        "rounds": 1,
        "num_envs": 4,
        "num_steps": 80,
        "label_chunk": 64,
        "minibatch": 64,
        "eval_every": 1,
        "eval_deals": 4,
    },
    "bid_values": {"rounds": 2, "deals": 32, "eval_deals": 4, "eval_every": 1, "minibatch": 64},
}
SMOKE_TEACHER = "search:samples=2,oversample=1"  # a search teacher at its cheapest
SMOKE_HIDDEN = 16  # a smoke run's new bidding torso and card value head
SMOKE_NETWORK = {"hidden": 32, "depth": 1}  # every trainer that names the network's size


@dataclasses.dataclass(frozen=True)
class Stage:
    """One training run of a recipe: ``config`` (a training YAML, relative to the recipe's folder), started from the
    network of the earlier stage ``init_from`` (else the config's own start), ``value_teacher`` an earlier stage's
    bid values; ``take`` the run's checkpoint it hands on, exported ``play_only`` / ``half`` (``spades export``);
    ``overrides`` keys of the config set for this stage."""

    name: str
    config: str
    init_from: str | None = None
    value_teacher: str | None = None
    take: str = "latest"
    play_only: bool = False
    half: bool = False
    overrides: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Recipe:
    """A recipe file: its ``rules`` preset, its ``stages`` in order, and ``folder`` (where stage configs are read)."""

    rules: str
    stages: tuple[Stage, ...]
    folder: Path
    source: str = "recipe"

    @classmethod
    def from_yaml(cls, path: str | Path) -> Recipe:
        """Read and check a recipe YAML; every error names the file, the stage and the key."""
        path = Path(path)
        data = parse_yaml(path.read_bytes(), str(path))
        return cls.from_dict(data, folder=path.parent, source=str(path))

    @classmethod
    def from_dict(cls, data: Any, folder: Path, source: str = "recipe") -> Recipe:
        if not isinstance(data, dict) or set(data) != {"rules", "stages"}:
            keys = sorted(data) if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"{source}: a recipe has exactly the keys ['rules', 'stages'], got {keys}")
        if not isinstance(data["stages"], list) or not data["stages"]:
            raise ValueError(f"{source}: stages must be a non-empty list of stages")
        stages: list[Stage] = []
        for k, raw in enumerate(data["stages"]):
            stages.append(_stage(raw, [s.name for s in stages], f"{source}: stage {k + 1}"))
        recipe = cls(rules=str(data["rules"]), stages=tuple(stages), folder=folder, source=source)
        for stage in recipe.stages:
            recipe.stage_config(stage)  # each config loads, for these rules
        return recipe

    def config_path(self, stage: Stage) -> Path:
        return self.folder / stage.config

    def stage_config(self, stage: Stage):
        """``stage``'s training config as its trainer reads it, checked against the recipe, and that trainer's
        ``train`` function."""
        from train.recipes.trainers import trainer_for

        path = self.config_path(stage)
        if not path.is_file():
            raise ValueError(f"{self.source}: stage {stage.name!r}: config {path} does not exist")
        config_class, run_training = trainer_for(config=path)
        config = config_class.from_yaml(path).with_overrides(
            stage.overrides, source=f"{self.source}: stage {stage.name!r}: overrides"
        )
        if config.rules != self.rules:
            raise ValueError(
                f"{self.source}: stage {stage.name!r}: {path} trains rules {config.rules!r}, the recipe {self.rules!r}"
            )
        if stage.value_teacher and not hasattr(config, "value_teacher"):
            raise ValueError(
                f"{self.source}: stage {stage.name!r}: value_teacher is for bid-values configs "
                f"(algorithm: bid_values); {path} is not one"
            )
        return config, run_training


def _stage(raw: Any, earlier: list[str], where: str) -> Stage:
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: a stage is a mapping of {list(STAGE_KEYS)}, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(STAGE_KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown stage key(s) {unknown}; known keys: {list(STAGE_KEYS)}")
    for key in ("name", "config"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise ValueError(f"{where}: {key} must be a non-empty string")
    name = raw["name"]
    where = f"{where} ({name})"
    if not re.fullmatch(r"[A-Za-z0-9_-]+", name) or name in earlier:
        raise ValueError(f"{where}: name must be new and made of letters, digits, '_' and '-' (a file name)")
    for key in ("init_from", "value_teacher"):
        ref = raw.get(key)
        if ref is not None and ref not in earlier:
            raise ValueError(f"{where}: {key} {ref!r} must name an earlier stage, one of {earlier}")
    if raw.get("take", "latest") not in TAKES:
        raise ValueError(f"{where}: take must be one of {list(TAKES)}, got {raw['take']!r}")
    for key in ("play_only", "half"):
        if not isinstance(raw.get(key, False), bool):
            raise ValueError(f"{where}: {key} must be true or false, got {raw[key]!r}")
    overrides = raw.get("overrides", {})
    if not isinstance(overrides, dict) or not all(isinstance(k, str) for k in overrides):
        raise ValueError(f"{where}: overrides must be a mapping of training-config keys to values, got {overrides!r}")
    reserved = sorted(set(overrides) & set(RECIPE_SET_KEYS))
    if reserved:
        raise ValueError(
            f"{where}: overrides may not set {reserved}: the recipe sets them (the stage keys init_from and "
            "value_teacher, --out for run_dir, the recipe's rules)"
        )
    return Stage(**raw)


def smoke_overrides(config) -> dict[str, Any]:
    """``SMOKE``'s sizes for ``config``'s trainer, with a cheap search teacher and small new layers."""
    algorithm = getattr(config, "algorithm", "ppo") or "ppo"
    overrides = dict(SMOKE[algorithm if algorithm in SMOKE else "ppo"])
    overrides |= {k: v for k, v in SMOKE_NETWORK.items() if hasattr(config, k)}
    if getattr(config, "imitation_updates", 0):
        overrides["imitation_updates"] = 2  # behaviour cloning first, as the stage does
    if str(getattr(config, "teacher", "")).startswith("search"):
        overrides["teacher"] = SMOKE_TEACHER
    for key in ("bid_hidden", "card_value_hidden"):
        if getattr(config, key, 0):
            overrides[key] = SMOKE_HIDDEN
    return overrides


def stage_output(out: Path, stage: Stage) -> Path:
    return out / f"{stage.name}.pt"


def stage_run_dir(out: Path, stage: Stage) -> Path:
    return out / "runs" / stage.name


def unfinished_run(out: Path, stage: Stage) -> Path | None:
    """The ``latest.pt`` of ``stage``'s run in ``out``, if it has one (the newest run, should there be several)."""
    runs = sorted(stage_run_dir(out, stage).glob("*/checkpoints/latest.pt"), key=lambda p: p.stat().st_mtime)
    return runs[-1] if runs else None


def claim_folder(recipe_file: Path, out: Path, smoke: bool, pipeline: bool = False) -> None:
    """Record in ``out/recipe.yaml`` which recipe (and scale, and ``--pipeline``) made the folder; refuse a folder
    another one made."""
    record = {"recipe": recipe_file.read_text(), "smoke": smoke} | ({"pipeline": True} if pipeline else {})
    mark = out / "recipe.yaml"
    if mark.exists():
        before = yaml.safe_load(mark.read_text())
        if before != record:
            same_text = before.get("recipe") == record["recipe"]
            what = "by another recipe (or another version of this one)"
            if same_text:
                scale = before.get("smoke") != smoke
                what = "at another scale (--smoke)" if scale else f"with{'out' if pipeline else ''} --pipeline"
            raise ValueError(f"--out {out}: its stages were made {what}; give a new --out folder")
        return
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"--out {out}: a folder that holds other files; give a new or empty folder")
    out.mkdir(parents=True, exist_ok=True)
    mark.write_text(yaml.safe_dump(record, sort_keys=False))


def run_recipe(
    path: str | Path,
    out: str | Path,
    *,
    smoke: bool = False,
    device: str | None = None,
    stop_after: str | None = None,
    quiet: bool = False,
    echo: Callable[[str], None] = print,
    pipeline: bool = False,
) -> Path:
    """Run the recipe at ``path`` into the folder ``out``: each stage not yet done, in order (module docstring).
    ``stop_after``: stop once that stage is done. Returns the last stage's network (or ``stop_after``'s).
    ``pipeline``: every stage whose config has the setting (the bid-values stages) collects each next round beside
    the update (``train/values/bid_values_round.py``: faster on two cores or a GPU, not the committed networks'
    runs)."""
    from train.runs.checkpoint import export_slim
    from train.runs.output_paths import check_output_folder

    recipe = Recipe.from_yaml(path)
    names = [s.name for s in recipe.stages]
    if stop_after is not None and stop_after not in names:
        raise ValueError(f"--stop-after {stop_after!r}: not a stage of {path}; its stages are {names}")
    out = check_output_folder(out, "--out")
    claim_folder(Path(path), out, smoke, pipeline)
    for k, stage in enumerate(recipe.stages):
        output = stage_output(out, stage)
        head = f"stage {k + 1}/{len(names)} {stage.name} ({stage.config})"
        if output.exists():
            echo(f"{head}: done, {output}")
        else:
            config, run_training = recipe.stage_config(stage)
            latest = unfinished_run(out, stage)
            if latest is not None:
                echo(f"{head}: resuming {latest}")
                run_training(None, resume=latest, device=device, quiet=quiet)
            else:
                overrides: dict[str, Any] = {"run_dir": str(stage_run_dir(out, stage))}
                for key in ("init_from", "value_teacher"):
                    if getattr(stage, key):
                        overrides[key] = str(stage_output(out, recipe.stages[names.index(getattr(stage, key))]))
                if smoke:
                    overrides |= smoke_overrides(config)
                if pipeline and any(f.name == "pipeline" for f in dataclasses.fields(config)):
                    overrides["pipeline"] = True
                echo(f"{head}: training" + (f" from {overrides['init_from']}" if stage.init_from else ""))
                run_training(dataclasses.replace(config, **overrides), device=device, quiet=quiet)
            taken = unfinished_run(out, stage).parent / f"{stage.take}.pt"
            if not taken.exists():
                raise ValueError(f"{head}: its run kept no {taken.name} (take: best needs the config's evaluations)")
            export_slim(taken, output, play_only=stage.play_only, half=stage.half, force=True)  # its own stage output
            echo(f"{head}: {output} ({output.stat().st_size / 2**20:.2f} MiB)")
        if stage.name == stop_after:
            return output
    return output
