"""The ``spades`` commands that make bots: ``train``, ``recipe``, ``export`` and ``position-value``.

Plain functions with Typer's annotations; ``train.cli.app`` registers them on the app (in the order
``spades --help`` lists the commands).
"""

from __future__ import annotations

import typer


def train(
    config: str = typer.Option(None, help="Training config YAML (default: configs/train/default.yaml)."),
    device: str = typer.Option(None, help="cpu or cuda (default: the config's device)."),
    resume: str = typer.Option(None, help="Checkpoint to resume from, RUN/checkpoints/latest.pt (its config is used)."),
    run_dir: str = typer.Option(None, help="Directory for runs (default: the config's run_dir)."),
    stop_at: int = typer.Option(None, help="Stop after N updates (PPO) or rounds (the other trainers) in all."),
    init_from: str = typer.Option(None, help="Start from this checkpoint's network (default: the config's)."),
    actors: int = typer.Option(
        None, help="Expert iteration: Ray actors that collect the shards (0: this process; default: the config's)."
    ),
    set_: list[str] = typer.Option(  # noqa: B008 (typer reads a repeatable option from a list annotation)
        None, "--set", help="KEY=VALUE: set a config key (a YAML value), e.g. --set seed=4 --set rounds=40; repeatable."
    ),
    rules: str = typer.Option(
        None, help="Rules preset or YAML: expert iteration with its game family's generic config (not with --config)."
    ),
    gpu: bool = typer.Option(False, "--gpu", help="With --rules: the GPU sizing (as --device cuda)."),
    progress: bool = typer.Option(True, help="Expert iteration: a progress bar over the rounds (on a terminal)."),
) -> None:
    """One training run from a config (PPO, expert iteration, bid or card values), or expert iteration at any table
    with --rules: TensorBoard, resumable.

    \f
    The config's ``algorithm`` picks the trainer (train/ppo/trainer.py, train/expert_iteration/trainer.py,
    train/values/bid_values_train.py)."""
    import dataclasses

    from train.expert_iteration.config import ExpertIterationConfig
    from train.recipes.trainers import trainer_for

    if rules is not None or gpu:
        from train.expert_iteration.train_rules import train_rules

        path = train_rules(
            rules, gpu=gpu, refused={"--config": config, "--resume": resume}, overrides=_parse_set_options(set_ or []),
            device=device, run_dir=run_dir, init_from=init_from, actors=actors, stop_at=stop_at, progress=progress,
        )  # fmt: skip
        typer.echo(f"checkpoint: {path}")
        return
    where = {} if actors is None else {"actors": actors}
    if resume is not None:
        options = {"--config": config, "--run-dir": run_dir, "--init-from": init_from, "--set": set_ or None}
        given = [flag for flag, value in options.items() if value is not None]
        if given:
            raise ValueError(
                f"{' and '.join(given)} cannot be combined with --resume: a resumed run goes on with its "
                "checkpoint's config, beside the checkpoint (only --device, --stop-at and --actors apply)"
            )
        config_class, run_training = trainer_for(checkpoint=resume)
        _check_actors_option(actors, config_class is ExpertIterationConfig)
        where |= {"progress": progress} if config_class is ExpertIterationConfig else {}
        path = run_training(None, resume=resume, stop_at=stop_at, device=device, **where)
    else:
        config_class, run_training = trainer_for(config=config or "configs/train/default.yaml")
        _check_actors_option(actors, config_class is ExpertIterationConfig)
        cfg = config_class.from_yaml(config or "configs/train/default.yaml")
        cfg = cfg.with_overrides(_parse_set_options(set_ or []), source="--set")
        overrides = {
            k: v for k, v in {"device": device, "run_dir": run_dir, "init_from": init_from}.items() if v is not None
        } | where
        extra = {"progress": progress} if config_class is ExpertIterationConfig else {}
        path = run_training(dataclasses.replace(cfg, **overrides), stop_at=stop_at, **extra)
    typer.echo(f"checkpoint: {path}")


