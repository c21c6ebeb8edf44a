"""Random legal play through the plain-Python reference engine, for ``make bench``."""

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


def random_reference_decisions(seconds: float, seed: int = 0) -> float:
    """Decisions/s of uniformly random legal play in partnership matches (deals included)."""
    rules = Rules.preset("partnership")
    rng = random.Random(seed)
    game = ReferenceGame(rules, _deal(rules, rng), dealer=0)
    decisions, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        if game.winner >= 0:
            game = ReferenceGame(rules, _deal(rules, rng), dealer=rng.randrange(rules.n_players))
        elif game.phase == DEAL:
            game.start_hand(_deal(rules, rng))
        else:
            game.step(rng.choice(game.legal_actions()))
            decisions += 1
    return decisions / elapsed
