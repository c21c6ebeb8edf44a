"""Argument checks shared by every env: episode and reward options, reset options, seeds, batch sizes; and the
reward options' one rule (``reward_scale``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from spades_env.engine.inputs import SEED_MAX, EngineInputError, integer

EPISODES = ("match", "hand")
REWARDS = ("points", "scaled", "win")


def check_options(episode: str, reward: str) -> None:
    """Validate the episode and reward options shared by every env."""
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {list(EPISODES)}, got {episode!r}")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {list(REWARDS)}, got {reward!r}")
    if reward == "win" and episode != "match":
        raise ValueError("reward='win' (+1/-1 at the end of a match) needs episode='match'")


def reward_scale(reward: str, rules: Any) -> float:
    """What a side's points are multiplied by to make its reward (``reward`` "points" or "scaled"): 1, or 1/100
    when scaled; negative where the points are penalties (Hearts: the reward is minus the points taken)."""
    return (0.01 if reward == "scaled" else 1.0) * (-1.0 if rules.points_are_penalties else 1.0)


def check_reset_options(options: Any, allowed: Iterable[str], ignored: Iterable[str] = ()) -> dict[str, Any]:
    """``options`` of a ``reset`` as a dict (None: empty) without the ``ignored`` keys; a misspelt
    key is refused, not ignored."""
    if options is None:
        return {}
    allowed = tuple(allowed)
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict with keys among {list(allowed)} or None, got {type(options).__name__}")
    ignored = tuple(ignored)
    unknown = [k for k in options if k not in allowed and k not in ignored]
    if unknown:
        raise ValueError(f"unknown reset option(s) {unknown}: options may hold {list(allowed)}")
    return {k: v for k, v in options.items() if k not in ignored} if ignored else options


def check_count(value: Any, name: str) -> int:
    """A positive int argument (a bool, float or string is refused, not rounded)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """None, or one integer seed in 0..2**64 - 1 as a Python int (a bool, float or string is refused)."""
    if seed is None:
        return None
    value = integer(seed, name)
    if not 0 <= value <= SEED_MAX:
        raise EngineInputError(f"{name} must be an integer in 0..2**64 - 1 or None, got {value}")
    return value
