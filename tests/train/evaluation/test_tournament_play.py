"""The tournament's inner loop (``train.evaluation.tournament_play``): bots that decide alike share one call.

``decision_groups`` lets one of several identical deterministic bots (equal ``decision_key()``)
decide for all their seats; the games, tallies, winners and hand records must be exactly those
of one call per bot.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent
from spades_env import SpadesEngine
from train.evaluation.tournament_play import decision_groups, play_games


class _Subclass(HeuristicAgent):
    pass


def test_identical_heuristics_share_a_group_and_others_do_not():
    same_a, same_b = HeuristicAgent(seed=0), HeuristicAgent(seed=1)
    other = HeuristicAgent(set_opponents=1)
    random_bot, sub = RandomAgent(seed=0), _Subclass()
    groups = decision_groups([same_a, other, same_b, random_bot, sub])
    assert [(agent, members) for agent, members in groups] == [
        (same_a, [0, 2]),
        (other, [1]),
        (random_bot, [3]),
        (sub, [4]),
    ]
    same_b.bid_bias = 0.3  # an option changed: no longer the same decisions
    assert [members for _, members in decision_groups([same_a, same_b])] == [[0], [1]]


def _play(engine, agents, mode, seeds, grouped):
    n = engine.n_players  # every game its own seating of the bots
    seat_agents = (np.arange(len(seeds))[:, None] + np.arange(n)[None, :]) % len(agents)
    records = [[] for _ in seeds]
    finished = []
    if not grouped:
        for agent in agents:
            agent.decision_key = lambda: None  # every bot its own call, as before the groups
    tally, winners = play_games(
        engine, seeds, seat_agents, agents, mode, on_finish=lambda g, t, s: finished.append(g.tolist()),
        hand_records=records,
    )  # fmt: skip
    return vars(tally), winners, records, finished


@pytest.mark.parametrize(
    ("rules", "mode", "bots"),
    [
        ("partnership", "hand", "hh"),
        ("partnership-250", "match", "hhr"),
        ("hearts-50", "match", "hh"),
        ("cutthroat-3", "hand", "hhh"),
        ("two-player", "match", "hh"),
    ],
)
def test_grouped_calls_play_the_games_of_one_call_per_bot(rules, mode, bots):
    engine = SpadesEngine(rules)
    seeds = np.arange(24) + 100

    def agents():
        made = {"h": HeuristicAgent, "r": lambda seed: RandomAgent(seed=seed)}
        return [made[b](seed=k) for k, b in enumerate(bots)]

    grouped = _play(engine, agents(), mode, seeds, grouped=True)
    alone = _play(engine, agents(), mode, seeds, grouped=False)
    for a, b in zip(grouped[0].values(), alone[0].values(), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(grouped[1], alone[1])
    assert grouped[2] == alone[2] and grouped[3] == alone[3]
    assert sum(grouped[0]["hands"]) >= len(seeds)
