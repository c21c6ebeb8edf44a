"""A tournament's config and its chunks: the shards a run plays, here or as Ray tasks
(``train/evaluation/tournament_ray.py``).

A chunk is a pure function of the config: its boards, every seating, bots seeded from (seed, pair, chunk); the design
is ``train/evaluation/tournament.py``'s docstring. This module is below the runner, the log, the report and the Ray
path, so that none of them imports another in a circle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents import make_agent
from agents.base import Agent
from spades_env.engine import SpadesEngine
from spades_env.rules import Rules
from train.evaluation.tournament_play import GameTally, play_games
from train.runs.config_file import require_int

MODES = ("hand", "match")
#: Board ``b`` of a tournament with seed ``s`` is dealt from engine seed ``s * BOARD_STRIDE + b``.
BOARD_STRIDE = 1_000_000


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides a tournament's results (the log's header)."""

    bots: tuple[str, ...] = ("heuristic", "random")
    """Bot specs, ``name`` or ``name:key=value,...`` (see ``agents.AGENTS``); every pair plays."""
    rules: str = "partnership"
    """Rules preset name or YAML path."""
    boards: int = 200
    """Boards (seeded deals) per pair."""
    mode: str = "hand"
    """``hand``: one hand per board; ``match``: a whole match per board."""
    seed: int = 0
    """Tournament seed: board seeds and bot seeds derive from it."""
    chunk: int = 512
    """Boards per engine batch (and per re-seeding of the bots)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {list(MODES)}, got {self.mode!r}")
        if len(self.bots) < 2:
            raise ValueError(f"a tournament needs at least two bots, got {list(self.bots)}")
        require_int("boards", self.boards, 1, BOARD_STRIDE)
        require_int("chunk", self.chunk, 1)
        require_int("seed", self.seed, 0, 2**31 - 1)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping (the log header)."""
        d = asdict(self)
        d["bots"] = list(self.bots)
        return d

    @property
    def labels(self) -> list[str]:
        """A unique label per bot (a repeated spec gets ``#2``, ``#3``...)."""
        seen: dict[str, int] = {}
        out = []
        for spec in self.bots:
            seen[spec] = seen.get(spec, 0) + 1
            out.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
        return out

    @property
    def pairs(self) -> list[tuple[int, int]]:
        """Every pair (i, j), i < j, of bot indices, in order."""
        k = len(self.bots)
        return [(i, j) for i in range(k) for j in range(i + 1, k)]


def seatings(rules: Rules) -> np.ndarray:
    """(K, N) int64: for each seating, 0 if bot A sits in the seat, 1 if bot B does."""
    n = rules.n_players
    base = np.array([rules.side_of_seat(s) % 2 if rules.partnership else s % 2 for s in range(n)])
    found: list[tuple[int, ...]] = []
    for flip in (0, 1):
        for r in range(n):
            row = tuple(int(x) for x in (np.roll(base, r) ^ flip))
            if row not in found:
                found.append(row)
    return np.array(found, dtype=np.int64)


def board_seeds(config: TournamentConfig, boards: Iterable[int]) -> np.ndarray:
    """Engine seed of each board."""
    return config.seed * BOARD_STRIDE + np.asarray(list(boards), dtype=np.int64)


def _agent_seed(config: TournamentConfig, pair: int, chunk: int, which: int) -> int:
    return int(np.random.SeedSequence([config.seed, pair, chunk, which]).generate_state(1)[0])


def default_agent_factory(spec: str, seed: int) -> Agent:
    """The bot of ``spec`` seeded with ``seed`` (``agents.make_agent``)."""
    return make_agent(spec, seed=seed)


def chunk_boards(config: TournamentConfig, c: int) -> np.ndarray:
    """The boards of chunk ``c``."""
    return np.arange(c * config.chunk, min((c + 1) * config.chunk, config.boards))


def pending_chunks(config: TournamentConfig, n_seatings: int, done: set[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """The (pair, chunk) shards, in order, with a game not in ``done`` (every one of a fresh log)."""
    out = []
    for p in range(len(config.pairs)):
        for c in range(math.ceil(config.boards / config.chunk)):
            keys = {(p, int(b), k) for b in chunk_boards(config, c) for k in range(n_seatings)}
            if not keys <= done:
                out.append((p, c))
    return out


def play_chunk(
    config: TournamentConfig,
    rules: Rules,
    engine: SpadesEngine,
    p: int,
    c: int,
    make: Callable[[str, int], Agent],
    hand_records: bool,
    emit: Callable[[list[dict[str, Any]]], None],
) -> None:
    """Play chunk ``c`` of pair ``p``: every board of the chunk in every seating, in one engine batch.

    The bots are built afresh from seeds of (seed, pair, chunk), so the chunk's games depend on the
    config alone. ``emit(records)`` gets the game records of each step's finished games, in game order.
    """
    i, j = config.pairs[p]
    lineup = seatings(rules)
    labels = config.labels
    boards = chunk_boards(config, c)
    agents = [make(config.bots[i], _agent_seed(config, p, c, 0)), make(config.bots[j], _agent_seed(config, p, c, 1))]
    board_of = np.repeat(boards, len(lineup))
    seating_of = np.tile(np.arange(len(lineup)), len(boards))
    seeds = board_seeds(config, board_of)
    hands_of = [[] for _ in seeds] if hand_records else None

    def finish(done, tally, state):
        recs = [
            _record(
                config, rules, p, (i, j), labels, lineup, int(board_of[x]), int(seating_of[x]), int(seeds[x]),
                tally, x, int(state.winner[x]) if config.mode == "match" else -1,
            )
            for x in done
        ]  # fmt: skip
        if hands_of is not None:
            for rec, x in zip(recs, done, strict=True):
                rec["records"] = hands_of[x]
        emit(recs)

    play_games(engine, seeds, lineup[seating_of], agents, config.mode, on_finish=finish, hand_records=hands_of)


def _record(config, rules, p, pair, labels, lineup, board, seating, seed, tally: GameTally, x, winner) -> dict:
    """One finished game as a JSON-ready dict."""
    names = [labels[pair[0]], labels[pair[1]]]
    seat_bots = [names[int(o)] for o in lineup[seating]]
    side_bots = [seat_bots[s] for s in range(rules.n_sides)] if not rules.partnership else seat_bots[:2]
    return {
        "type": "game",
        "pair_index": p,
        "pair": names,
        "board": board,
        "seating": seating,
        "seed": seed,
        "seats": seat_bots,
        "sides": side_bots,
        "hands": int(tally.hands[x]),
        "points": tally.points[x].tolist(),
        "adjusted": tally.adjusted[x].tolist(),
        "winner": winner,
        "contracts": tally.contracts[x].tolist(),
        "sets": tally.sets[x].tolist(),
        "bags": tally.bags[x].tolist(),
        "nil_bids": tally.nil_bids[x].tolist(),
        "nil_made": tally.nil_made[x].tolist(),
    }
