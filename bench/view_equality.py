"""Every bot's decisions, as digests: run before and after a change to what bots are given (issue 52, a seat's view).

Plays small seeded duplicate tournaments through the real harness (``train.evaluation.tournament.run_tournament``, hand
records on: every bid, pass, draw, exchange and card of every game) for each bot at each table family, plus a few
Gymnasium episodes whose opponents decide through their contexts and ``VectorSpades`` runs whose bot
plays through ``context()``, and prints one SHA-256 digest per
line. Two runs of the same code print the same lines; a change that keeps every decision keeps every line.

    python -m bench.view_equality [--only SUBSTRING] > digests.txt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from pathlib import Path

import numpy as np

#: (table, bots, boards, mode): each a tournament of every pair of the bots.
CASES: list[tuple[str, tuple[str, ...], int, str]] = [
    ("partnership", ("heuristic", "random", "examples.my_bot:MyBot"), 24, "match"),
    ("partnership", ("search:fast", "heuristic"), 6, "hand"),
    ("partnership", ("search:samples=4", "random"), 2, "hand"),
    ("partnership", ("learned", "heuristic"), 24, "hand"),
    ("partnership", ("guided", "heuristic"), 2, "hand"),
    ("cutthroat-4", ("heuristic", "random", "examples.my_bot:MyBot"), 12, "match"),
    ("cutthroat-4", ("search:fast", "heuristic"), 3, "hand"),
    ("cutthroat-4", ("learned", "heuristic"), 12, "hand"),
    ("hearts", ("heuristic", "random"), 12, "match"),
    ("hearts", ("search:fast", "heuristic"), 3, "hand"),
    ("hearts", ("learned", "heuristic"), 12, "hand"),
    ("two-player", ("heuristic", "random", "examples.my_bot:MyBot"), 24, "match"),
    ("two-player", ("search:fast", "heuristic"), 6, "hand"),
    ("partnership-house", ("heuristic", "random", "examples.my_bot:MyBot"), 24, "match"),
    ("partnership-house", ("search:fast", "heuristic"), 4, "hand"),
]


def tournament_digest(table: str, bots: tuple[str, ...], boards: int, mode: str) -> str:
    """SHA-256 of every game line (hand records included) of a fresh tournament, in game order."""
    from train.evaluation.tournament import TournamentConfig, run_tournament

    config = TournamentConfig(bots=bots, rules=table, boards=boards, mode=mode, seed=7, chunk=boards)
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.jsonl"
        run_tournament(config, log, progress=False, hand_records=True)
        games = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    games.sort(key=lambda g: (g["pair_index"], g["board"], g["seating"]))
    return hashlib.sha256(json.dumps(games, sort_keys=True).encode()).hexdigest()[:16]


def gym_digest(table: str, opponent: str, steps: int = 400) -> str:
    """SHA-256 of the observations and rewards of a seeded Gymnasium episode run against ``opponent`` bots."""
    from agents import make_agent
    from spades_env.envs.gym_env import SpadesGymEnv

    env = SpadesGymEnv(rules=table, opponents=make_agent(opponent, seed=3))
    rng = np.random.default_rng(0)
    h = hashlib.sha256()
    obs, info = env.reset(seed=11)
    for _ in range(steps):
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, done, _, info = env.step(int(rng.choice(legal)))
        h.update(np.asarray(obs["observation"]).tobytes() + np.float64(reward).tobytes())
        if done:
            obs, info = env.reset()
    return h.hexdigest()[:16]


def vector_digest(table: str, bot: str, steps: int = 60) -> str:
    """SHA-256 of the actions of ``bot`` playing every seat of a seeded ``VectorSpades`` through ``context()``."""
    from agents import make_agent
    from spades_env.envs.vector import VectorSpades

    env = VectorSpades(table, num_envs=16, seed=5)
    player = make_agent(bot, seed=3)
    h = hashlib.sha256()
    obs, info = env.reset(seed=5)
    for _ in range(steps):
        actions = np.asarray(player.act(obs, info["action_mask"], env.context()), dtype=np.int64)
        obs, reward, *_, info = env.step(actions)
        h.update(actions.tobytes() + np.asarray(reward, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run only the lines whose label holds this text")
    args = parser.parse_args(argv)
    jobs = [(f"tournament {t} {','.join(b)} boards={n} {m}", tournament_digest, (t, b, n, m)) for t, b, n, m in CASES]
    for table in ("partnership", "two-player", "hearts"):
        for bot in ("random", "search:fast", "heuristic"):
            jobs.append((f"gym {table} vs {bot}", gym_digest, (table, bot)))
            jobs.append((f"vector {table} {bot} in every seat", vector_digest, (table, bot)))
    for label, fn, fn_args in jobs:
        if args.only in label:
            print(f"{label}: {fn(*fn_args)}", flush=True)


if __name__ == "__main__":
    main()
