"""Random legal play through OpenSpiel (pyspiel), driven the cheapest way it offers, for ``make bench``.

The baseline must not pay for our driver, so a node costs one ``state.legal_actions()`` (a list
of ints), one ``state.apply_action`` and one draw, ``legal[int(random() * len(legal))]`` with
Python's ``random.random`` (cheaper than ``random.choice``, a Python-level method, and than a
NumPy ``Generator`` call, about 0.3 us each):

- ``spades`` and ``hearts`` draw every chance outcome (the deal, and Hearts' pass direction)
  before the first decision; past them the loop's only test is ``legal_actions()``, empty at
  the end. The chance nodes, and every node when observing (which needs the player), are told
  apart by one ``state.current_player()`` (>= 0 a decision, -1 chance, -4 the end) where
  ``is_terminal()`` plus ``is_chance_node()`` would take two.
- At a chance node ``legal_actions()`` lists the chance outcomes, and OpenSpiel's are uniform
  (``tests/bench/test_bench.py`` checks every chance node of a game), so drawing from it is sampling
  ``chance_outcomes()`` by probability, without building the (action, probability) tuples.

Observations go through OpenSpiel's C++ ``Observer`` (``game.make_observer``, the object
``open_spiel.python.observation.make_observation`` wraps), whose ``set_from(state, player)``
writes into one preallocated float32 buffer: for ``spades`` its observation tensor (faster than
``state.write_observation_tensor(buffer)``, and 4-5x faster than the list that
``observation_tensor()`` builds), for ``hearts``, which has no observation tensor, its
information-state tensor (about 25x faster than ``information_state_tensor()``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

#: ``state.current_player()`` at a chance node and at the end (``pyspiel.PlayerId.CHANCE``, ``TERMINAL``).
CHANCE, TERMINAL = -1, -4


def load_game(name: str) -> Any | None:
    """OpenSpiel's game ``name`` (``"spades"`` or ``"hearts"``), or None if pyspiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game(name)


def play_random(
    state: Any,
    rand: Callable[[], float] = random.random,
    observe: Callable[[Any, int], Any] | None = None,
) -> int:
    """Play ``state`` to its end with uniformly random legal actions; the number of decisions.

    Every node (decision or chance) takes ``legal[int(rand() * len(legal))]``, one ``rand()``
    call; past the leading chance nodes the loop stops on an empty ``legal_actions()``. With
    ``observe``, ``observe(state, player)`` runs before every decision.
    """
    if observe is not None:
        return _play_observed(state, rand, observe)
    apply, legal_actions, current_player = state.apply_action, state.legal_actions, state.current_player
    while current_player() == CHANCE:
        legal = legal_actions()
        apply(legal[int(rand() * len(legal))])
    decisions = 0
    while legal := legal_actions():
        apply(legal[int(rand() * len(legal))])
        decisions += 1
    return decisions


def _play_observed(state: Any, rand: Callable[[], float], observe: Callable[[Any, int], Any]) -> int:
    """``play_random`` with ``observe(state, player)`` before every decision."""
    apply, legal_actions, current_player = state.apply_action, state.legal_actions, state.current_player
    decisions = 0
    while (player := current_player()) != TERMINAL:
        if player >= 0:
            observe(state, player)
            decisions += 1
        legal = legal_actions()
        apply(legal[int(rand() * len(legal))])
    return decisions


def observer(game: Any) -> tuple[np.ndarray, Callable[[Any, int], None]]:
    """OpenSpiel's fastest observation path: (the float32 buffer, ``set_from(state, player)``).

    ``set_from`` writes the player's observation tensor (information-state tensor for a game
    without observation tensors, such as ``hearts``) into the buffer, in place.
    """
    import pyspiel

    if game.get_type().provides_observation_tensor:
        made = game.make_observer({})
    else:
        made = game.make_observer(pyspiel.IIGObservationType(perfect_recall=True), {})
    observation = pyspiel._Observation(game, made)
    return np.frombuffer(observation, np.float32), observation.set_from


def tensor_name(game: Any) -> str:
    """The state method that returns, as a list, what ``observer(game)`` writes."""
    return "observation_tensor" if game.get_type().provides_observation_tensor else "information_state_tensor"
