"""Which trainer a training config (or a checkpoint's config) names: the dispatcher of ``spades train`` and
``spades recipe``, above the three trainers (PPO, expert iteration, bid and card values), which it imports on
demand."""

from __future__ import annotations

from pathlib import Path

from spades_env.rules_yaml import parse_yaml
from train.expert_iteration.config import ExpertIterationConfig, is_expert_iteration


def trainer_for(*, config: str | Path | None = None, checkpoint: str | Path | None = None):
    """(config class, ``train`` function) of the trainer a training config YAML or a checkpoint's config names:
    expert iteration for ``algorithm: expert_iteration``, the bid-values trainer for ``algorithm: bid_values``,
    PPO otherwise (``spades train`` dispatches with it)."""
    if checkpoint is not None:
        from train.runs.checkpoint import load_checkpoint

        data = load_checkpoint(checkpoint).get("config")
    else:
        data = parse_yaml(Path(config).read_bytes(), str(config))
    if is_expert_iteration(data):
        from train.expert_iteration.trainer import train

        return ExpertIterationConfig, train
    if isinstance(data, dict) and data.get("algorithm") == "bid_values":
        from train.values.bid_values_config import BidValuesConfig
        from train.values.bid_values_train import train as train_bid_values

        return BidValuesConfig, train_bid_values
    from train.ppo.trainer import PPOConfig
    from train.ppo.trainer import train as train_ppo

    return PPOConfig, train_ppo
