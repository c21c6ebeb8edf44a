"""The bidding benchmark's config and its chunks of deals: what a run plays, here or as Ray tasks.

``train/evaluation/bid_bench.py`` runs and reports the benchmark (its docstring is the design);
``train/evaluation/bid_bench_ray.py`` plays the same chunks as Ray tasks. Both import this module, which imports
neither.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from agents.base import DecisionContext
from agents.builtin_bots import decision_context
from agents.heuristic import HeuristicAgent
from agents.search_bidding import MAX_LOOKAHEAD_SAMPLES
from spades_env.engine import PLAY, SpadesEngine
from spades_env.rules import Rules, resolve_rules
from train.evaluation.bid_bench_bidders import (
    Bidder,
    BotBidder,
    counting_bidder,
    fixed_bidder,
    heuristic_bidder,
    lookahead_bidder,
    neural_bidder,
)
from train.runs.config_file import require_int

#: Deal ``d`` of a benchmark with seed ``s`` is dealt from engine seed ``s * DEAL_STRIDE + d``.
DEAL_STRIDE = 1_000_000
#: Bids are 1..13 (and nil), so the oracle never needs to look further than this around a bid.
MAX_ORACLE_WIDTH = 12
#: The benchmark's own strategies, by the name ``bidders`` gives them; any other bidder is a bot spec.
STRATEGIES = ("heuristic", "count", "lookahead", "neural", "oracle")


@dataclass(frozen=True)
class BidBenchConfig:
    """Everything that decides a bidding benchmark's results."""

    rules: str = "partnership"
    """Rules preset name or YAML path (a partnership rule set)."""
    deals: int = 500
    """Seeded deals; each is played in both seatings."""
    seed: int = 0
    """Benchmark seed (the deals derive from it)."""
    checkpoint: str | None = None
    """NeuralAgent checkpoint whose bidding head is benchmarked (``neural``), if any."""
    oracle_width: int = 2
    """The oracle tries each side seat's heuristic bid +- this many tricks, and nil."""
    chunk: int = 256
    """Deals per engine batch."""
    lookahead_samples: int = 64
    """Sampled deals per decision of the ``lookahead`` bidder; 0 leaves the row out."""
    checkpoint_bid_samples: int = 0
    """The ``neural`` bidder's ``bid_samples`` (``agents.neural_lookahead``: its values averaged with a lookahead's on
    that many sampled deals); 0: the network alone."""
    bidders: tuple[str, ...] = ()
    """The bidders, in report order: ``STRATEGIES`` names and bot specs (``agents.make_agent``: a bot's bids are its
    ``act`` at its bid decisions), ``heuristic`` first even where left out (every row is compared to it). Empty:
    heuristic, count, lookahead (with ``lookahead_samples``), neural (with a checkpoint) and oracle."""

    def __post_init__(self) -> None:
        require_int("deals", self.deals, 1, DEAL_STRIDE)
        require_int("chunk", self.chunk, 1)
        require_int("seed", self.seed, 0, 2**31 - 1)
        require_int("oracle_width", self.oracle_width, 0, MAX_ORACLE_WIDTH)
        require_int("lookahead_samples", self.lookahead_samples, 0, MAX_LOOKAHEAD_SAMPLES)
        require_int("checkpoint_bid_samples", self.checkpoint_bid_samples, 0, MAX_LOOKAHEAD_SAMPLES)
        if self.checkpoint_bid_samples and not self.checkpoint:
            raise ValueError(f"checkpoint_bid_samples {self.checkpoint_bid_samples} needs a checkpoint (its bidder)")
        if self.bidders:
            object.__setattr__(self, "bidders", _checked_bidders(self))


def _checked_bidders(config: BidBenchConfig) -> tuple[str, ...]:
    """The bidders, stripped; ValueError for a repeated one, a strategy without its setting or a setting without
    its strategy."""
    bidders = config.bidders
    if not isinstance(bidders, tuple | list) or not all(isinstance(b, str) and b.strip() for b in bidders):
        raise ValueError(f"bidders must be a list of bidder names and bot specs, got {config.bidders!r}")
    names = [b.strip() for b in config.bidders]
    repeated = sorted({b for b in names if names.count(b) > 1})
    if repeated:
        raise ValueError(f"bidders: {repeated[0]!r} is given twice")
    if "lookahead" in names and not config.lookahead_samples:
        raise ValueError("bidders: 'lookahead' needs lookahead_samples >= 1")
    if ("neural" in names) != bool(config.checkpoint):
        raise ValueError(
            "bidders: 'neural' is the --checkpoint's bidding head: give both or neither "
            "(any other network's bids: the bot spec neural:path=CHECKPOINT)"
        )
    return tuple(names)


# ---------------------------------------------------------------------- play
@dataclass
class HandOutcome:
    """One finished hand per game, seen from the tested side (G games)."""

    bids: np.ndarray
    """(G, N) int64 bids (0 = nil)."""
    tricks: np.ndarray
    """(G, N) int64 tricks taken per seat."""
    points: np.ndarray
    """(G, S) float64 bag-adjusted points per side (bag = bag_penalty / bag_limit points)."""
    bags: np.ndarray
    """(G, S) int64 bags taken per side."""
    made: np.ndarray
    """(G, S) bool contract made."""


