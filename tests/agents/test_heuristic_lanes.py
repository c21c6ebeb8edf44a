"""The compiled card helpers of the heuristic bots (``agents.heuristic_lanes``) against plain Python."""

from __future__ import annotations

import ast

import numpy as np

from agents import heuristic_lanes as lanes
from spades_env import cards
from tests.paths import ROOT

LANE_VALUES = range(1 << lanes.LANE_BITS)


def test_count_highest_lowest_and_above_on_every_lane():
    for v in LANE_VALUES:
        ranks = [r for r in range(lanes.LANE_BITS) if v >> r & 1]
        assert lanes.count(v) == len(ranks)
        assert lanes.highest(v) == (max(ranks) if ranks else -1)
        assert lanes.lowest(v) == (min(ranks) if ranks else -1)
    for r in range(-1, lanes.LANE_BITS):
        assert lanes.above(r) == sum(1 << s for s in range(r + 1, lanes.LANE_BITS))


def test_lanes_of_a_mask_and_of_mask_flags_put_the_jokers_on_top_of_spades():
    rng = np.random.default_rng(0)
    for _ in range(200):
        ids = rng.choice(cards.N_CARD_IDS, size=rng.integers(0, 20), replace=False)
        flags = np.zeros(cards.N_CARD_IDS + 3, dtype=bool)
        flags[ids] = True
        want = [0, 0, 0, 0]
        for c in ids.tolist():
            want[lanes.suit_of(c)] |= 1 << lanes.rank_of(c)
        mask = np.uint64(cards.cards_to_mask(ids.tolist()))
        assert lanes.lanes_of(mask) == tuple(want)
        assert lanes.lanes_of_flags(flags, cards.N_CARD_IDS) == tuple(want)
        assert lanes.mask_of_flags(flags, cards.N_CARD_IDS) == mask
    assert (lanes.suit_of(52), lanes.rank_of(52), lanes.suit_of(53), lanes.rank_of(53)) == (3, 13, 3, 14)


def test_lowest_and_highest_card_pick_by_value_first_suit_on_a_tie():
    rng = np.random.default_rng(1)
    for _ in range(500):
        hand = tuple(int(x) for x in rng.integers(0, 1 << 15, size=4) * (rng.random(4) < 0.6))
        held = [(s, r) for s in range(4) for r in range(15) if hand[s] >> r & 1]
        extra = int(rng.choice([13, -50]))
        if not held:
            assert lanes.lowest_card(hand) == (0, False) and lanes.highest_card(hand, extra) == (0, False)
            continue
        low = min(held, key=lambda sr: (sr[1] + 13 * (sr[0] == 3), sr[0]))
        high = max(held, key=lambda sr: (sr[1] + extra * (sr[0] == 3), -sr[0]))
        high_rank = max(r for s, r in held if s == high[0])
        assert lanes.lowest_card(hand) == (low[0] * 13 + low[1], True)
        assert lanes.highest_card(hand, extra) == (high[0] * 13 + high_rank, True)


def test_the_two_heuristic_modules_do_not_import_each_other():
    root = ROOT / "agents"

    def imports(name):
        tree = ast.parse((root / f"{name}.py").read_text())
        return {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}

    assert not {"agents.heuristic", "agents.spades.heuristic"} & imports("hearts/heuristic")
    assert not {"agents.heuristic", "agents.hearts.heuristic"} & imports("spades/heuristic")
    kernels = ("heuristic_lanes", "spades/heuristic_kernel", "spades/heuristic_play", "hearts/heuristic_kernel")
    for name in kernels:
        assert not {"agents.heuristic", "agents.hearts.heuristic", "agents.spades.heuristic"} & imports(name), name
