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
  uninterrupted run's.
* The report gives per pair the points per hand of each bot, the mean difference
  A - B per board with its 95% confidence interval over boards, board (hand mode)
  or match (match mode) win rates; per bot set, bag and nil-success rates and an
  OpenSkill (Plackett-Luce) rating updated once per board (its duplicate result).
* Hearts [RULES 7]: points are penalty points as scored (no bag adjustment) and **lower
  is better**: the report says so (``lower_is_better``), A wins a board when A - B < 0,
  and the ratings rank accordingly.
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents import AGENTS, make_agent
from agents.base import Agent, DecisionContext
from spades_env.engine import FinishedHands, SpadesEngine
from spades_env.rules import Rules, resolve_rules

MODES = ("hand", "match")
LOG_VERSION = 1
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
        if self.boards < 1 or self.chunk < 1:
            raise ValueError(f"boards and chunk must be positive, got {self.boards} and {self.chunk}")
        if not 0 <= self.seed < 2**31:
            raise ValueError(f"seed must be in 0..2**31-1, got {self.seed}")
        if self.boards > BOARD_STRIDE:
            raise ValueError(f"at most {BOARD_STRIDE} boards, got {self.boards}")

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


# ---------------------------------------------------------------------------- play
class _Tally:
    """Per-game, per-side running totals while games play."""

    def __init__(self, g: int, s: int) -> None:
        z = lambda: np.zeros((g, s), dtype=np.int64)  # noqa: E731
        self.points, self.adjusted, self.contracts, self.sets = z(), z(), z(), z()
        self.bags, self.nil_bids, self.nil_made = z(), z(), z()
        self.hands = np.zeros(g, dtype=np.int64)

    def add(self, engine: SpadesEngine, games: np.ndarray, f) -> None:
        """Add the finished hands ``f`` (a FinishedHands) of the given global games."""
        if engine.rules.hearts:  # Hearts points as they are (lower is better); no contracts, bags or nils
            self.points[games] += f.delta
            self.adjusted[games] += f.delta
            self.hands[games] += 1
            return
        taken, penalties = hand_bags(engine, f.bids, f.tricks_won, f.start_bags)
        rules = engine.rules
        sides = np.eye(engine.n_sides, dtype=np.int64)[engine.side_of_seat]  # (N, S)
        contract = np.where(f.bids > 0, f.bids, 0) @ sides
        nil = f.bids == 0
        self.points[games] += f.delta
        cost = rules.bag_penalty / rules.bag_limit if rules.bags else 0.0
        self.adjusted[games] += np.rint(f.delta + penalties * rules.bag_penalty - taken * cost).astype(np.int64)
        self.contracts[games] += contract > 0
        self.sets[games] += (contract > 0) & ~f.made
        self.bags[games] += taken
        self.nil_bids[games] += nil.astype(np.int64) @ sides
        self.nil_made[games] += (nil & (f.tricks_won == 0)).astype(np.int64) @ sides
        self.hands[games] += 1


def hand_bags(engine: SpadesEngine, bids: np.ndarray, tricks: np.ndarray, start_bags: np.ndarray):
    """Bags taken in a hand and bag penalties applied, both (G, S) int64 [RULES 3]."""
    rules = engine.rules
    sides = np.eye(engine.n_sides, dtype=np.int64)[engine.side_of_seat]
    nil = bids == 0
    contract = np.where(nil, 0, bids) @ sides
    made_tricks = np.where(nil, 0, tricks) @ sides
    over = np.where(made_tricks >= contract, made_tricks - contract, 0)
    taken = over + np.where(nil, tricks, 0) @ sides
    if not rules.bags:
        return np.zeros_like(taken), np.zeros_like(taken)
    return taken, (start_bags + taken) // rules.bag_limit


class _Observer:
    """Builds observations lazily, only for agents that ask for them."""

    def __init__(self, engine: SpadesEngine) -> None:
        self.engine = engine
        self._encoder = None

    def __call__(self, agent: Agent, state, games: np.ndarray, seats: np.ndarray):
        if not getattr(agent, "uses_observations", False):
            return None
        if self._encoder is None:
            from spades_env.observation import ObservationEncoder  # written alongside; optional

            self._encoder = ObservationEncoder(self.engine)
        return self._encoder.encode(state, games, seats)