def play_hands(
    engine: SpadesEngine,
    seeds: np.ndarray,
    tested_side: np.ndarray,
    bidder: Bidder,
    heuristic: HeuristicAgent,
    bidder_sees_all: bool = False,
) -> HandOutcome:
    """Play one hand per seed (one batch): ``bidder`` bids for ``tested_side`` (G,), the heuristic
    bids for the others, and the heuristic plays every card. The bidder's decisions get its seat's view
    (``DecisionContext.of_view``), but with ``bidder_sees_all`` (the oracle's fixed bids, which it reads by game
    index) the full state; the heuristic's get what ``decision_context`` gives the shipped heuristic."""
    g_all = len(seeds)
    state = engine.reset(seeds)
    rows = np.arange(g_all)
    active = np.ones(g_all, bool)
    out: dict[str, np.ndarray] = {}
    while active.any():
        masks = engine.legal_action_mask(state)
        actions = np.argmax(masks, axis=1)  # a legal filler for finished games
        phase, seats = state.phase, state.to_move
        tested = engine.side_of_seat[seats] == tested_side
        bid, blind = phase == engine.spec.bid_phase, phase == engine.spec.blind_phase
        routes = (
            (active & (phase == PLAY), heuristic.play),
            (active & blind, heuristic.blind),
            (active & bid & tested, bidder),
            (active & bid & ~tested, heuristic.bid),
        )
        for sel, fn in routes:
            idx = np.flatnonzero(sel)
            if len(idx):
                if bidder_sees_all and fn is bidder:  # the oracle's bids, by game index: the full state
                    ctx = DecisionContext(engine, state, idx, seats[idx])
                elif fn is bidder:
                    ctx = DecisionContext.of_view(engine, state, idx, seats[idx])
                else:  # the heuristic's own decisions (``decision_context``: the shipped heuristic may read the state)
                    ctx = decision_context(heuristic, engine, state, idx, seats[idx])
                actions[idx] = fn(ctx, masks[idx])
        if not masks[rows, actions][active].all():  # let the engine name the illegal action
            bad = np.flatnonzero(active & ~masks[rows, actions])[:1]
            engine.step(state.take(bad), actions[bad])
        result = engine.step(state, actions, validate=False)
        for f in result.finished:
            keep = active[f.games]
            if not keep.any():
                continue
            games = f.games[keep]
            fields = {
                "bids": f.bids[keep],
                "tricks": f.tricks_won[keep],
                "points": engine.spec.adjusted_points(engine.rules, f, keep),
                "bags": f.bags_added[keep],
                "made": f.made[keep],
            }
            for k, v in fields.items():
                if k not in out:
                    out[k] = np.zeros((g_all, *v.shape[1:]), v.dtype)
                out[k][games] = v
        active &= ~result.hand_done
    return HandOutcome(**out)


def oracle(
    engine: SpadesEngine, seeds: np.ndarray, tested_side: np.ndarray, heuristic_bids: np.ndarray, width: int
) -> HandOutcome:
    """Hindsight-best bids of the tested side under heuristic play, searched around the heuristic's bids.

    For each game, every pair (bid of the side's first bidder, bid of its partner) with each
    bid in ``{nil} + {h - width .. h + width}`` (h: that seat's bid in the all-heuristic
    hand ``heuristic_bids`` (G, N), clipped to 1..hand size) is played out with heuristic
    card play for every seat (the opponents bid as the heuristic does, which does not
    depend on this side's bids), and the pair with the most bag-adjusted points for the
    side is kept. Heuristic play is deterministic, so this is the exact best over the
    candidates: the oracle sees all four hands and how the hand will be played. Its pairs
    include the heuristic's own, so per deal it never scores less than the heuristic
    bidder; it bounds what better bidding alone could gain.
    """
    g = len(seeds)
    n = engine.n_players
    rows = np.arange(g)
    options = np.arange(-width, width + 2)  # the last one stands for nil
    k = len(options)
    side_seats = np.nonzero(engine.side_of_seat[None, :] == np.arange(engine.n_sides)[:, None])[1].reshape(
        engine.n_sides, -1
    )
    seat_a, seat_b = side_seats[tested_side, 0], side_seats[tested_side, 1]
    # Candidate c = (i, j): seat_a bids option i, seat_b option j.
    i, j = np.divmod(np.arange(k * k), k)
    wanted = np.repeat(heuristic_bids[:, None, :], k * k, axis=1).copy()  # (G, K*K, N)

    def value(seat: np.ndarray, opt: np.ndarray) -> np.ndarray:
        h = heuristic_bids[rows, seat][:, None]
        return np.where(opt == width + 1, 0, np.clip(h + opt, 1, engine.hand_size))

    wanted[rows[:, None], np.arange(k * k)[None, :], seat_a[:, None]] = value(seat_a, options[i][None, :])
    wanted[rows[:, None], np.arange(k * k)[None, :], seat_b[:, None]] = value(seat_b, options[j][None, :])
    flat = wanted.reshape(g * k * k, n)
    side = np.repeat(tested_side, k * k)
    result = play_hands(
        engine, np.repeat(seeds, k * k), side, fixed_bidder(flat), HeuristicAgent(), bidder_sees_all=True
    )
    own = result.points[np.arange(g * k * k), side].reshape(g, k * k)
    best = rows * k * k + np.argmax(own, axis=1)
    return HandOutcome(**{f: getattr(result, f)[best] for f in HandOutcome.__dataclass_fields__})


