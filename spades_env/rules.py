"""Rules of a game: one frozen, validated dataclass per game, plus the YAML presets.

``Rules`` is the Spades rule set (``games/spades/rules.py``: ``SpadesRules``, sections 1-6 of
``docs/rules.md``), so ``Rules()`` is partnership Spades and ``Rules(n_players=3,
partnership=False)`` cutthroat; ``HeartsRules`` (``games/hearts/rules.py``) is Hearts (section 7).
Both derive from ``BaseRules`` (``rules_base.py``: the fields every game has: ``name``, ``game``,
``n_players``, ``partnership``, ``target_score``, ``max_hands``), and each has its own options with
fixed defaults and its own validation; an option of the other game is refused naming the field
and the games. ``Rules.preset``, ``Rules.from_dict``, ``Rules.from_yaml`` and ``resolve_rules``
build the class of the ``game`` they read (``game: hearts`` gives ``HeartsRules``).

Presets ship inside the package as ``spades_env/presets/<name>.yaml`` (read by
``spades_env.rules_yaml``); each file holds the fields that differ from its game's defaults.

The games' classes and constants are reached through the registry (``spades_env.games``), never
imported by name: ``Rules`` is the default game's class, and any other name a game's rules module
defines (``HeartsRules``, ``BIG_BID_THRESHOLD``) is found there when asked (``__getattr__``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from spades_env.games import GAMES, part
from spades_env.rules_base import REMOVED_TWOS, RULES_CLASSES, BaseRules
from spades_env.rules_check import DEFAULT_GAME, RulesError
from spades_env.rules_yaml import list_presets

__all__ = [
    "DEFAULT_GAME",
    "GAMES",
    "REMOVED_TWOS",
    "RULES_CLASSES",
    "BaseRules",
    "Rules",
    "RulesError",
    "list_presets",
    "preset",
    "resolve_rules",
]
#: The games' public names served from here (``__getattr__``): their rules classes and constants.
FROM_THE_GAMES = ("BIG_BID_THRESHOLD", "JOKER_REMOVED_TWOS", "NEGATIVE_TARGET", "HeartsRules", "SpadesRules")

#: The default game's rule set (``SpadesRules``): ``Rules(...)`` builds Spades rules; Hearts rules are
#: ``HeartsRules(...)`` or ``Rules.preset("hearts")``.
Rules = part(DEFAULT_GAME, "rules")


def __getattr__(name: str) -> Any:
    """A name of ``FROM_THE_GAMES`` (a rules class, ``HeartsRules``, or a constant, ``BIG_BID_THRESHOLD``),
    looked up in each registered game's rules module in turn."""
    if name in FROM_THE_GAMES:
        for game in GAMES:
            module = sys.modules[part(game, "rules").__module__]
            if hasattr(module, name):
                return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def preset(name: str) -> BaseRules:
    """The rules of the preset ``name`` (``"partnership"``, ``"hearts"``, ...; ``spades presets`` lists them), of
    whichever game it plays: a ``SpadesRules`` or a ``HeartsRules``. ``Rules.preset`` is the same function under
    the Spades class's name."""
    return BaseRules.preset(name)


def resolve_rules(rules: BaseRules | str | Path | dict | None) -> BaseRules:
    """Accept a rules object (of any game), a preset name, a YAML path or a mapping.

    A preset's name is the preset (never a file of that name in the working directory); any other name that is an
    existing file is read as a rules file; a bare ``<preset>.yaml`` that is no file is the preset; any other
    ``.yaml``/``.yml`` path must exist.
    """
    if rules is None:
        return Rules.preset("partnership")
    if isinstance(rules, BaseRules):
        return rules
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    if not isinstance(rules, str | Path):
        raise RulesError(
            f"rules must be a Rules object, a preset name, a YAML path or a mapping, got {type(rules).__name__}"
        )
    if str(rules) in list_presets():
        return preset(str(rules))
    path = Path(rules)
    if path.is_file():
        return Rules.from_yaml(path)
    if str(rules).endswith((".yaml", ".yml")):
        if len(path.parts) == 1 and path.stem in list_presets() and path.suffix == ".yaml":
            return Rules.preset(path.stem)
        raise RulesError(f"rules file {str(rules)!r} not found (presets are named without a path: {list_presets()})")
    return Rules.preset(str(rules))