def play_games(
    engine: SpadesEngine,
    seeds: np.ndarray,
    seat_agents: np.ndarray,
    agents: list[Agent],
    mode: str,
    on_finish: Callable[[np.ndarray, _Tally, Any], None] | None = None,
    max_hands: int = 1000,
) -> tuple[_Tally, np.ndarray]:
    """Play G games (one per seed) to the end of their first hand or match, all in one batch.

    seat_agents: (G, N) int64 index into ``agents`` of the bot in each seat.
    ``on_finish(games, tally, state)`` is called with the global indices of the games
    that finished in a step, in index order. Returns the tallies and the winners
    ((G,) int64 side, -1 in hand mode).
    """
    for agent in agents:
        agent.check_supports(engine)
    g_all = len(seeds)
    state = engine.reset(seeds)
    tally = _Tally(g_all, engine.n_sides)
    winners = np.full(g_all, -1, dtype=np.int64)
    active = np.ones(g_all, dtype=bool)
    observe = _Observer(engine)
    # The batch keeps its size to the end (no take/put of shrinking subsets): bots see
    # only the live games, finished ones are stepped with a legal filler action (hand
    # mode) or skipped by the engine (a finished match), and their results ignored.
    while active.any():
        live = np.flatnonzero(active)
        masks = engine.legal_action_mask(state)
        actions = np.argmax(masks, axis=1)
        seats = state.to_move[live]
        owner = seat_agents[live, seats]
        for k, agent in enumerate(agents):
            sel = np.flatnonzero(owner == k)
            if len(sel) == 0:
                continue
            games, who = live[sel], seats[sel]
            ctx = DecisionContext(engine, state, games, who)
            actions[games] = agent.act(observe(agent, state, games, who), masks[games], ctx)
        ok = masks[live, actions[live]]
        if not ok.all():  # let the engine name the illegal action and the legal ones
            bad = live[~ok][:1]
            engine.step(state.take(bad), actions[bad])
        result = engine.step(state, actions, validate=False)
        if not result.finished:
            continue
        for f in result.finished:
            keep = active[f.games]
            if keep.any():
                sub = FinishedHands(**{k: getattr(f, k)[keep] for k in f.__dataclass_fields__})
                tally.add(engine, f.games[keep], sub)
        done_now = (result.match_done if mode == "match" else result.hand_done) & active
        done = np.flatnonzero(done_now)
        winners[done] = state.winner[done]
        if mode == "match":
            stuck = np.flatnonzero(active & (tally.hands >= max_hands) & ~done_now)
            if len(stuck):
                raise RuntimeError(f"games {stuck.tolist()} passed {max_hands} hands without a winner")
        active[done] = False
        if on_finish is not None and len(done):
            on_finish(done, tally, state)
    if mode == "hand":
        winners[:] = -1
    return tally, winners


