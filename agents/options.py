"""Bot options from spec strings (``search:samples=8``, ``search:fast``): names checked, values typed from the factory.

A bot's options are the keyword parameters of its factory that have a default of a
plain type (bool, int, float or str); each value is parsed to that type. A factory
that takes ``**options`` gets any name, its value an int, a float or else the text.
``seed`` is not an option: bots are seeded by their caller (a tournament derives every
bot's seed from its own ``--seed``).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import Any

import numpy as np

TRUE_WORDS = ("true", "yes", "1")
FALSE_WORDS = ("false", "no", "0")
OPTION_TYPES = (bool, int, float, str)
#: Who may play a neural bot's cards in training (PPO's ``card_play``): its own network, or ``HeuristicAgent`` (the
#: network then learns only its other decisions: bids, blind nil, Bemo, the Hearts pass).
CARD_PLAYERS = ("network", "heuristic")
#: Who may play them when the bot plays (option ``play``): those, or the search bot at its default settings.
PLAY_CARD_PLAYERS = (*CARD_PLAYERS, "search")


def check_integers(owner: str, low: int, what: str, **options: Any) -> None:
    """Refuse an option that is not an integer (a bool is not) of at least ``low``: ValueError "``owner`` option
    'name' must be ``what``, got value" (``owner``: e.g. ``search bot``)."""
    for option, value in options.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{owner} option {option!r} must be {what}, got {value!r}")


def check_numbers(owner: str, **options: Any) -> None:
    """Refuse an option that is not a number (a bool is not) from 0 up, naming ``owner`` and the option."""
    for option, value in options.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or value < 0:
            raise ValueError(f"{owner} option {option!r} must be a number from 0 up, got {value!r}")


def check_card_player(play: str, bot: str) -> str:
    """``play`` if it names one of ``PLAY_CARD_PLAYERS``; else ValueError naming the ``bot``'s option."""
    if play not in PLAY_CARD_PLAYERS:
        raise ValueError(f"{bot} bot option 'play' must be one of {list(PLAY_CARD_PLAYERS)}, got {play!r}")
    return play


def parse_bool(value: Any, option: str) -> bool:
    """A bool from a bool, 0/1, or one of true/false/yes/no/1/0 (any case); else ValueError naming ``option``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    raise ValueError(f"option {option!r} must be a boolean (true/false, yes/no, 1/0), got {value!r}")


def bot_options(factory: Callable[..., Any]) -> dict[str, type]:
    """The spec options of a bot factory: keyword parameters with a plain-typed default -> that type."""
    options: dict[str, type] = {}
    for param in inspect.signature(factory).parameters.values():
        if param.name == "seed" or param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            continue
        kind = type(param.default)
        if kind in OPTION_TYPES:
            options[param.name] = kind
    return options


def parse_option(value: str, kind: type, option: str) -> bool | int | float | str:
    """Parse the text of one option to its type; ValueError naming the option otherwise."""
    text = value.strip()
    if kind is bool:
        return parse_bool(text, option)
    if kind is int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"option {option!r} must be an integer, got {text!r}") from None
    if kind is float:
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"option {option!r} must be a number, got {text!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"option {option!r} must be a finite number, got {text!r}")
        return number
    return text


def parse_options(bot: str, factory: Callable[..., Any], text: str, spec: str) -> dict[str, Any]:
    """The typed options of ``[preset,]key=value,key=value`` for ``bot``; unknown or repeated names are refused.

    A first item without ``=`` names one of the factory's ``presets`` (a mapping of preset name to
    options, e.g. ``SearchAgent.presets``): its options, which the ``key=value`` items after it override
    (``search:strong,samples=64``)."""
    allowed = bot_options(factory)
    open_ended = any(p.kind == p.VAR_KEYWORD for p in inspect.signature(factory).parameters.values())
    listing = f"its options: {', '.join(allowed)}" if allowed else "it takes no options"
    presets: dict[str, dict[str, Any]] = getattr(factory, "presets", {})
    items = [x for x in (x.strip() for x in text.split(",")) if x]
    preset: dict[str, Any] = {}
    if items and "=" not in items[0] and presets:
        name = items.pop(0)
        if name not in presets:
            raise ValueError(
                f"bot {bot!r} has no preset {name!r}; its presets: {', '.join(presets)} (options look like key=value)"
            )
        preset = dict(presets[name])
    options: dict[str, Any] = {}
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:
            named = f" (or, first, one of its presets: {', '.join(presets)})" if presets else ""
            raise ValueError(f"bot option {item!r} in {spec!r} must look like key=value{named}")
        if key == "seed":
            raise ValueError(
                f"bot {bot!r}: 'seed' is not a bot option, bots are seeded by their caller "
                f"(a tournament derives them from its --seed); {listing}"
            )
        if key not in allowed and not open_ended:
            raise ValueError(f"bot {bot!r} has no option {key!r}; {listing}")
        if key in options:
            raise ValueError(f"bot option {key!r} is given twice in {spec!r}")
        options[key] = parse_option(value, allowed[key], key) if key in allowed else _untyped(value)
    return {**preset, **options}


def _untyped(value: str) -> int | float | str:
    """An option of a factory that takes ``**options``: an int, else a finite float, else the text."""
    text = value.strip()
    for cast in (int, float):
        try:
            number = cast(text)
        except ValueError:
            continue
        if math.isfinite(number):
            return number
    return text
