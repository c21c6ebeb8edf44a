"""Duplicate tournaments between bots: fixed seeded deals, seats swapped, resumable JSONL log.

Design
------
* A **board** is one seed. Every pair of bots (A, B) plays every board once in each
  **seating**: seat ``s`` goes to A or B by the pattern ``s % 2`` (partners share a
  bot), rotated through every seat and complemented, duplicates removed. In
  partnership that is A on 0+2 / B on 1+3 and the swap; in cutthroat with k seats it
  is every rotation, so each bot sits in each seat equally often and the card luck of
  a board cancels.
* Two **modes**. ``hand``: a board is one hand with the deal and dealer of the
  board's seed, from a 0-0 score; the result is the points of that hand. ``match``:
  a board is a whole match; the engine deals hand ``h`` of every seating of a board
  from (seed, h), so the seatings see the same deal sequence while the scores agree;
  the result is the match winner plus the points of every hand.
* Points are reported **bag-adjusted**: the hand score with any bag penalty taken
  out and every bag charged ``bag_penalty / bag_limit`` points (10), so that one hand
  counts what its bags really cost over a match. Raw points are logged as well.
* Each finished game (one board in one seating) is appended to the JSONL log as soon
  as it ends. Boards are played in fixed **chunks** (one engine batch each: every
  board of the chunk in every seating), and every bot is re-seeded at the start of a
  chunk from (seed, pair, chunk), so a chunk is a pure function of the config. On
  resume the finished chunks are skipped and an interrupted chunk is replayed,
  appending only the games missing from the log: the log ends up exactly as an
  uninterrupted run's. A chunk is thus the shard of a run on Ray (``ray=``,
  ``train/tournament_ray.py``): the same games, logged as the chunks finish, the same report.
* The report (``train/tournament_report.py``) gives per pair the points per hand of each
  bot (ratios of totals), their difference A - B with its 95% confidence interval over
  boards, board (hand mode) or match (match mode) win rates; per bot set, bag and
  nil-success rates and a rating: a least-squares fit of the pairs' A - B, in points per
  hand against the average bot, which uses the margins and not the order of the boards
  (``train/paired_stats.py`` gives the estimators). The log is ``train/tournament_log.py``.
* Hearts [RULES 7]: points are penalty points as scored (no bag adjustment) and **lower
  is better**: the report says so (``lower_is_better``), A wins a board when A - B < 0,
  and the ratings, in points too, are better the lower they are.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents import AGENTS, make_agent
from agents.base import Agent
from spades_env.engine import SpadesEngine
from spades_env.rules import Rules, resolve_rules
from train.paired_stats import mean_ci
from train.tournament_log import LOG_VERSION, TournamentLog, TournamentLogWarning, game_key
from train.tournament_play import GameTally, play_games
from train.tournament_report import (
    check_report_outputs,
    print_report,
    report_console,
    summarize,
    write_csv,
    write_json,
)

if TYPE_CHECKING:
    from train.ray_shards import RayOptions

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


def require_int(name: str, value: Any, low: int, high: int | None = None) -> None:
    """Refuse (ValueError) a setting ``name`` that is not an integer in ``low..high``."""
    allowed = f"an integer from {low}" + (f" to {high}" if high is not None else " up")
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"{name} must be {allowed}, got {value}")


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


# ---------------------------------------------------------------------------- run
class StopTournament(Exception):
    """Raised by ``run_tournament(stop_after=...)`` to simulate a kill (tests)."""


def _agent_seed(config: TournamentConfig, pair: int, chunk: int, which: int) -> int:
    return int(np.random.SeedSequence([config.seed, pair, chunk, which]).generate_state(1)[0])


def run_tournament(
    config: TournamentConfig,
    log_path: str | Path | None = None,
    *,
    fresh: bool = False,
    progress: bool = True,
    stop_after: int | None = None,
    agent_factory: Callable[[str, int], Agent] | None = None,
    hand_records: bool = False,
    ray: RayOptions | None = None,
) -> dict[str, Any]:
    """Play (or resume) a tournament and return its report (see ``summarize``).

    ``hand_records``: each logged game also holds ``records``, the JSON game record of every
    hand it played (``spades_env.engine.records``: replayable, e.g. in ``spades serve``);
    the results are the same either way.

    ``ray``: play the chunks left as Ray tasks (``train/tournament_ray.py``) instead of here,
    one after the other; the log holds the same game lines (in the order the chunks finish) and
    the report is the same.

    ``stop_after`` stops after that many newly logged games by raising
    ``StopTournament`` (a stand-in for a kill, used by tests).
    """
    rules = resolve_rules(config.rules)
    engine = SpadesEngine(rules)
    make = agent_factory or default_agent_factory
    for spec in config.bots:  # every bot is built and checked before the log is touched
        make(spec, 0).check_supports(engine)
    if ray is not None:  # and a cluster's address answers
        from train.ray_shards import check_reachable

        check_reachable(ray.address)
    log = TournamentLog(log_path, config, fresh=fresh)
    n_seatings = len(seatings(rules))
    total = len(config.pairs) * config.boards * n_seatings
    bar = _progress(total, len(log.done), progress)
    written = [0]

    def log_new(recs: list[dict[str, Any]]) -> None:
        """Append the games of ``recs`` the log lacks (up to ``stop_after`` in all)."""
        new = [r for r in recs if game_key(r) not in log.done]
        if stop_after is not None and written[0] + len(new) >= stop_after:
            log.append(new[: stop_after - written[0]])
            raise StopTournament(f"stopped after {stop_after} new games")
        log.append(new)
        written[0] += len(new)
        if bar is not None:
            bar.update(len(new))

    try:
        chunks = pending_chunks(config, n_seatings, log.done)
        if ray is not None:
            from train.tournament_ray import play_chunks_on_ray

            play_chunks_on_ray(config, rules, chunks, agent_factory, hand_records, ray, log_new)
        else:
            for p, c in chunks:
                play_chunk(config, rules, engine, p, c, make, hand_records, log_new)
    finally:
        if bar is not None:
            bar.close()
    return summarize(config, log.records)


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


def _progress(total: int, initial: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, unit="game", desc="tournament", leave=False)


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


# ---------------------------------------------------------------------------- benchmark
def demo_config(boards: int = 60, seed: int = 0) -> TournamentConfig:
    """The ``spades demo`` tournament: random, heuristic, a light search bot and the learned bot, hand mode."""
    from agents import LEARNED_CHECKPOINT

    bots = ("random", "heuristic", "search:samples=6")
    if LEARNED_CHECKPOINT.exists():
        bots += ("learned",)
    return TournamentConfig(bots=bots, boards=boards, seed=seed, chunk=boards)


def benchmark_heuristic(hands: int = 20_000, rules: str = "partnership", chunk: int = 8192) -> float:
    """Heuristic-vs-heuristic duplicate hands per second: engine plus bots, hand mode, no log or report."""
    config = TournamentConfig(bots=("heuristic", "heuristic"), rules=rules, boards=max(1, hands // 2))
    engine = SpadesEngine(resolve_rules(rules))
    lineup = seatings(engine.rules)
    agents = [make_agent("heuristic", seed=0), make_agent("heuristic", seed=1)]
    boards = np.arange(config.boards)
    board_of = np.repeat(boards, len(lineup))
    seating_of = np.tile(np.arange(len(lineup)), len(boards))
    seeds = board_seeds(config, board_of)
    start = time.perf_counter()
    played = 0
    for lo in range(0, len(seeds), chunk):
        tally, _ = play_games(engine, seeds[lo : lo + chunk], lineup[seating_of[lo : lo + chunk]], agents, "hand")
        played += int(tally.hands.sum())
    return played / (time.perf_counter() - start)


__all__ = [
    "AGENTS",
    "LOG_VERSION",
    "MODES",
    "StopTournament",
    "TournamentConfig",
    "TournamentLog",
    "TournamentLogWarning",
    "benchmark_heuristic",
    "board_seeds",
    "check_report_outputs",
    "demo_config",
    "mean_ci",
    "play_games",
    "print_report",
    "report_console",
    "require_int",
    "run_tournament",
    "seatings",
    "summarize",
    "write_csv",
    "write_json",
]
