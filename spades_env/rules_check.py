"""What makes a rule set valid, shared by every game: ``RulesError`` and the checks of one field.

Each game's own options are validated with that game (``games/spades/rules.py``,
``games/hearts/rules.py``); the fields every game has, in ``rules_base.BaseRules.validate``.
Each check raises ``RulesError`` with a message naming the field(s) and what is allowed.
"""

from __future__ import annotations

import importlib
from typing import Any


class RulesError(ValueError):
    """A rules field has a bad value; the message names the field and what is allowed."""


#: The game a rule set plays when it names none.
DEFAULT_GAME = "spades"
#: The largest magnitude of any integer rules field (scores, bonuses, bag limits, hands): far beyond any real
#: match, and far within the engine's int64 scores, so no rule set the engine would fail on is accepted.
MAX_RULES_INT = 10**6
#: How much of a bad value an error message shows.
SHOWN_CHARS = 40


def game_names() -> list[str]:
    """The games, by ``Rules.game``: the registry's (``spades_env.games.GAMES``), read at each call so
    that a game registered later counts. Imported when called: the games' rules import this module."""
    return list(importlib.import_module("spades_env.games").GAMES)


def shown(value: Any) -> str:
    """A bad value for a one-line error: its repr cut to ``SHOWN_CHARS`` (a huge integer by its size)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def check_int(rules: Any, name: str, lo: int | None = None, hi: int | None = None, optional: bool = False) -> None:
    """``rules.<name>`` is an integer in ``lo..hi`` (or None with ``optional``); either bound is at most
    ``MAX_RULES_INT`` in magnitude (None: that bound)."""
    value = getattr(rules, name)
    if value is None and optional:
        return
    lo = -MAX_RULES_INT if lo is None else max(lo, -MAX_RULES_INT)
    hi = MAX_RULES_INT if hi is None else min(hi, MAX_RULES_INT)
    ok = isinstance(value, int) and not isinstance(value, bool)
    ok = ok and lo <= value <= hi
    if not ok:
        extra = " or null" if optional else ""
        raise RulesError(f"rules field {name!r} must be an integer in {lo}..{hi}{extra}, got {shown(value)}")


def check_bool(rules: Any, name: str) -> None:
    """``rules.<name>`` is True or False."""
    value = getattr(rules, name)
    if not isinstance(value, bool):
        raise RulesError(f"rules field {name!r} must be true or false, got {shown(value)}")
