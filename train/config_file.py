"""The YAML and mapping round trip every trainer's config shares (``PPOConfig``, ``ExpertIterationConfig``,
``BidValuesConfig``): frozen dataclasses that refuse unknown keys naming the known ones."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

from spades_env.rules_yaml import parse_yaml


class ConfigFile:
    """``from_dict``, ``from_yaml`` and ``to_dict`` for a config dataclass; ``KIND`` names it in errors."""

    KIND: ClassVar[str] = "training"

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config"):
        """Build from a mapping; unknown keys fail with the list of known ones."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{source}: unknown {cls.KIND} config key(s) {unknown}; known keys: {sorted(known)}")
        return cls(**data)

    @classmethod
    def from_yaml(cls, path: str | Path):
        """Load a YAML file of config keys."""
        return cls.from_dict(parse_yaml(Path(path).read_bytes(), str(path)) or {}, source=str(path))

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of every field."""
        return dataclasses.asdict(self)
