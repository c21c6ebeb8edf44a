"""The tournament, bid-bench and PPO figures read the engine's hand breakdown, unchanged; one
``DecisionContext``; the random-legal draws, and RandomAgent's seeded actions, unchanged.

The pinned figures were computed by the code before ``FinishedHands`` carried the breakdown
(each caller then recomputed bags and penalties from bids, tricks and start bags).
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent
from spades_env.engine import SpadesEngine
from spades_env.rules import Rules
from train.evaluation.bid_bench import counting_bidder, play_hands
from train.evaluation.tournament_play import GameTally, play_games

#: Bag penalties are frequent with 3-bag limits (penalty 50: a bag is worth 16.67 points).
SMALL_BAGS = Rules.preset("partnership").replace(name="small-bags", bag_limit=3, bag_penalty=50)
SEEDS = np.arange(12) + 100


def _tally(rules) -> GameTally:
    engine = SpadesEngine(rules)
    seat_agents = (np.arange(engine.n_players)[None, :] + np.arange(len(SEEDS))[:, None]) % 2
    tally, _ = play_games(engine, SEEDS, seat_agents, [HeuristicAgent(), RandomAgent(seed=1)], "hand")
    return tally


def test_tournament_bag_adjusted_points_are_unchanged():
    tally = _tally(SMALL_BAGS)
    assert tally.points.tolist() == [
        [62, -120], [-394, 52], [31, -305], [-267, 13], [42, -325], [-492, 50],
        [42, -80], [-205, -139], [81, -346], [-100, 42], [100, -277], [-319, 23],
    ]  # fmt: skip
    assert tally.adjusted.tolist() == [
        [29, -120], [-394, 19], [14, -338], [-267, 13], [9, -358], [-525, 50],
        [9, -80], [-238, -156], [64, -363], [-100, 9], [100, -277], [-336, 23],
    ]  # fmt: skip
    assert tally.bags.tolist() == [
        [2, 0], [6, 2], [1, 5], [3, 3], [2, 5], [8, 0], [2, 0], [5, 1], [1, 4], [0, 2], [0, 3], [1, 3],
    ]  # fmt: skip
    assert tally.nil_bids.tolist() == [
        [0, 0], [2, 0], [0, 1], [1, 0], [0, 1], [2, 0], [0, 0], [1, 1], [0, 2], [0, 0], [0, 1], [1, 0],
    ]  # fmt: skip
    assert tally.sets.tolist() == [
        [0, 1], [0, 0], [0, 1], [1, 0], [0, 1], [0, 0], [0, 1], [0, 1], [0, 0], [1, 0], [0, 1], [1, 0],
    ]  # fmt: skip


def test_cutthroat_tournament_figures_are_unchanged():
    tally = _tally("cutthroat-4")
    assert tally.adjusted.tolist() == [
        [30, 30, 22, -60], [-80, 40, 11, -7], [30, -100, -8, 70], [-40, 11, -110, 31], [21, 21, 30, 21],
        [-35, 21, -20, 40], [30, -110, -7, -136], [-110, 100, -60, -30], [30, -60, 33, -118],
        [-50, 11, -90, 30], [62, -110, 40, -70], [-100, 40, -90, 41],
    ]  # fmt: skip
    assert tally.bags.tolist() == [
        [0, 0, 2, 0], [0, 0, 1, 3], [0, 0, 2, 0], [0, 1, 0, 1], [1, 1, 0, 1], [5, 1, 0, 0],
        [0, 0, 3, 4], [0, 0, 0, 0], [0, 0, 3, 2], [0, 1, 0, 0], [2, 0, 0, 0], [0, 0, 0, 1],
    ]  # fmt: skip


def test_hearts_tally_keeps_points_as_they_are_and_counts_no_bags_or_nils():
    tally = _tally("hearts")
    assert tally.points.any()
    np.testing.assert_array_equal(tally.adjusted, tally.points)
    assert not (tally.bags.any() or tally.nil_bids.any() or tally.contracts.any() or tally.sets.any())


def test_tally_reads_the_engines_bags_and_penalties():
    """Change the carried breakdown and the tally follows: it no longer recomputes bags."""
    engine = SpadesEngine(SMALL_BAGS)
    state = engine.reset(np.arange(8))
    rng = np.random.default_rng(0)
    while not (result := engine.step(state, engine.random_actions(state, rng))).finished:
        pass
    f = result.finished[0]
    plain, shifted = GameTally(8, 2), GameTally(8, 2)
    plain.add(engine, f.games, f)
    more = dataclasses.replace(f, bags_added=f.bags_added + 3, bag_penalties=f.bag_penalties + 1)
    shifted.add(engine, more.games, more)
    np.testing.assert_array_equal(shifted.bags[f.games] - plain.bags[f.games], 3)
    # one more penalty put back (+50), three more bags charged 50 / 3 each (-50): adjusted is the same
    np.testing.assert_array_equal(shifted.adjusted, plain.adjusted)
    np.testing.assert_array_equal(shifted.points, plain.points)


def test_bid_bench_figures_are_unchanged():
    out = play_hands(SpadesEngine(SMALL_BAGS), SEEDS, np.arange(12) % 2, counting_bidder, HeuristicAgent())
    assert out.points.tolist() == [
        [13.0, 40.0], [18.666666666666664, 8.666666666666664], [20.0, 84.33333333333333],
        [24.333333333333332, 28.666666666666664], [60.0, -7.0], [54.33333333333333, 50.0],
        [50.0, 54.33333333333333], [54.33333333333333, 50.0], [38.666666666666664, 40.0],
        [44.33333333333333, 34.33333333333333], [94.33333333333333, -30.0], [40.0, 38.666666666666664],
    ]  # fmt: skip
    assert out.bags.tolist() == [
        [3, 0], [2, 2], [0, 1], [1, 2], [0, 3], [1, 0], [0, 1], [1, 0], [2, 0], [1, 1], [1, 0], [0, 2],
    ]  # fmt: skip


PPO_SCALARS = {
    "small-bags": {
        "bidding/mean_bid": 6.984861227922624,
        "bidding/set_rate": 0.8035320088300221,
        "bidding/bags_per_hand": 3.73671875,
        "bidding/nil_rate": 0.535546875,
        "bidding/nil_success": 0.029175784099197667,
        "bidding/blind_nil_rate": 0.5015625,
        "bidding/points_per_side_hand": -296.81796875,
        "bidding/hands": 640.0,
    },
    "cutthroat-4": {
        "bidding/mean_bid": 7.148535564853557,
        "bidding/set_rate": 0.7686192468619247,
        "bidding/bags_per_hand": 0.5609375,
        "bidding/nil_rate": 0.06640625,
        "bidding/nil_success": 0.029411764705882353,
        "bidding/blind_nil_rate": 0.0,
        "bidding/points_per_side_hand": -60.81015625,
        "bidding/hands": 640.0,
    },
}


@pytest.mark.parametrize("name", list(PPO_SCALARS))
def test_ppo_logged_bidding_statistics_are_unchanged(name):
    pytest.importorskip("torch")
    from train.ppo.trainer import HandStats

    engine = SpadesEngine(SMALL_BAGS if name == "small-bags" else name)
    state = engine.reset(np.arange(64) + 7)
    rng = np.random.default_rng(3)
    stats = HandStats()
    for _ in range(600):
        for f in engine.step(state, engine.random_actions(state, rng), auto_reset=True).finished:
            stats.add(f, engine.side_of_seat, engine.n_sides)
    assert stats.scalars() == PPO_SCALARS[name]


def test_one_decision_context():
    import agents
    import agents.base
    import spades_env.envs

    assert agents.base.DecisionContext is spades_env.envs.DecisionContext is agents.DecisionContext


def test_one_mask_sampler_for_the_engine_and_the_envs():
    import spades_env
    import spades_env.envs.vector
    from spades_env.engine import sampling

    assert spades_env.sample_legal is spades_env.envs.vector.sample_legal is sampling.sample_legal


#: sha256 of the (300, 16) int64 actions RandomAgent(seed=4) takes in 16 seeded games.
RANDOM_AGENT_ACTIONS = {
    "partnership": "6a7fe0d4d1be98d2979f67be987c9a7b9dbba73bb8272aef0a36504d00d244c8",
    "hearts": "d958a89e75249edc29560c6adda16380672108a0cc23dfa94871a533d79aaaa4",
    "two-player": "5b1906f8f76ac95f479217eb5c6c890e07f233e749d4952e46194d5a09b2be05",
}


@pytest.mark.parametrize("preset", list(RANDOM_AGENT_ACTIONS))
def test_random_agent_plays_the_same_seeded_games(preset):
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(16) + 11)
    agent = RandomAgent(seed=4)
    actions = []
    for _ in range(300):
        a = agent.act(None, engine.legal_action_mask(state))
        actions.append(a)
        engine.step(state, a, auto_reset=True)
    digest = hashlib.sha256(np.stack(actions).astype(np.int64).tobytes()).hexdigest()
    assert digest == RANDOM_AGENT_ACTIONS[preset]


def test_random_agent_refuses_a_row_without_legal_actions():
    masks = np.zeros((2, 5), bool)
    masks[0, 3] = True
    with pytest.raises(ValueError, match="at least one legal action"):
        RandomAgent(seed=0).act(None, masks)
    with pytest.raises(ValueError, match=r"\(B, A\) mask"):
        RandomAgent(seed=0).act(None, np.ones(5, bool))
