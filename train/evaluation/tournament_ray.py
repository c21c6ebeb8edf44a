"""A tournament's chunks as Ray tasks (`spades tournament --ray`): the same games, log lines and report.

A chunk (one pair, up to ``chunk`` boards in every seating) is the tournament's shard: its bots
are seeded from (seed, pair, chunk), so a worker plays exactly the games the local loop would
(``train.evaluation.tournament.play_chunk``, the one implementation of a chunk). The worker hands back every
game of its chunk; the driver appends those the log lacks, so a chunk half logged by a killed
run is completed without a game counted twice, and a chunk whose worker died and was run again
(``train.distributed.ray_shards``) comes back once. Chunks finish in any order, so the log's lines may come
in another order than a local run's (each line the same); the report sorts the games
(``train.evaluation.tournament_report.summarize``) and does not depend on that order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.base import Agent
from spades_env.engine import SpadesEngine
from spades_env.rules import Rules
from train.distributed.ray_shards import RayOptions, run_shards
from train.evaluation.tournament_chunks import TournamentConfig, default_agent_factory, play_chunk


@dataclass(frozen=True)
class ChunkShard:
    """Everything a worker needs to play one chunk (pickled to it)."""

    config: TournamentConfig
    rules: Rules
    """The resolved rules (a YAML path of the driver need not exist on the workers)."""
    pair: int
    chunk: int
    agent_factory: Callable[[str, int], Agent] | None
    hand_records: bool


def play_shard(shard: ChunkShard) -> list[dict[str, Any]]:
    """The game records of one chunk, in the order the local loop logs them (runs on a worker)."""
    out: list[dict[str, Any]] = []
    engine = SpadesEngine(shard.rules)
    make = shard.agent_factory or default_agent_factory
    play_chunk(shard.config, shard.rules, engine, shard.pair, shard.chunk, make, shard.hand_records, out.extend)
    return out


def play_chunks_on_ray(
    config: TournamentConfig,
    rules: Rules,
    chunks: list[tuple[int, int]],
    agent_factory: Callable[[str, int], Agent] | None,
    hand_records: bool,
    options: RayOptions,
    log_new: Callable[[list[dict[str, Any]]], None],
) -> None:
    """Play the (pair, chunk) shards ``chunks`` on Ray; ``log_new(records)`` gets each finished chunk's games."""
    shards = [ChunkShard(config, rules, p, c, agent_factory, hand_records) for p, c in chunks]
    run_shards(play_shard, shards, options, lambda _shard, records: log_new(records))
