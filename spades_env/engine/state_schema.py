"""The game state's layout from its declarations: the core's fields (``core.state_fields.CORE_FIELDS``) and
every registered game's own (``games.state_fields(game)``, declared in ``games/<game>/state_fields.py``).

``schema(game)`` is what one game's engine needs of it: every field's declaration in ``GameState``'s order
(``HandCycle._empty`` allocates an empty state from them, ``engine.check`` checks dtypes and shapes against
them) and the fields of the other games, which the game leaves at their neutral values (``engine.check``
checks that too). The registry is read when asked, so a game registered later is included.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import numpy as np

from spades_env import games
from spades_env.core.state_fields import CORE_FIELDS, CORE_RESULT_FIELDS, StateField
from spades_env.engine.state import GameState


class Owned(NamedTuple):
    """A declared field and the game that owns it (None: the core, every game's)."""

    owner: str | None
    field: StateField


class StateSchema(NamedTuple):
    """One game's view of the state's declarations."""

    game: str
    """The game whose engine reads it."""
    fields: tuple[StateField, ...]
    """Every field's declaration, in ``GameState``'s order."""
    foreign: tuple[Owned, ...]
    """The fields other games own (each stays at its neutral value in ``game``), in ``GameState``'s order."""


def declared_fields() -> dict[str, Owned]:
    """Every declared field by name, with its owner: the core's, then each registered game's; a name
    declared twice raises ValueError naming it and both owners."""
    declared: dict[str, Owned] = {}
    owners: list[tuple[str | None, tuple[StateField, ...]]] = [(None, CORE_FIELDS)]
    owners += [(game, games.state_fields(game)) for game in games.GAMES]
    for owner, fields in owners:
        for field in fields:
            if field.name in declared:
                first = declared[field.name].owner or "the core"
                raise ValueError(f"state field {field.name!r} is declared by {first} and by {owner or 'the core'}")
            declared[field.name] = Owned(owner, field)
    return declared


def schema(game: str) -> StateSchema:
    """The declarations of ``GameState``'s fields, in order, and those ``game`` does not own; ValueError
    if ``GameState``'s fields and the declared ones differ."""
    declared = declared_fields()
    names = [f.name for f in dataclasses.fields(GameState)]
    if set(names) != set(declared):
        missing, extra = sorted(set(names) - set(declared)), sorted(set(declared) - set(names))
        raise ValueError(f"GameState's fields and the declared ones differ: undeclared {missing}, not in it {extra}")
    ordered = [declared[name] for name in names]
    foreign = tuple(o for o in ordered if o.owner is not None and o.owner != game)
    return StateSchema(game, tuple(o.field for o in ordered), foreign)


def empty_state(fields: tuple[StateField, ...], sizes: dict[str, int]) -> GameState:
    """A state of ``sizes["B"]`` games, every field of ``fields`` (``GameState``'s) at its neutral value."""
    return GameState(**{f.name: f.empty(sizes) for f in fields})


def neutral(field: StateField, arr: np.ndarray) -> np.ndarray:
    """(B,) bool: game b's row of ``arr`` (the state's ``field``) is every element its neutral value."""
    return (arr == field.neutral).reshape(len(arr), -1).all(axis=1)


def result_fields() -> dict[str, StateField]:
    """Every record array of a finished hand by name: those every game's hand end fills (``CORE_RESULT_FIELDS``),
    then each registered game's own (``games.result_fields``); two games may both declare an array (Spades' and
    Hearts' ``bags``) if they declare it alike, else ValueError naming it."""
    declared = {f.name: f for f in CORE_RESULT_FIELDS}
    for game in games.GAMES:
        for field in games.result_fields(game):
            first = declared.setdefault(field.name, field)
            if (first.dtype, first.dims) != (field.dtype, field.dims):
                raise ValueError(f"record array {field.name!r} is declared twice, differently ({game}'s: {field.dims})")
    return declared
