"""Seeded games of every preset played by the heuristic (two option sets) against random seats.

``python -m tests.heuristic_games`` writes ``tests/golden/heuristic_games.json``: per preset
and game, a SHA-256 of the game's whole action sequence and its final scores. The file was
written with the NumPy bot of commit 345bebf (with the engine's seeded deals and
``random_actions`` draws); ``tests/agents/test_heuristic_positions.py`` replays the games and
requires the same actions, so the compiled bot plays exactly the games the NumPy bot played.
"""

from __future__ import annotations

import hashlib
import json
import pathlib

import numpy as np

from agents.base import DecisionContext
from agents.heuristic import HeuristicAgent
from spades_env.engine import SpadesEngine
from spades_env.rules import resolve_rules
from spades_env.rules_yaml import list_presets

PATH = pathlib.Path(__file__).parent / "golden" / "heuristic_games.json"
GAMES = 12  #: games per preset, played side by side
STEPS = 240  #: decisions per game (several hands; a match that ends starts the next)


def play(preset: str, seed: int) -> list[dict]:
    """Each game's action-sequence digest and final scores; seats: 0 default bot, 1 eager bot, 2 random."""
    engine = SpadesEngine(resolve_rules(preset))
    rng = np.random.default_rng(seed)
    state = engine.reset(np.arange(GAMES) + 100 * seed)
    bots = [HeuristicAgent(), HeuristicAgent(nil_threshold=2.5, bid_bias=0.3, set_opponents=1, two_player_bonus=1.0)]
    seat_bot = rng.integers(0, 3, size=(GAMES, engine.n_players))
    played = np.zeros((STEPS, GAMES), dtype=np.int64)
    for t in range(STEPS):
        masks = engine.legal_action_mask(state)
        actions = engine.random_actions(state, rng)
        who = seat_bot[np.arange(GAMES), state.to_move]
        for k, bot in enumerate(bots):
            games = np.flatnonzero(who == k)
            if len(games):
                ctx = DecisionContext(engine, state, games, state.to_move[games])
                actions[games] = bot.act(None, masks[games], ctx)
        played[t] = actions
        engine.step(state, actions, auto_reset=True)
    return [
        {
            "actions_sha256": hashlib.sha256(played[:, g].astype("<i2").tobytes()).hexdigest(),
            "scores": state.scores[g].tolist(),
        }
        for g in range(GAMES)
    ]


def record() -> dict[str, list[dict]]:
    return {preset: play(preset, seed=1 + k) for k, preset in enumerate(list_presets())}


if __name__ == "__main__":
    PATH.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {PATH} ({PATH.stat().st_size} bytes)")
