"""The game state's layout from its declarations: the core's fields (``core.state_fields.CORE_FIELDS``) then the
game's own (``games.state_fields(game)``, declared in ``games/<game>/state_fields.py``).

``state_class(game)`` is the game's ``GameState`` subclass (e.g. ``SpadesState``): the core's fields, then the
game's, each an array, plus what the game's ``state_fields.py`` adds in a ``StateMixin`` class (properties such as
Spades' ``nil_bid``). ``schema(game)`` is every field's declaration in that order (``HandCycle._empty`` allocates an
empty state from them, ``engine.check`` checks dtypes and shapes against them). ``finished_class(game)`` is the
same for the record of the hands finished in a step (``engine.results.FinishedHands``: the core's record arrays,
then the game's ``RESULT_FIELDS``, plus its ``FinishedMixin``). The registry is read when asked, so a game
registered later is included; a game registered again under a name gets its classes anew.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from spades_env import games
from spades_env.core.state_fields import CORE_FIELDS, CORE_RESULT_FIELDS, StateField
from spades_env.engine.results import FinishedHands
from spades_env.engine.state import GameState


class StateSchema(NamedTuple):
    """One game's state declarations."""

    game: str
    """The game."""
    fields: tuple[StateField, ...]
    """Every field's declaration, in its state's order: the core's, then the game's."""


def schema(game: str) -> StateSchema:
    """The declarations of ``game``'s state fields, in order; ValueError naming a field declared twice."""
    fields = (*CORE_FIELDS, *games.state_fields(game))
    _check_unique(game, "state field", fields)
    return StateSchema(game, fields)


def _check_unique(game: str, what: str, fields: tuple[StateField, ...]) -> None:
    names = [f.name for f in fields]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"{what}s {twice} of game {game!r} are declared twice (by the core and the game, or the game)")


_classes: dict[tuple[str, str, object], type] = {}


def _made(kind: str, game: str, base: type, fields: tuple[StateField, ...], mixin: type | None) -> type:
    """The dataclass ``base`` + ``fields`` (beyond the base's) for ``game``, made once per registry entry."""
    key = (kind, game, games.GAMES.get(game))
    made = _classes.get(key)
    if made is None:
        extra = [f for f in fields if f.name not in {x.name for x in dataclasses.fields(base)}]
        name = "".join(part.capitalize() for part in game.split("_")) + kind
        bases = (base,) if mixin is None else (mixin, base)
        namespace = {"game": game, "__reduce__": _reduce}
        made = dataclasses.make_dataclass(name, [(f.name, np.ndarray) for f in extra], bases=bases, namespace=namespace)
        made.__module__ = base.__module__
        made.__doc__ = f"{base.__doc__.splitlines()[0]} Game {game!r}: the core's fields, then its own."
        _classes[key] = made
    return made


def _reduce(made):
    """Pickles a made class's object as its kind, game and arrays (the class is made anew when loaded)."""
    kind = "State" if isinstance(made, GameState) else "FinishedHands"
    return _rebuild, (kind, made.game, {f.name: getattr(made, f.name) for f in dataclasses.fields(made)})


def _rebuild(kind: str, game: str, arrays: dict[str, np.ndarray]):
    """A pickled state (``kind`` "State") or finished hands of ``game`` holding ``arrays``."""
    return (state_class if kind == "State" else finished_class)(game)(**arrays)


def state_class(game: str) -> type[GameState]:
    """The ``GameState`` subclass of ``game``: the core's fields, then the game's own (and its ``StateMixin``)."""
    module = games.part(game, "state_fields")
    return _made("State", game, GameState, schema(game).fields, getattr(module, "StateMixin", None))


def finished_class(game: str) -> type[FinishedHands]:
    """The ``FinishedHands`` subclass of ``game``: the core's record arrays, then the game's ``RESULT_FIELDS`` (and
    its ``FinishedMixin``)."""
    module = games.part(game, "state_fields")
    fields = result_fields(game)
    return _made("FinishedHands", game, FinishedHands, tuple(fields.values()), getattr(module, "FinishedMixin", None))


def empty_state(game: str, sizes: dict[str, int]) -> GameState:
    """A state of ``game`` of ``sizes["B"]`` games, every field at its declared neutral value."""
    return state_class(game)(**{f.name: f.empty(sizes) for f in schema(game).fields})


def result_fields(game: str) -> dict[str, StateField]:
    """``game``'s record arrays of a finished hand by name: those every game's hand end fills (``CORE_RESULT_FIELDS``),
    then the game's own (``games.result_fields``); ValueError naming one declared twice."""
    fields = (*CORE_RESULT_FIELDS, *games.result_fields(game))
    _check_unique(game, "record array", fields)
    return {f.name: f for f in fields}