def recipe(
    path: str = typer.Argument(..., help="Recipe YAML (configs/recipes/: partnership, cutthroat4, hearts)."),
    out: str = typer.Option(None, help="Folder of the stages' networks and runs (default: runs/recipe_<name>)."),
    smoke: bool = typer.Option(False, help="Every stage shrunk to seconds (what CI runs): checks the chain, no bot."),
    device: str = typer.Option(None, help="cpu or cuda for every stage (default: each config's device)."),
    stop_after: str = typer.Option(None, help="Stop once this stage is done (run the command again to go on)."),
    pipeline: bool = typer.Option(
        False, help="Bid-values stages collect each next round beside the update (faster on 2+ cores; other runs)."
    ),
) -> None:
    """A learned bot from nothing: a recipe's training stages in order; run it again after a kill to go on.

    \f
    Each stage starts from an earlier one's network (train/recipes/recipe.py)."""
    from pathlib import Path

    from train.recipes.recipe import Recipe, run_recipe

    folder = out or f"runs/recipe_{Path(path).stem}" + ("_smoke" if smoke else "")
    bot = run_recipe(
        path, folder, smoke=smoke, device=device, stop_after=stop_after, echo=typer.echo, pipeline=pipeline
    )
    typer.echo(f"network: {bot}")
    rules = Recipe.from_yaml(path).rules
    typer.echo(f'evaluate: spades tournament --rules {rules} --bots "neural:path={bot},heuristic" --boards 2000')


def _parse_set_options(items: list[str]) -> dict:
    """``--set KEY=VALUE`` options as a mapping, each value read as YAML (``4``, ``3e-4``, ``true``, ``network``)."""
    import yaml

    pairs: dict = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: give KEY=VALUE, e.g. --set seed=4")
        try:
            pairs[key.strip()] = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise ValueError(f"--set {item!r}: the value is not YAML ({str(err).splitlines()[0]})") from None
    return pairs


def _check_actors_option(actors: int | None, expert_iteration: bool) -> None:
    if actors is not None and not expert_iteration:
        raise ValueError(
            f"--actors {actors} is for expert iteration (`algorithm: expert_iteration` with collect_shards); "
            "PPO and bid values run in the trainer's process"
        )


def export(
    checkpoint: str = typer.Argument(..., help="Training checkpoint (runs/.../checkpoints/*.pt)."),
    out: str = typer.Argument(..., help="Where to write the slim checkpoint."),
    play_only: bool = typer.Option(
        False, "--play-only", help="Drop the state value head too (the same play, ~0.5 MiB less; PPO cannot train it)."
    ),
    half: bool = typer.Option(
        False, "--half", help="Store the weights as float16 (half the file; played as float32, rounded)."
    ),
    force: bool = typer.Option(False, "--force", help="Replace OUT where it exists (refused otherwise)."),
) -> None:
    """Write a slim checkpoint: network weights, rules, observation version and config only."""
    from pathlib import Path

    from train.runs.checkpoint import export_slim

    path = export_slim(checkpoint, out, play_only=play_only, half=half, force=force)
    typer.echo(f"slim checkpoint: {path} ({Path(path).stat().st_size / 2**20:.2f} MiB)")


def position_value(
    out: str = typer.Option("checkpoints/partnership_position_value.pt", help="The checkpoint to write."),
    rules: str = typer.Option("partnership", help="Rules preset name or YAML path (Spades)."),
    hands: int = typer.Option(32768, help="Self-play hands of the learned bot (the positions' source)."),
    keep: float = typer.Option(0.75, help="Probability that a position of a hand is kept."),
    epochs: int = typer.Option(5, help="Passes over the positions."),
    hidden: int = typer.Option(256, help="Width of the network's hidden layers."),
    seed: int = typer.Option(0, help="Seed of the deals, the kept positions and the training."),
    force: bool = typer.Option(False, "--force", help="Replace OUT where it exists (refused otherwise)."),
) -> None:
    """Train the guided bot's position value network on the learned bot's self-play (train/values/position_value.py)."""
    from train.runs.checkpoint import check_new_output
    from train.values.position_value import PositionValueConfig, train_position_value

    check_new_output(out, force)

    config = PositionValueConfig(rules=rules, hands=hands, keep=keep, epochs=epochs, hidden=hidden, seed=seed)
    train_position_value(config, out, log=typer.echo)