# ---------------------------------------------------------------------------- log
class TournamentLog:
    """Append-only JSONL log: a header line, then one line per finished game."""

    def __init__(self, path: str | Path | None, config: TournamentConfig, fresh: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.config = config
        self.records: list[dict[str, Any]] = []
        self.done: set[tuple[int, int, int]] = set()
        if self.path is None:
            return
        if fresh and self.path.exists():
            self.path.unlink()
        if self.path.exists() and self.path.stat().st_size > 0:
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            header = {"type": "header", "version": LOG_VERSION, "config": config.to_dict()}
            self.path.write_text(json.dumps(header) + "\n")

    def _load(self) -> None:
        assert self.path is not None
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        good = 0  # bytes of complete, valid lines
        parsed = []
        for line in lines[:-1]:
            try:
                parsed.append(json.loads(line))
            except json.JSONDecodeError:
                break
            good += len(line) + 1
        if good < len(raw):  # a line cut short by a kill: drop it
            with self.path.open("r+b") as fh:
                fh.truncate(good)
        if not parsed or parsed[0].get("type") != "header":
            raise ValueError(f"{self.path}: not a tournament log (no header line); use a new path or --fresh")
        if parsed[0]["config"] != self.config.to_dict():
            raise ValueError(
                f"{self.path}: the log was written by a different tournament config "
                f"{parsed[0]['config']}; this run is {self.config.to_dict()}. Use --fresh or another --log."
            )
        for rec in parsed[1:]:
            self._remember(rec)

    def _remember(self, rec: dict[str, Any]) -> None:
        self.records.append(rec)
        self.done.add((rec["pair_index"], rec["board"], rec["seating"]))

    def append(self, recs: list[dict[str, Any]]) -> None:
        """Write finished games (and keep them in memory)."""
        new = [r for r in recs if (r["pair_index"], r["board"], r["seating"]) not in self.done]
        for r in new:
            self._remember(r)
        if self.path is not None and new:
            with self.path.open("a") as fh:
                fh.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in new))


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
) -> dict[str, Any]:
    """Play (or resume) a tournament and return its report (see ``summarize``).

    ``stop_after`` stops after that many newly logged games by raising
    ``StopTournament`` (a stand-in for a kill, used by tests).
    """
    rules = resolve_rules(config.rules)
    engine = SpadesEngine(rules)
    log = TournamentLog(log_path, config, fresh=fresh)
    make = agent_factory or (lambda spec, seed: make_agent(spec, seed=seed))
    for spec in config.bots:
        make(spec, 0).check_supports(engine)
    lineup = seatings(rules)
    labels = config.labels
    n_chunks = math.ceil(config.boards / config.chunk)
    total = len(config.pairs) * config.boards * len(lineup)
    bar = _progress(total, len(log.done), progress)
    written = [0]
    try:
        for p, (i, j) in enumerate(config.pairs):
            for c in range(n_chunks):
                boards = np.arange(c * config.chunk, min((c + 1) * config.chunk, config.boards))
                keys = {(p, int(b), k) for b in boards for k in range(len(lineup))}
                if keys <= log.done:
                    continue
                agents = [
                    make(config.bots[i], _agent_seed(config, p, c, 0)),
                    make(config.bots[j], _agent_seed(config, p, c, 1)),
                ]
                board_of = np.repeat(boards, len(lineup))
                seating_of = np.tile(np.arange(len(lineup)), len(boards))
                seeds = board_seeds(config, board_of)

                def finish(done, tally, state, p=p, board_of=board_of, seating_of=seating_of, seeds=seeds, pair=(i, j)):
                    recs = [
                        _record(
                            config,
                            rules,
                            p,
                            pair,
                            labels,
                            lineup,
                            int(board_of[x]),
                            int(seating_of[x]),
                            int(seeds[x]),
                            tally,
                            x,
                            int(state.winner[x]) if config.mode == "match" else -1,
                        )
                        for x in done
                    ]
                    new = [r for r in recs if (r["pair_index"], r["board"], r["seating"]) not in log.done]
                    if stop_after is not None and written[0] + len(new) >= stop_after:
                        log.append(new[: stop_after - written[0]])
                        raise StopTournament(f"stopped after {stop_after} new games")
                    log.append(new)
                    written[0] += len(new)
                    if bar is not None:
                        bar.update(len(new))

                play_games(engine, seeds, lineup[seating_of], agents, config.mode, on_finish=finish)
    finally:
        if bar is not None:
            bar.close()
    return summarize(config, log.records)


def _progress(total: int, initial: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=initial, unit="game", desc="tournament", leave=False)


def _record(config, rules, p, pair, labels, lineup, board, seating, seed, tally: _Tally, x, winner) -> dict[str, Any]:
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


