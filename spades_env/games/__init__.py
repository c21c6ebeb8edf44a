"""One folder per game: ``spades/`` and ``hearts/``, and ``GAMES``, the registry from a game's name
(``Rules.game``) to its parts.

Each game folder holds its rules for one game, compiled (``phases.py``: every decision but card
play; ``hand_score.py``: a hand's score and the match end), the batch loops the engine runs
(``loops.py``), its batch scoring (``scoring.py``), its observation encoder (``observation.py``),
its small readable reference engine (``reference.py``, plain Python, for the cross-check), its
rules class (``rules.py``) and its spec (``spec.py``: a ``GameSpec``, what the game-agnostic engine
asks the game: its card-play tables, its phases, its invariants, its record fields) and what its seats may
know (``view.py``: a seat's view, what a bot is given).
A game never imports another game; the game-agnostic core (``spades_env.core``) imports no game.

The registry names modules and classes rather than importing them, so that importing it costs
nothing and creates no import circle (the encoders import the engine, which imports the loops);
``part(game, name)`` imports the one asked for. Everything that lists the games reads this dict
when asked (the rules' ``game`` field, the engine's loops, the observation encoders), so a new
game is one folder and one line, ``GAMES[name] = game_parts(package, ...)``, even one registered
after import (``tests/toy_game``, a test-only game, is registered from its test).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from spades_env.core.state_fields import StateField
    from spades_env.games.game_spec import GameSpec


class Game(NamedTuple):
    """Where a game's parts live: ``"module"`` or ``"module:attribute"``."""

    loops: str
    """The compiled batch loops of ``step``, ``random_actions`` and ``legal_action_mask``."""
    scoring: str
    """The batch scoring of finished hands and the match end."""
    encoder: str
    """The observation encoder class."""
    reference: str
    """The readable one-game reference engine class."""
    spec: str
    """The game's ``GameSpec`` (``spec.SPEC``): what the engine asks the game."""
    phases: str
    """Its phase codes (beyond the shared ``core.phases``) and their names (``PHASE_NAMES``: code -> name)."""
    render: str
    """Its text: ``render_state`` (a game in progress) and ``render_finished_hand`` (a playthrough's hand)."""
    rules: str
    """Its rules class (a ``rules_base.rules_class``)."""
    view: str = "spades_env.core.seat_view"
    """What its seats may know (``hide``: a seat's view, ``cards_held``: the public hand sizes); the default
    hides every card of another seat, the pile and the key."""
    state_fields: str = "spades_env.core.state_fields"
    """Its own fields of the game state beyond the core's (the module's ``FIELDS``, ``core.state_fields.StateField``s);
    the default declares none."""


def game_parts(
    package: str,
    rules: str,
    encoder: str,
    reference: str,
    scoring: str = "scoring",
    has_view: bool = False,
    has_state_fields: bool = False,
) -> Game:
    """The parts of the game folder ``package`` (a dotted module path), each in its usual module: the
    class names of its rules, observation encoder and reference engine, and the module of its batch
    scoring (beside the others); ``has_view``: the folder says what its seats may know (``view.py``; else
    the core's view, which hides every card of another seat); ``has_state_fields``: the game has fields
    of its own in the state (``state_fields.py``: ``FIELDS``; else none)."""
    return Game(
        loops=f"{package}.loops",
        scoring=f"{package}.{scoring}",
        encoder=f"{package}.observation:{encoder}",
        reference=f"{package}.reference:{reference}",
        spec=f"{package}.spec:SPEC",
        phases=f"{package}.phases",
        render=f"{package}.render",
        rules=f"{package}.rules:{rules}",
        view=f"{package}.view" if has_view else Game._field_defaults["view"],
        state_fields=f"{package}.state_fields" if has_state_fields else Game._field_defaults["state_fields"],
    )


_OWN = dict(has_view=True, has_state_fields=True)
#: Every game, by ``Rules.game``.
GAMES: dict[str, Game] = {
    "spades": game_parts(
        "spades_env.games.spades", "SpadesRules", "SpadesObservationEncoder", "SpadesReferenceGame", **_OWN
    ),
    "hearts": game_parts(
        "spades_env.games.hearts", "HeartsRules", "HeartsObservationEncoder", "HeartsReferenceGame", **_OWN
    ),
}


def part(game: str, name: str) -> Any:
    """The part ``name`` (a ``Game`` field) of ``game``, imported: a module or a class."""
    if game not in GAMES:
        raise ValueError(f"game must be one of {sorted(GAMES)}, got {game!r}")
    if name not in Game._fields:
        raise ValueError(f"a game's part must be one of {list(Game._fields)}, got {name!r}")
    return load(getattr(GAMES[game], name))


def load(where: str) -> Any:
    """What ``where`` names, imported: a module (``"module"``) or one of its attributes (``"module:attribute"``);
    how a registry of parts named as strings (this one, ``agents.game_parts``) imports the part asked for."""
    module, _, attribute = where.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def spec(game: str) -> GameSpec:
    """The ``GameSpec`` of ``game`` (``part(game, "spec")``)."""
    return part(game, "spec")


def state_fields(game: str) -> tuple[StateField, ...]:
    """The fields of the game state that ``game`` declares as its own (``part(game, "state_fields").FIELDS``)."""
    return part(game, "state_fields").FIELDS


def result_fields(game: str) -> tuple[StateField, ...]:
    """The record arrays of a finished hand that ``game`` declares as its own, the ones its hand end fills beyond
    every game's (``part(game, "state_fields").RESULT_FIELDS``: its ``hand_score.RECORD``)."""
    return part(game, "state_fields").RESULT_FIELDS
