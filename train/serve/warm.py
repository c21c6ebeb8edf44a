"""Warming the web table before it answers: the first client's game does not wait for the Numba kernels to load.

Loading the default table's compiled kernels (the engine's step, the heuristic's turns, the records) takes about two
seconds on first use; ``spades serve`` plays one hand of the default table in a throwaway game before it listens, so
that under load the first requests are not all queued behind that load.
"""

from __future__ import annotations

import random

from train.serve.app import json_response
from train.serve.bots import DEFAULT_BOT
from train.serve.sessions import Game, game_settings


def warm_table(rules: str = "partnership", bots: str = DEFAULT_BOT, seed: int = 0) -> int:
    """Play one whole hand of ``rules`` against ``bots`` (the human's decisions random) in a game that is never
    stored, building every view a client would get; the human's decisions played."""
    game = Game("warm-up", game_settings(rules, bots, 0, seed, None))
    rng, decisions = random.Random(seed), 0
    json_response(game.view())
    while game.awaiting == "you":
        game.act(int(rng.choice(game.table.legal())))
        json_response(game.view())
        decisions += 1
    return decisions