# ---------------------------------------------------------------------------- report
def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% confidence interval."""
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return float("nan"), float("nan")
    if len(values) < 2:
        return float(values.mean()), float("inf")
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(len(values)))


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


STAT_KEYS = ("contracts", "sets", "bags", "nil_bids", "nil_made")


def _ratio(num: float, den: float) -> float | None:
    """num / den, or None (JSON null) when den is 0."""
    return float(num / den) if den else None


def summarize(config: TournamentConfig, records: list[dict[str, Any]]) -> dict[str, Any]:
    """The report of a tournament from its game records (any order).

    Ratings: one OpenSkill (Plackett-Luce) update per board, ranking the two bots by
    their duplicate result on that board (the seatings of a board together), in
    (pair, board) order.
    """
    from openskill.models import PlackettLuce

    labels = config.labels
    lower = resolve_rules(config.rules).hearts  # Hearts: fewer points is better
    sign = -1.0 if lower else 1.0
    recs = sorted(records, key=lambda r: (r["pair_index"], r["board"], r["seating"]))
    totals = {name: {k: 0.0 for k in ("hands", "points", "raw", "games", "wins", *STAT_KEYS)} for name in labels}
    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in labels}
    pairs_out = []
    for p, (i, j) in enumerate(config.pairs):
        a, b = labels[i], labels[j]
        rs = [r for r in recs if r["pair_index"] == p]
        if not rs:
            continue
        hands = np.array([max(r["hands"], 1) for r in rs], dtype=float)
        board = np.array([r["board"] for r in rs])
        owner_a = np.array([[who == a for who in r["sides"]] for r in rs])  # (G, S)
        adjusted = np.array([r["adjusted"] for r in rs], dtype=float)
        raw = np.array([r["points"] for r in rs], dtype=float)
        stats = {k: np.array([r[k] for r in rs], dtype=float) for k in STAT_KEYS}
        mean_pts = {}
        for name, own in ((a, owner_a), (b, ~owner_a)):
            n_own = own.sum(axis=1)
            pts = (adjusted * own).sum(axis=1)
            mean_pts[name] = pts / (hands * n_own)
            t = totals[name]
            t["hands"] += float((hands * n_own).sum())
            t["points"] += float(pts.sum())
            t["raw"] += float((raw * own).sum())
            t["games"] += len(rs)
            for k in STAT_KEYS:
                t[k] += float((stats[k] * own).sum())
        game_diff = mean_pts[a] - mean_pts[b]
        boards, inverse = np.unique(board, return_inverse=True)
        diffs = np.bincount(inverse, weights=game_diff) / np.bincount(inverse)
        mean, half = mean_ci(diffs)
        if config.mode == "match":
            winner_is_a = np.array([r["winner"] >= 0 and r["sides"][r["winner"]] == a for r in rs])
            winner_is_b = np.array([r["winner"] >= 0 and r["sides"][r["winner"]] == b for r in rs])
        else:
            winner_is_a, winner_is_b = sign * game_diff > 0, sign * game_diff < 0
        wins = {a: int(winner_is_a.sum()), b: int(winner_is_b.sum())}
        wins["tie"] = len(rs) - wins[a] - wins[b]
        totals[a]["wins"] += wins[a]
        totals[b]["wins"] += wins[b]
        for d in diffs:
            ranks = [0, 0] if d == 0 else ([0, 1] if sign * d > 0 else [1, 0])
            (ra,), (rb,) = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
        pph = {
            a: _ratio((adjusted * owner_a).sum(), (hands[:, None] * owner_a).sum()),
            b: _ratio((adjusted * ~owner_a).sum(), (hands[:, None] * ~owner_a).sum()),
        }
        pairs_out.append(
            {
                "a": a,
                "b": b,
                "games": len(rs),
                "boards": len(boards),
                "points_per_hand": pph,
                "diff": mean,
                "diff_ci95": half,
                "game_wins": wins,
                "win_rate_a": _ratio(wins[a], len(rs)),
                "board_wins": {
                    a: int(np.sum(sign * diffs > 0)),
                    b: int(np.sum(sign * diffs < 0)),
                    "tie": int(np.sum(diffs == 0)),
                },
            }
        )
    bots_out = []
    for name in labels:
        t = totals[name]
        rating = ratings[name]
        bots_out.append(
            {
                "bot": name,
                "games": int(t["games"]),
                "hands": int(t["hands"]),
                "points_per_hand": _ratio(t["points"], t["hands"]),
                "raw_points_per_hand": _ratio(t["raw"], t["hands"]),
                "win_rate": _ratio(t["wins"], t["games"]),
                "set_rate": _ratio(t["sets"], t["contracts"]),
                "bags_per_hand": _ratio(t["bags"], t["hands"]),
                "nil_bids": int(t["nil_bids"]),
                "nil_success": _ratio(t["nil_made"], t["nil_bids"]),
                "mu": rating.mu,
                "sigma": rating.sigma,
                "ordinal": rating.ordinal(),
            }
        )
    return {
        "config": config.to_dict(),
        "games": len(recs),
        "lower_is_better": lower,
        "pairs": pairs_out,
        "bots": bots_out,
    }


def write_json(report: dict[str, Any], path: str | Path) -> None:
    """Write the report as JSON."""
    Path(path).write_text(json.dumps(report, indent=2, default=float) + "\n")


def write_csv(report: dict[str, Any], path: str | Path) -> list[Path]:
    """Write ``<path>`` (one row per pair) and ``<stem>_bots.csv`` (one row per bot)."""
    path = Path(path)
    bots_path = path.with_name(path.stem + "_bots.csv")
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                "a",
                "b",
                "games",
                "boards",
                "a_points_per_hand",
                "b_points_per_hand",
                "diff",
                "diff_ci95",
                "win_rate_a",
                "board_wins_a",
                "board_wins_b",
                "board_ties",
            ]
        )
        for p in report["pairs"]:
            pph = p["points_per_hand"]
            w.writerow(
                [
                    p["a"],
                    p["b"],
                    p["games"],
                    p["boards"],
                    pph[p["a"]],
                    pph[p["b"]],
                    p["diff"],
                    p["diff_ci95"],
                    p["win_rate_a"],
                    p["board_wins"][p["a"]],
                    p["board_wins"][p["b"]],
                    p["board_wins"]["tie"],
                ]
            )
    with bots_path.open("w", newline="") as fh:
        keys = list(report["bots"][0])
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(report["bots"])
    return [path, bots_path]


def report_console(console=None):
    """``console``, or a new rich console: the terminal's, or 160 columns wide for logs and pipes
    (wide enough that no column of the report tables is cut)."""
    from rich.console import Console

    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=160)
    return console


def print_report(report: dict[str, Any], console=None) -> None:
    """Print the report as rich tables."""
    from rich.table import Table

    console = report_console(console)
    cfg = report["config"]
    unit = "board" if cfg["mode"] == "hand" else "match"
    lower = report.get("lower_is_better", False)
    title = f"Duplicate {cfg['mode']} tournament: {cfg['rules']}, {cfg['boards']} boards, seed {cfg['seed']}"
    if lower:
        title += " (Hearts: points are penalties, lower is better; A wins a board when A - B < 0)"
    t = Table(title=title)
    diff_col = "A - B per hand (95% CI" + ("; lower is better)" if lower else ")")
    for col in ("A", "B", "games", "A pts/hand", "B pts/hand", diff_col, f"A {unit} wins"):
        t.add_column(col, justify="right" if col not in ("A", "B") else "left")
    for p in report["pairs"]:
        pph = p["points_per_hand"]
        wins = p["game_wins"] if cfg["mode"] == "match" else p["board_wins"]
        n = sum(wins.values())
        t.add_row(
            p["a"],
            p["b"],
            str(p["games"]),
            _fmt(pph[p["a"]], ".1f"),
            _fmt(pph[p["b"]], ".1f"),
            f"{p['diff']:+.1f} ± {p['diff_ci95']:.1f}",
            f"{wins[p['a']] / n:.0%} ({wins['tie']} tied)" if n else "-",
        )
    console.print(t)
    t = Table(
        title="Bots (Hearts points, lower is better; rating: OpenSkill Plackett-Luce)"
        if lower
        else "Bots (points are bag-adjusted; rating: OpenSkill Plackett-Luce)"
    )
    for col in (
        "bot",
        "hands",
        "pts/hand",
        "raw pts/hand",
        "set rate",
        "bags/hand",
        "nil bids",
        "nil made",
        "mu",
        "sigma",
        "ordinal",
    ):
        t.add_column(col, justify="left" if col == "bot" else "right")
    for b in report["bots"]:
        t.add_row(
            b["bot"],
            str(b["hands"]),
            _fmt(b["points_per_hand"], ".1f"),
            _fmt(b["raw_points_per_hand"], ".1f"),
            _fmt(b["set_rate"], ".0%"),
            _fmt(b["bags_per_hand"], ".2f"),
            str(b["nil_bids"]),
            _fmt(b["nil_success"], ".0%"),
            f"{b['mu']:.1f}",
            f"{b['sigma']:.1f}",
            f"{b['ordinal']:.1f}",
        )
    console.print(t)


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
    "MODES",
    "StopTournament",
    "TournamentConfig",
    "TournamentLog",
    "benchmark_heuristic",
    "board_seeds",
    "demo_config",
    "mean_ci",
    "play_games",
    "print_report",
    "run_tournament",
    "seatings",
    "summarize",
    "write_csv",
    "write_json",
]
