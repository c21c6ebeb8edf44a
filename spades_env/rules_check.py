"""What makes a rule set valid, shared by every game: ``RulesError`` and the checks of one field.

Each game's own options are validated with that game (``games/spades/rules.py``,
``games/hearts/rules.py``); the fields every game has, in ``rules_base.BaseRules.validate``.
Each check raises ``RulesError`` with a message naming the field(s) and what is allowed.
"""

from __future__ import annotations

from typing import Any


class RulesError(ValueError):
    """A rules field has a bad value; the message names the field and what is allowed."""


#: The games, by ``Rules.game`` (``spades_env.games.GAMES`` holds their parts).
GAMES = ("spades", "hearts")


def check_int(rules: Any, name: str, lo: int | None = None, hi: int | None = None, optional: bool = False) -> None:
    """``rules.<name>`` is an integer in ``lo..hi`` (or None with ``optional``)."""
    value = getattr(rules, name)
    if value is None and optional:
        return
    ok = isinstance(value, int) and not isinstance(value, bool)
    ok = ok and (lo is None or value >= lo) and (hi is None or value <= hi)
    if not ok:
        bounds = f"{lo if lo is not None else '-inf'}..{hi if hi is not None else 'inf'}"
        extra = " or null" if optional else ""
        raise RulesError(f"rules field {name!r} must be an integer in {bounds}{extra}, got {value!r}")


def check_bool(rules: Any, name: str) -> None:
    """``rules.<name>`` is True or False."""
    value = getattr(rules, name)
    if not isinstance(value, bool):
        raise RulesError(f"rules field {name!r} must be true or false, got {value!r}")
