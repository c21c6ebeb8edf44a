"""The fast batched engine against the reference engine, state by state (Spades and Hearts).

Random games (biased toward nil, blind nil and low bids) are played through a
``SpadesEngine`` batch of B games and through B reference games fed the same deals (the
game's own: ``SpadesReferenceGame`` or ``HeartsReferenceGame``, ``tests.reference_games``);
at every step the legal masks, the player to move, phases, bids, tricks, trick
winners, scores, bags and the match winner must agree, and ``check_state`` must pass.
What the fast engine draws at random (deals, two-player piles, face-up cards, redeals,
the cards drawn in the two-player exchange) is read from its state and handed to the
reference, so that both play exactly the same games (``tests/crosscheck_helpers.py``).
Targeted starts reach what random play rarely does: a weak-hand redeal, a moon, a match end
in every rule set, the two-player exchange, repeated bag penalties.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spades_env import Rules, SpadesEngine
from spades_env.engine import OVER
from spades_env.games import spec
from spades_env.games.hearts.reference import seat_points
from spades_env.games.hearts.scoring import score_hearts_hand
from tests.crosscheck_helpers import HEARTS_RULES, RULE_IDS, RULE_SETS, VARIANT_BASE, cutthroat, play_and_compare

styles = st.fixed_dictionaries(
    {
        "blind": st.sampled_from([0.0, 0.3, 0.8]),
        "nil": st.sampled_from([0.0, 0.3, 0.6]),
        "low": st.sampled_from([0.2, 0.8, 1.0]),
    }
)


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    batch=st.integers(1, 8),
    first_seed=st.integers(0, 2**31),
    policy_seed=st.integers(0, 2**31),
    style=styles,
)
def test_fast_engine_matches_reference_on_random_games(rules, batch, first_seed, policy_seed, style):
    play_and_compare(rules, list(range(first_seed, first_seed + batch)), policy_seed, style, max_steps=250)


@settings(max_examples=10, deadline=None)
@given(
    rules_index=st.integers(0, len(RULE_SETS) - 1),
    batch=st.integers(1, 8),
    first_seed=st.integers(0, 2**31),
    policy_seed=st.integers(0, 2**31),
    data=st.data(),
)
def test_matches_near_their_end_agree(rules_index, batch, first_seed, policy_seed, data):
    """Start near the target, the mercy score and the bag limit, so that ends, ties and
    bag penalties happen often."""
    rules = RULE_SETS[rules_index]
    s = rules.n_sides
    near = [rules.target_score - 60, rules.target_score - 20, -150, -60, 0, 100]
    # reset refuses scores that already end the match: keep the ones short of the target and the mercy score
    game = spec(rules.game)
    low = -(10**9) if game.mercy_score(rules) is None else game.mercy_score(rules)
    near = [v for v in near if low < v < rules.target_score]
    scores = data.draw(
        st.lists(st.lists(st.sampled_from(near), min_size=s, max_size=s), min_size=batch, max_size=batch)
    )
    max_bags = game.max_bags(rules)  # a rule set without bags keeps none
    bags = data.draw(
        st.lists(st.lists(st.integers(0, max_bags), min_size=s, max_size=s), min_size=batch, max_size=batch)
    )
    dealers = data.draw(st.lists(st.integers(0, rules.n_players - 1), min_size=batch, max_size=batch))
    start = {"scores": scores, "bags": bags, "dealers": dealers}
    if rules.game == "hearts":  # any pass direction
        last = 7 if rules.max_hands is None else min(7, rules.max_hands - 1)  # hands played before the match ends
        start["hand_numbers"] = data.draw(st.lists(st.integers(0, last), min_size=batch, max_size=batch))
    style = {"blind": 0.5, "nil": 0.4, "low": 0.9}
    play_and_compare(rules, list(range(first_seed, first_seed + batch)), policy_seed, style, 400, start)


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_every_rule_set_ends_a_match_alike(rules):
    """Random games rarely reach the end of a match in a few hands: start every side just short of
    the target, so that each rule set's match end (highest or lowest score, ties playing on) is
    compared [RULES 3, 7]."""
    start = {"scores": [[rules.target_score - (1 if rules.game == "hearts" else 10)] * rules.n_sides], "dealers": 1}
    stats = play_and_compare(rules, [11], 5, {"blind": 0.2, "nil": 0.2, "low": 0.2}, 500, start)
    assert stats["matches"] == 1


@pytest.mark.parametrize("rules", [RULE_SETS[0], cutthroat(4, True)], ids=["partnership", "cutthroat-4-bonus"])
def test_long_low_bidding_matches_overflow_bags(rules):
    """Low bids give many bags: whole matches with repeated bag penalties agree."""
    rules = rules.replace(lose_score=None, target_score=250, max_hands=12)
    stats = play_and_compare(rules, list(range(6)), 1, {"blind": 0.0, "nil": 0.1, "low": 1.0}, max_steps=10_000)
    assert stats["hands"] >= 6


def weak_first_deal(rules: Rules) -> list[list[int]]:
    """A deal of the deck in which seat 0 holds a weak hand: its lowest clubs, then diamonds, below
    the jack [RULES 6]; the other seats get the rest in id order."""
    low = [c for c in rules.deck if c // 13 in (0, 1) and c % 13 < 9]
    weak = sorted(low, key=lambda c: (c // 13, c))[: rules.hand_size]
    rest = [c for c in rules.deck if c not in weak]
    k = rules.hand_size
    return [weak] + [rest[i * k : (i + 1) * k] for i in range(rules.n_players - 1)]


WEAK_HAND_RULES = [
    VARIANT_BASE.replace(name="weak", misdeal_weak_hand=True, blind_nil=False, face_up_deal=True, bemo=True),
    Rules.preset("partnership-house"),  # blind nil, Bemo, face-up cards and the weak-hand redeal together
    next(r for r in RULE_SETS if r.name == "cutthroat-5-house"),  # 10-card hands without the twos of C and D
]


@pytest.mark.parametrize("rules", WEAK_HAND_RULES, ids=[r.name for r in WEAK_HAND_RULES])
def test_weak_hand_redeals_agree(rules):
    """Weak hands are rare in random deals: start from one (seat 0, which bids first)."""
    deal = weak_first_deal(rules)
    start = {"deals": [deal] * 6, "dealers": rules.n_players - 1}
    stats = play_and_compare(rules, list(range(6)), 3, {"blind": 0, "nil": 0.2, "low": 0.5}, 120, start)
    assert stats["redeals"] >= 1


def moon_deal() -> list[list[int]]:
    """Seat 0 takes every trick whatever anyone plays: it holds the ace of clubs (the best card of
    the first trick, led by the two of clubs, on which nobody may discard a heart or the queen of
    spades unless it holds nothing else), the ace, king and queen of spades (led next, hearts not
    broken yet), then the nine highest hearts, above the four hearts the others must follow with."""
    seat0 = [12, 49, 50, 51] + list(range(30, 39))  # AC, QS KS AS, 6H .. AH
    rest = [c for c in range(52) if c not in seat0]
    return [seat0, rest[:13], rest[13:26], rest[26:]]


@pytest.mark.parametrize("rules", HEARTS_RULES, ids=[r.name for r in HEARTS_RULES])
def test_moon_shots_agree(rules):
    """A moon is rare in random play: seat 0 shoots it on the fourth hand (no pass) in every game of
    the batch, whatever anyone plays; both engines score it, then play on [RULES 7]."""
    start = {"deals": [moon_deal()] * 4, "dealers": [0, 1, 2, 3], "hand_numbers": 3}
    stats = play_and_compare(rules, list(range(4)), 7, {"blind": 0, "nil": 0, "low": 0}, 60, start)
    assert stats["moons"] == 4


def test_two_player_exchanges_agree():
    rules = Rules.preset("two-player")
    stats = play_and_compare(rules, list(range(8)), 5, {"blind": 0.9, "nil": 0.2, "low": 0.5}, 120)
    assert stats["exchanges"] >= 3


@settings(max_examples=200, deadline=None)
@given(
    rules_index=st.integers(0, len(HEARTS_RULES) - 1),
    owners=st.lists(st.integers(0, 3), min_size=52, max_size=52),
    shooter=st.one_of(st.none(), st.integers(0, 3)),
)
def test_hearts_scoring_agrees_with_the_reference(rules_index, owners, shooter):
    """Who took which card, moons included (rare in random play): both scorings agree."""
    rules = HEARTS_RULES[rules_index]
    if shooter is not None:  # give the shooter every heart and the queen of spades
        owners = [shooter if c // 13 == 2 or c == 49 else o for c, o in enumerate(owners)]
    taken = [{c for c in range(52) if owners[c] == s} for s in range(4)]
    fast = score_hearts_hand(rules, np.array([[sum(1 << c for c in t) for t in taken]], dtype=np.uint64))
    seat = seat_points(rules, taken)
    assert fast.seat_delta[0].tolist() == seat
    assert fast.delta[0].tolist() == [
        sum(seat[s] for s in range(4) if rules.side_of_seat(s) == x) for x in range(rules.n_sides)
    ]


def test_batched_seeds_equal_single_resets():
    """A batch of B seeded games plays exactly the B games reset one at a time."""
    engine = SpadesEngine("partnership")
    seeds = [3, 17, 17, 40_000, 5]
    batch = engine.reset(seeds)
    singles = [engine.reset(s) for s in seeds]
    rng = np.random.default_rng(0)
    for _ in range(700):
        for g, single in enumerate(singles):
            for f in dataclasses.fields(batch):
                assert np.array_equal(getattr(batch, f.name)[g], getattr(single, f.name)[0]), (g, f.name)
        if np.all(batch.phase == OVER):
            break
        mask = engine.legal_action_mask(batch)
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        engine.step(batch, actions, validate=False)
        for g, single in enumerate(singles):
            if single.phase[0] != OVER:
                engine.step(single, actions[g : g + 1])


def test_same_seed_same_deals_and_dealer():
    engine = SpadesEngine("partnership")
    a, b = engine.reset([11, 12]), engine.reset([11, 12])
    assert np.array_equal(a.deal, b.deal) and np.array_equal(a.dealer, b.dealer)
    assert not np.array_equal(a.deal[0], a.deal[1])
