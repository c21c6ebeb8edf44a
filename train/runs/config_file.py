"""The YAML and mapping round trip every trainer's config shares (``PPOConfig``, ``ExpertIterationConfig``,
``BidValuesConfig``): frozen dataclasses that refuse unknown keys naming the known ones, and values of the wrong type
naming the key and the type it takes; ``with_overrides`` sets some keys of a loaded config the same checked way (a
recipe stage's ``overrides:``, ``spades train --set KEY=VALUE``). ``require_int`` is the same check of one integer
setting with its range, for the configs that check their own (tournament, bidding benchmark, Ray options)."""

from __future__ import annotations

import dataclasses
import types
import typing
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from spades_env.rules_yaml import parse_yaml

#: What a value of each field type may be, and how an error names it (an int is a float too, as YAML writes 1e-3).
_ACCEPTS: dict[type, tuple[tuple[type, ...], str]] = {
    bool: ((bool,), "true or false"),
    int: ((int,), "an integer"),
    float: ((int, float), "a number"),
    str: ((str,), "a string"),
}


class ConfigFile:
    """``from_dict``, ``from_yaml``, ``with_overrides`` and ``to_dict`` for a config dataclass; ``KIND`` names it in
    errors."""

    KIND: ClassVar[str] = "training"

    @classmethod
    def check_keys(cls, data: dict[str, Any], source: str) -> None:
        """Refuse keys that are not fields (listing the known ones) and values of another type than the field's."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{source}: unknown {cls.KIND} config key(s) {unknown}; known keys: {sorted(known)}")
        hints = typing.get_type_hints(cls)
        for key, value in data.items():
            accepted, what = _accepted(hints[key])
            if accepted and not (isinstance(value, accepted) and (bool in accepted or not isinstance(value, bool))):
                raise ValueError(f"{source}: {key} must be {what}, got {value!r}")

    @classmethod
    def numbers_read(cls, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` with the strings of number fields that are numbers read as numbers: YAML 1.1 reads ``1e-4``
        (no dot) as a string, so ``learning_rate: 1e-4`` in a file or ``--set learning_rate=1e-4`` would fail."""
        hints = typing.get_type_hints(cls)
        return {k: _number(v) if float in _accepted(hints.get(k))[0] else v for k, v in data.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config"):
        """Build from a mapping; unknown keys fail with the list of known ones, values of another type naming it."""
        data = cls.numbers_read(data)
        cls.check_keys(data, source)
        return cls(**data)

    @classmethod
    def from_yaml(cls, path: str | Path):
        """Load a YAML file of config keys."""
        return cls.from_dict(parse_yaml(Path(path).read_bytes(), str(path)) or {}, source=str(path))

    def with_overrides(self, overrides: dict[str, Any], source: str = "overrides"):
        """This config with the keys of ``overrides`` set, checked as ``from_dict`` checks a file."""
        overrides = self.numbers_read(overrides)
        self.check_keys(overrides, source)
        return dataclasses.replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of every field."""
        return dataclasses.asdict(self)


def _number(value: Any) -> Any:
    """``value`` as a float where it is a string that reads as a finite number (``1e-4``), else as it is."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return number if np.isfinite(number) else value
    return value


def _accepted(hint: Any) -> tuple[tuple[type, ...], str]:
    """The Python types a field annotated ``hint`` takes and how to name them (``((), "")``: not checked)."""
    if isinstance(hint, types.UnionType) and type(None) in hint.__args__:
        (inner,) = [a for a in hint.__args__ if a is not type(None)]
        accepted, what = _ACCEPTS.get(inner, ((), ""))
        return ((*accepted, type(None)), f"{what} or null") if accepted else ((), "")
    return _ACCEPTS.get(hint, ((), ""))


def require_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    """Refuse (ValueError) a setting ``name`` that is not an integer in ``low..high``."""
    allowed = f"an integer from {low}" + (f" to {high}" if high is not None else " up")
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {allowed}, got {value}")
