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
  ``train/evaluation/tournament_ray.py``): the same games, logged as the chunks finish, the same report.
* The report (``train/evaluation/tournament_report.py``) gives per pair the points per hand of each
  bot (ratios of totals), their difference A - B with its 95% confidence interval over
  boards, board (hand mode) or match (match mode) win rates; per bot set, bag and
  nil-success rates and a rating: a least-squares fit of the pairs' A - B, in points per
  hand against the average bot, which uses the margins and not the order of the boards
  (``train/evaluation/paired_stats.py`` gives the estimators). The log is ``train/evaluation/tournament_log.py``.
* Hearts [RULES 7]: points are penalty points as scored (no bag adjustment) and **lower
  is better**: the report says so (``lower_is_better``), A wins a board when A - B < 0,
  and the ratings, in points too, are better the lower they are.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents import AGENTS, make_agent
from agents.base import Agent
from spades_env.engine import SpadesEngine
from spades_env.rules import resolve_rules
from train.evaluation.paired_stats import mean_ci
from train.evaluation.tournament_chunks import (
    BOARD_STRIDE,
    MODES,
    TournamentConfig,
    board_seeds,
    default_agent_factory,
    pending_chunks,
    play_chunk,
    require_int,
    seatings,
)
from train.evaluation.tournament_log import LOG_VERSION, TournamentLog, TournamentLogWarning, game_key
from train.evaluation.tournament_play import play_games
from train.evaluation.tournament_report import (
    check_report_outputs,
    print_report,
    report_console,
    summarize,
    write_csv,
    write_json,
)

if TYPE_CHECKING:
    from train.distributed.ray_shards import RayOptions


# ---------------------------------------------------------------------------- run
class StopTournament(Exception):
    """Raised by ``run_tournament(stop_after=...)`` to simulate a kill (tests)."""


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

    ``ray``: play the chunks left as Ray tasks (``train/evaluation/tournament_ray.py``) instead of here,
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
        from train.distributed.ray_shards import check_reachable

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
            from train.evaluation.tournament_ray import play_chunks_on_ray

            play_chunks_on_ray(config, rules, chunks, agent_factory, hand_records, ray, log_new)
        else:
            for p, c in chunks:
                play_chunk(config, rules, engine, p, c, make, hand_records, log_new)
    finally:
        if bar is not None:
            bar.close()
    return summarize(config, log.records)


def _progress(total: int, initial: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, unit="game", desc="tournament", leave=False)


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
    "BOARD_STRIDE",
    "LOG_VERSION",
    "MODES",
    "StopTournament",
    "TournamentConfig",
    "TournamentLog",
    "TournamentLogWarning",
    "benchmark_heuristic",
    "board_seeds",
    "check_report_outputs",
    "default_agent_factory",
    "demo_config",
    "mean_ci",
    "play_chunk",
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
