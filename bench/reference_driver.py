"""Random legal play through the plain-Python reference engine, for ``make bench``.

Driven as cheaply as the OpenSpiel baseline (``bench.openspiel_driver``): one
``legal_actions()`` and ``legal[int(random() * len(legal))]`` with Python's ``random`` per
decision. The reference engine is the rules' game's (``spades_env.games.part(game, "reference")``).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from spades_env.core.reference_tricks import DEAL, TrickGame
from spades_env.games import part
from spades_env.rules import BaseRules, Rules


def _deal(rules: BaseRules, rng: random.Random) -> list[list[int]]:
    deck = list(rules.deck)
    rng.shuffle(deck)
    size = rules.hand_size
    return [deck[k * size : (k + 1) * size] for k in range(rules.n_players)]


def play_random_steps(game: TrickGame, rules: BaseRules, rng: random.Random, steps: int) -> tuple[TrickGame, int]:
    """Take ``steps`` steps of uniformly random legal play in ``game``, a reference engine of ``rules`` (a new
    match when one ends, a new deal when a hand ends); the game now played and the decisions taken."""
    rand = rng.random
    decisions = 0
    for _ in range(steps):
        if game.winner >= 0:
            game = part(rules.game, "reference")(rules, _deal(rules, rng), dealer=rng.randrange(rules.n_players))
        elif game.phase == DEAL:
            game.start_hand(_deal(rules, rng))
        else:
            legal = game.legal_actions()
            game.step(legal[int(rand() * len(legal))])
            decisions += 1
    return game, decisions


def random_reference_play(seed: int = 0, steps: int = 256) -> Callable[[], int]:
    """A body for ``bench.timing.timed``: each call takes ``steps`` steps of uniformly random legal
    play in partnership matches (deals included) and returns the decisions taken."""
    rules = Rules.preset("partnership")
    rng = random.Random(seed)
    game = part(rules.game, "reference")(rules, _deal(rules, rng), dealer=0)

    def body() -> int:
        nonlocal game
        game, decisions = play_random_steps(game, rules, rng, steps)
        return decisions

    return body
