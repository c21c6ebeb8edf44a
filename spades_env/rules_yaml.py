"""Reading rules YAML: the presets shipped as package data, and clear errors for bad files.

The presets are ``spades_env/presets/<name>.yaml``, read through ``importlib.resources``
so that they work from a source checkout, an editable install and an installed wheel alike.
"""

from __future__ import annotations

import difflib
from importlib import resources
from typing import TYPE_CHECKING, Any

import yaml

from spades_env.rules_check import RulesError, shown

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

PRESET_SUFFIX = ".yaml"


def preset_files() -> Traversable:
    """The folder of the preset YAML files inside the installed package."""
    return resources.files("spades_env").joinpath("presets")


def list_presets() -> list[str]:
    """Names of the rules presets shipped with the package (``spades_env/presets/*.yaml``)."""
    return sorted(p.name[: -len(PRESET_SUFFIX)] for p in preset_files().iterdir() if p.name.endswith(PRESET_SUFFIX))


def preset_name(name: str) -> str:
    """The preset a name means (``"partnership"`` or ``"partnership.yaml"``); else a RulesError."""
    if not isinstance(name, str):
        raise RulesError(f"a rules preset name must be a string, got {shown(name)}")
    names = list_presets()
    stem = name[: -len(PRESET_SUFFIX)] if name.endswith(PRESET_SUFFIX) else name
    if stem in names:
        return stem
    close = difflib.get_close_matches(stem, names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise RulesError(f"unknown rules preset {name!r}{hint} available presets: {names}")


def preset_bytes(name: str) -> bytes:
    """The YAML text of a preset, as stored (``name`` as ``preset_name`` accepts it)."""
    return preset_files().joinpath(preset_name(name) + PRESET_SUFFIX).read_bytes()


def parse_yaml(raw: bytes, source: str, error: type[ValueError] = ValueError) -> Any:
    """Parse YAML (UTF-8 bytes); a decoding or syntax error raises one line of ``error`` naming
    ``source`` and the line (any YAML file of the project: rules, training configs)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise error(f"{source}, line {line}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f", line {mark.line + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise error(f"{source}{where}: not valid YAML ({problem})") from None


def load_mapping(raw: bytes, source: str) -> dict[str, Any]:
    """Parse rules YAML (UTF-8 bytes) into a mapping; errors name ``source`` and the line."""
    data = parse_yaml(raw, source, RulesError)
    if data is None:
        raise RulesError(
            f"{source}: holds no rules fields (empty, or only comments); write the fields that differ "
            "from the defaults, e.g. 'target_score: 300', or '{}' for the defaults"
        )
    if not isinstance(data, dict):
        raise RulesError(f"{source}: expected a mapping of rules fields, got {type(data).__name__}")
    return data