# ---------------------------------------------------------------------- run
def deal_seeds(config: BidBenchConfig) -> np.ndarray:
    """Engine seed of each deal."""
    return config.seed * DEAL_STRIDE + np.arange(config.deals, dtype=np.int64)


def _side_stats(engine: SpadesEngine, out: HandOutcome, side: np.ndarray) -> dict[str, np.ndarray]:
    """Per-game statistics of the tested side: each (G,)."""
    g = np.arange(len(side))
    mine = engine.side_of_seat[None, :] == side[:, None]  # (G, N)
    nil = out.bids == 0
    contract = np.where(mine & ~nil, out.bids, 0).sum(axis=1)
    tricks = np.where(mine, out.tricks, 0).sum(axis=1)
    return {
        "points": out.points[g, side],
        "contracts": (contract > 0).astype(float),
        "sets": ((contract > 0) & ~out.made[g, side]).astype(float),
        "bags": out.bags[g, side].astype(float),
        "nil_bids": (mine & nil).sum(axis=1).astype(float),
        "nil_made": (mine & nil & (out.tricks == 0)).sum(axis=1).astype(float),
        "bid": contract.astype(float),
        "abs_error": np.abs(contract - tricks).astype(float),
    }


def bench_rules(config: BidBenchConfig) -> Rules:
    """The benchmark's rules, refused (ValueError) unless a partnership rule set."""
    rules = resolve_rules(config.rules)
    if not rules.partnership:
        raise ValueError(f"the bidding benchmark needs a partnership rule set, got {rules.name!r}")
    return rules


def make_bidders(
    config: BidBenchConfig, engine: SpadesEngine, names: tuple[str, ...] | None = None
) -> dict[str, Bidder | None]:
    """The bidders (``strategy_names``, or those of ``names``), in report order; the oracle is None. A bot spec's
    bidder (``BotBidder``) is seeded from the benchmark's seed and the bidder's place in the report."""
    builders: dict[str, Callable[[], Bidder | None]] = {
        "heuristic": lambda: heuristic_bidder,
        "count": lambda: counting_bidder,
        "lookahead": lambda: lookahead_bidder(config.lookahead_samples, config.seed),
        "neural": lambda: neural_bidder(config.checkpoint, config.checkpoint_bid_samples, config.seed),
        "oracle": lambda: None,
    }
    order = strategy_names(config)
    return {
        name: builders[name]() if name in STRATEGIES else BotBidder(name, _bot_seed(config, order.index(name)), engine)
        for name in (order if names is None else names)
    }


def _bot_seed(config: BidBenchConfig, place: int) -> int:
    return int(np.random.SeedSequence([config.seed, place]).generate_state(1)[0])


def strategy_names(config: BidBenchConfig) -> tuple[str, ...]:
    """The bidders of the benchmark, in report order (see ``BidBenchConfig.bidders``)."""
    if config.bidders:
        return ("heuristic", *(b for b in config.bidders if b != "heuristic"))
    return (
        "heuristic",
        "count",
        *(("lookahead",) if config.lookahead_samples else ()),
        *(("neural",) if config.checkpoint else ()),
        "oracle",
    )


def chunk_starts(config: BidBenchConfig) -> range:
    """The first deal of each chunk."""
    return range(0, config.deals, config.chunk)


def play_chunk(
    config: BidBenchConfig, engine: SpadesEngine, bidders: dict[str, Bidder | None], lo: int
) -> dict[str, dict[str, np.ndarray]]:
    """Per strategy of ``bidders``, the tested side's statistics on the chunk of deals starting at ``lo``.

    Every deal in both seatings is a game of one batch; the oracle (None) searches around the
    heuristic's bids, so ``heuristic`` must come before it in ``bidders``.
    """
    seeds = np.repeat(deal_seeds(config)[lo : lo + config.chunk], 2)  # both seatings of each deal
    side = np.tile(np.arange(2), len(seeds) // 2)
    heur = None
    out = {}
    for name, bidder in bidders.items():
        if isinstance(bidder, BotBidder):
            bidder.start_chunk(lo)
        if bidder is None:
            result = oracle(engine, seeds, side, heur.bids, config.oracle_width)
        else:
            result = play_hands(engine, seeds, side, bidder, HeuristicAgent())
        if name == "heuristic":
            heur = result
        out[name] = _side_stats(engine, result, side)
    return out
