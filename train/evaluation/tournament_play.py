"""Playing duplicate games in one engine batch: the bots act on the games they sit in, tallies per side.

``play_games`` is the tournament's inner loop (``train/evaluation/tournament.py``); ``GameTally`` sums
each side's points, bag-adjusted points, contracts, sets, bags and nils from the engine's
``FinishedHands`` (which carry the hand's bags and bag penalties) [RULES 3]; the bag-adjusted
points are the game's (``engine.spec.adjusted_points``: in Spades ``games.spades.scoring.bag_adjusted_points``;
in Hearts the points as they are), shared by every report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from agents.base import Agent
from agents.builtin_bots import decision_context
from spades_env.engine import FinishedHands, SpadesEngine, records


class GameTally:
    """Per-game, per-side running totals while games play: (G, S) int64 each, ``hands`` (G,)."""

    def __init__(self, g: int, s: int) -> None:
        z = lambda: np.zeros((g, s), dtype=np.int64)  # noqa: E731
        self.points, self.adjusted, self.contracts, self.sets = z(), z(), z(), z()
        self.bags, self.nil_bids, self.nil_made = z(), z(), z()
        self.hands = np.zeros(g, dtype=np.int64)

    def add(self, engine: SpadesEngine, games: np.ndarray, f: FinishedHands) -> None:
        """Add the finished hands ``f`` of the given global games.

        Bag-adjusted points put back the hand's bag penalties and charge every bag taken
        ``bag_penalty / bag_limit`` points (the engine's breakdown: ``f.bag_penalties``,
        ``f.bags_added``) [RULES 3]. The contracts, sets, bags and nils are the game's
        (``spec.contract_counts``): Hearts (points as they are, lower is better) has none: those tallies stay 0.
        """
        self.points[games] += f.delta
        adjusted = engine.spec.adjusted_points(engine.rules, f)
        self.adjusted[games] += np.rint(adjusted).astype(np.int64)
        self.hands[games] += 1
        counts = engine.spec.contract_counts(engine.facts, f)
        for name, count in (counts or {}).items():
            getattr(self, name)[games] += count


class Observer:
    """Builds observations lazily, only for agents that ask for them."""

    def __init__(self, engine: SpadesEngine) -> None:
        self.engine = engine
        self._encoder = None

    def __call__(self, agent: Agent, state, games: np.ndarray, seats: np.ndarray):
        if not getattr(agent, "uses_observations", False):
            return None
        if self._encoder is None:
            from spades_env.observation import encoder_for  # written alongside; optional

            self._encoder = encoder_for(self.engine)
        return self._encoder.encode(state, games, seats)


def decision_groups(agents: list[Agent]) -> list[tuple[Agent, list[int]]]:
    """The agents as groups that decide alike, each (the agent that acts for the group, the indices of its
    agents): agents with equal ``decision_key()`` (not None) make the same decision in every position
    (deterministic bots with the same options, e.g. two ``HeuristicAgent``), so one call decides for all
    their seats; every other agent is a group of its own."""
    groups: list[tuple[Agent, list[int]]] = []
    by_key: dict = {}
    for k, agent in enumerate(agents):
        key_of = getattr(agent, "decision_key", None)
        key = key_of() if callable(key_of) else None
        if key is not None and key in by_key:
            groups[by_key[key]][1].append(k)
            continue
        if key is not None:
            by_key[key] = len(groups)
        groups.append((agent, [k]))
    return groups


def _decide(engine, state, deciders, group_of_seat, observe, live: np.ndarray, masks, actions: np.ndarray) -> None:
    """Write into ``actions`` each live game's decision by the bot group playing the seat to move (each group
    decides its games in one batched call, from its seats' view)."""
    all_live = len(live) == len(actions)
    seats = state.to_move[live]
    owner = group_of_seat[live, seats] if len(deciders) > 1 else None
    for k, (agent, _) in enumerate(deciders):
        if owner is None:  # one group decides every live game
            games, who, rows = live, seats, masks if all_live else masks[live]
        else:
            sel = np.flatnonzero(owner == k)
            if len(sel) == 0:
                continue
            games, who = live[sel], seats[sel]
            rows = masks[games]
        ctx = decision_context(agent, engine, state, games, who)  # the seats' view: what they may know
        actions[games] = agent.act(observe(agent, ctx.state, ctx.games, who), rows, ctx)


def _tally_finished(engine, finished, active: np.ndarray, tally: GameTally, hand_records) -> None:
    """Add the hands finished in a step by games still played to ``tally`` (and their records to ``hand_records``)."""
    for f in finished:
        keep = active[f.games]
        if not keep.any():
            continue
        sub = f if keep.all() else f.take(keep)
        tally.add(engine, sub.games, sub)
        if hand_records is not None:
            for g, rec in zip(sub.games.tolist(), records.hand_records(engine, sub), strict=True):
                hand_records[g].append(rec)


def play_games(
    engine: SpadesEngine,
    seeds: np.ndarray,
    seat_agents: np.ndarray,
    agents: list[Agent],
    mode: str,
    on_finish: Callable[[np.ndarray, GameTally, Any], None] | None = None,
    hand_records: list[list[dict[str, Any]]] | None = None,
    max_hands: int = 1000,
) -> tuple[GameTally, np.ndarray]:
    """Play G games (one per seed) to the end of their first hand or match, all in one batch.

    seat_agents: (G, N) int64 index into ``agents`` of the bot in each seat.
    ``on_finish(games, tally, state)`` is called with the global indices of the games
    that finished in a step, in index order. ``hand_records``, a list of G lists: each
    finished hand's JSON game record (``spades_env.engine.records``) is appended to its game's.
    Returns the tallies and the winners ((G,) int64 side, -1 in hand mode).
    """
    for agent in agents:
        agent.check_supports(engine)
    deciders = decision_groups(agents)
    g_all = len(seeds)
    state = engine.reset(seeds)
    tally = GameTally(g_all, engine.n_sides)
    winners = np.full(g_all, -1, dtype=np.int64)
    active = np.ones(g_all, dtype=bool)
    observe = Observer(engine)
    # The batch keeps its size to the end (no take/put of shrinking subsets): bots see
    # only the live games, finished ones are stepped with a legal filler action (hand
    # mode) or skipped by the engine (a finished match), and their results ignored.
    group_of_agent = np.empty(len(agents), dtype=np.int64)
    for i, (_, members) in enumerate(deciders):
        group_of_agent[members] = i
    group_of_seat = group_of_agent[seat_agents]  # (G, N): the decision group playing each seat
    every_game = np.arange(g_all)
    while active.any():
        live = np.flatnonzero(active)
        all_live = len(live) == g_all
        masks = engine.legal_action_mask(state)
        actions = np.zeros(g_all, dtype=np.int64)
        if not all_live:  # a legal filler for the finished games (hand mode), whose results are ignored
            done_games = np.flatnonzero(~active)
            actions[done_games] = np.argmax(masks[done_games], axis=1)
        _decide(engine, state, deciders, group_of_seat, observe, live, masks, actions)
        ok = masks[every_game, actions] if all_live else masks[live, actions[live]]
        if not ok.all():  # let the engine name the illegal action and the legal ones
            bad = live[~ok][:1]
            engine.step(state.take(bad), actions[bad])
        result = engine.step(state, actions, validate=False)
        if not result.finished:
            continue
        _tally_finished(engine, result.finished, active, tally, hand_records)
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
