"""``FinishedHands`` carries the hand's score breakdown: bags added, bag penalties, nil results.

Each field is checked against an independent recomputation by the reference engine
(``spades_env.games.spades.reference.SpadesReferenceGame``) from the hand's bids, blind nils, tricks and the
bags before it, on random games that start near the bag limit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spades_env.cards import mask_to_cards
from spades_env.engine import FinishedHands, SpadesEngine
from spades_env.games.spades.reference import SpadesReferenceGame
from spades_env.rules import Rules

PARTNERSHIP = Rules.preset("partnership")
RULE_SETS = [
    PARTNERSHIP.replace(name="small-bags", bag_limit=3, bag_penalty=50),
    Rules.preset("cutthroat-4"),
    Rules.preset("two-player"),
    Rules.preset("partnership-house"),  # Bemo, Boston, 10 for 200
    PARTNERSHIP.replace(name="short-sets", set_penalty="short", bag_limit=4, bag_penalty=40),
]


def play_one_hand(rules: Rules, seeds: np.ndarray, start_bags: np.ndarray, policy_seed: int) -> FinishedHands:
    """The finished hand of each game (random legal play from the given bags), joined in game order."""
    engine = SpadesEngine(rules)
    state = engine.reset(seeds, bags=start_bags if engine.spec.max_bags(rules) else None)
    rng = np.random.default_rng(policy_seed)
    finished, pending = [], np.ones(len(seeds), bool)
    while pending.any():  # a match may end with its first hand: auto_reset goes on, its later hands are left out
        result = engine.step(state, engine.random_actions(state, rng), auto_reset=True)
        for f in result.finished:
            keep = pending[f.games]
            finished.append(f.take(keep))
        pending &= ~result.hand_done
    order = np.argsort(np.concatenate([f.games for f in finished]))
    names = [x.name for x in dataclasses.fields(finished[0])]  # the game's (Spades') finished hands
    return type(finished[0])(**{k: np.concatenate([getattr(f, k) for f in finished])[order] for k in names})


def reference_breakdown(rules: Rules, f: FinishedHands, i: int) -> dict[str, list]:
    """The reference engine's score of hand ``i`` of ``f``, from its bids, tricks and start bags."""
    deal = (
        {"pile": f.pile[i].tolist()} if rules.n_players == 2 else {"hands": [mask_to_cards(int(m)) for m in f.deal[i]]}
    )
    # Face-up cards and weak-hand redeals play no part in scoring: the reference deals without them.
    ref_rules = rules.replace(face_up_deal=False, misdeal_weak_hand=False)
    ref = SpadesReferenceGame(
        ref_rules, dealer=int(f.dealer[i]), scores=f.start_scores[i].tolist(), bags=f.start_bags[i].tolist(), **deal
    )
    ref.bids, ref.blind = f.bids[i].tolist(), f.blind[i].tolist()
    ref.tricks_won, ref.trick_winners = f.tricks_won[i].tolist(), f.trick_winners[i].tolist()
    ref.bemo = [int(b) if b > 0 else None for b in f.bemo[i]]
    before = [ref.side_points(side) for side in range(ref.n_sides)]  # points before bags, bags taken, Boston
    ref.score_hand()
    added = [taken if rules.bags else 0 for _, taken, _ in before]
    penalties = [
        (points - after) // rules.bag_penalty for (points, _, _), after in zip(before, ref.last_points, strict=True)
    ]
    nil = [bid == 0 for bid in ref.bids]
    return {
        "bags_added": added,
        "bag_penalties": penalties,
        "nil_made": [n and won == 0 for n, won in zip(nil, ref.tricks_won, strict=True)],
        "nil_failed": [n and won > 0 for n, won in zip(nil, ref.tricks_won, strict=True)],
        "delta": ref.last_points,
        "bags": ref.bags,
    }


def check_breakdown(rules: Rules, f: FinishedHands) -> None:
    for i in range(len(f.games)):
        expected = reference_breakdown(rules, f, i)
        for name, value in expected.items():
            assert getattr(f, name)[i].tolist() == value, (name, i)
    limit = rules.bag_limit if rules.bags else 0
    np.testing.assert_array_equal(f.bags, f.start_bags + f.bags_added - f.bag_penalties * limit)
    for name, dtype in (
        ("bags_added", np.int64),
        ("bag_penalties", np.int64),
        ("nil_made", bool),
        ("nil_failed", bool),
    ):
        assert getattr(f, name).dtype == dtype, name
    assert f.bags_added.shape == f.bag_penalties.shape == f.delta.shape
    assert f.nil_made.shape == f.nil_failed.shape == f.bids.shape


@pytest.mark.parametrize("rules", RULE_SETS, ids=[r.name for r in RULE_SETS])
@settings(max_examples=6, deadline=None)
@given(first_seed=st.integers(0, 2**40), policy_seed=st.integers(0, 2**31), bags_seed=st.integers(0, 2**31))
def test_the_breakdown_equals_the_reference_engines_score(rules, first_seed, policy_seed, bags_seed):
    engine = SpadesEngine(rules)
    start_bags = np.random.default_rng(bags_seed).integers(0, rules.bag_limit, (6, engine.n_sides))
    check_breakdown(rules, play_one_hand(rules, first_seed + np.arange(6), start_bags, policy_seed))


def test_a_seeded_batch_has_penalties_made_and_failed_nils_and_blind_nils():
    """The property above is not vacuous: penalties, made and failed nils and blind nils all occur."""
    rules = RULE_SETS[0]
    start_bags = np.full((128, 2), rules.bag_limit - 1)
    f = play_one_hand(rules, np.arange(128), start_bags, 1)
    check_breakdown(rules, f)
    assert (f.bag_penalties > 0).any() and (f.bag_penalties == 0).any()
    assert (f.nil_made & ~f.blind).any() and (f.nil_failed & ~f.blind).any()
    assert (f.nil_made & f.blind).any() and (f.nil_failed & f.blind).any()


def test_without_bags_nothing_is_added_and_no_penalty_applies():
    rules = PARTNERSHIP.replace(name="no-bags", bags=False)
    f = play_one_hand(rules, np.arange(32), np.zeros((32, 2), np.int64), 2)
    check_breakdown(rules, f)
    assert not f.bags_added.any() and not f.bag_penalties.any()
    assert f.nil_made.any() or f.nil_failed.any()  # nils are still scored


@pytest.mark.parametrize("preset", ["hearts", "hearts-partnership"])
def test_hearts_finished_hands_have_no_bids_bags_or_nils(preset):
    """Hearts has no bids, bags or nils: its finished hands have no such field (its points are its own)."""
    rules = Rules.preset(preset)
    engine = SpadesEngine(rules)
    f = play_one_hand(rules, np.arange(4), np.zeros((4, engine.n_sides), np.int64), 3)
    assert f.delta.any() and f.points_taken.shape == (4, engine.n_players)
    for name in ("bids", "bags_added", "bag_penalties", "nil_made", "nil_failed"):
        with pytest.raises(AttributeError, match=f"a hearts finished hand has no field '{name}'"):
            getattr(f, name)
