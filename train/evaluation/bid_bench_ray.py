"""The bidding benchmark as Ray tasks (``spades bid-bench --ray``): the same statistics, so the same report.

Every strategy but the lookahead bidder is a pure function of a chunk of deals, so each chunk is
a shard playing them all (``train.evaluation.bid_bench_play.play_chunk``, the one implementation of a chunk). The
lookahead bidder draws its sampled deals from one generator seeded once and carried from chunk
to chunk, so its chunks depend on the ones before: they are one shard, played in chunk order,
which gives exactly the local run's draws. The driver puts each strategy's chunks back in
chunk order before the report, whatever order the shards finished in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env.engine import SpadesEngine
from spades_env.rules import Rules
from train.distributed.ray_shards import RayOptions, run_shards
from train.evaluation.bid_bench_play import BidBenchConfig, chunk_starts, make_bidders, play_chunk, strategy_names

#: The strategy whose chunks are played in order, in one shard.
SEQUENTIAL = "lookahead"
#: A shard's result: the statistics of each (strategy, first deal of the chunk) it played.
ShardStats = dict[tuple[str, int], dict[str, np.ndarray]]


@dataclass(frozen=True)
class BenchShard:
    """Strategies to play on chunks of deals, in this order (pickled to a worker)."""

    config: BidBenchConfig
    rules: Rules
    """The resolved rules (a YAML path of the driver need not exist on the workers)."""
    strategies: tuple[str, ...]
    chunks: tuple[int, ...]
    """First deal of each chunk."""


def shards_of(config: BidBenchConfig, rules: Rules) -> list[BenchShard]:
    """The lookahead shard first (the longest), then one shard per chunk for the other strategies."""
    names = strategy_names(config)
    others = tuple(n for n in names if n != SEQUENTIAL)
    starts = tuple(chunk_starts(config))
    first = [BenchShard(config, rules, (SEQUENTIAL,), starts)] if SEQUENTIAL in names else []
    return first + [BenchShard(config, rules, others, (lo,)) for lo in starts]


def play_shard(shard: BenchShard) -> ShardStats:
    """Play a shard's strategies on its chunks (runs on a worker)."""
    engine = SpadesEngine(shard.rules)
    bidders = make_bidders(shard.config, engine, shard.strategies)
    out: ShardStats = {}
    for lo in shard.chunks:
        for name, stats in play_chunk(shard.config, engine, bidders, lo).items():
            out[name, lo] = stats
    return out


def play_on_ray(
    config: BidBenchConfig, rules: Rules, options: RayOptions, progress: bool
) -> dict[str, dict[str, np.ndarray]]:
    """Per strategy (report order), each statistic over every deal in deal order, as ``run_bid_bench`` has it."""
    shards = shards_of(config, rules)
    got: ShardStats = {}
    finished = [0]

    def keep(_shard: BenchShard, stats: ShardStats) -> None:
        got.update(stats)
        finished[0] += 1
        if progress:
            print(f"bid-bench: {finished[0]}/{len(shards)} shards", flush=True)

    run_shards(play_shard, shards, options, keep)
    return {
        name: {key: np.concatenate([got[name, lo][key] for lo in chunk_starts(config)]) for key in got[name, 0]}
        for name in strategy_names(config)
    }
