"""Random legal play through the plain-Python reference engine, for ``make bench``.

Driven as cheaply as the OpenSpiel baseline (``bench.openspiel_driver``): one
``legal_actions()`` and ``legal[int(random() * len(legal))]`` with Python's ``random`` per
decision, and the clock read once per 256 steps.
"""

from __future__ import annotations

import random
import time

from spades_env.reference import DEAL, ReferenceGame
from spades_env.rules import Rules


def _deal(rules: Rules, rng: random.Random) -> list[list[int]]:
    deck = list(rules.deck)
    rng.shuffle(deck)
    size = rules.hand_size
    return [deck[k * size : (k + 1) * size] for k in range(rules.n_players)]


def play_random_steps(game: ReferenceGame, rules: Rules, rng: random.Random, steps: int) -> tuple[ReferenceGame, int]:
    """Take ``steps`` steps of uniformly random legal play (a new match when one ends, a new deal
    when a hand ends); the game now played and the decisions taken."""
    rand = rng.random
    decisions = 0
    for _ in range(steps):
        if game.winner >= 0:
            game = ReferenceGame(rules, _deal(rules, rng), dealer=rng.randrange(rules.n_players))
        elif game.phase == DEAL:
            game.start_hand(_deal(rules, rng))
        else:
            legal = game.legal_actions()
            game.step(legal[int(rand() * len(legal))])
            decisions += 1
    return game, decisions


def random_reference_decisions(seconds: float, seed: int = 0) -> float:
    """Decisions/s of uniformly random legal play in partnership matches (deals included)."""
    rules = Rules.preset("partnership")
    rng = random.Random(seed)
    game = ReferenceGame(rules, _deal(rules, rng), dealer=0)
    decisions, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        game, done = play_random_steps(game, rules, rng, 256)
        decisions += done
    return decisions / elapsed
