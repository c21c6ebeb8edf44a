"""The fast batched engine against the reference engine, state by state (Spades and Hearts).

Random games (biased toward nil, blind nil and low bids) are played through a
``SpadesEngine`` batch of B games and through B reference games fed the same deals (the
game's own: ``SpadesReferenceGame`` or ``HeartsReferenceGame``, ``tests.reference_games``);
at every step the legal masks, the player to move, phases, bids, tricks, trick
winners, scores, bags and the match winner must agree, and ``check_state`` must pass.
What the fast engine draws at random (deals, two-player piles, face-up cards, redeals,
the cards drawn in the two-player exchange) is read from its state and handed to the
reference, so that both play exactly the same games.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spades_env import Rules, SpadesEngine, list_presets
from spades_env.cards import mask_to_cards
from spades_env.engine import BEMO, BID, BLIND, DRAW, EXCHANGE, OVER, PLAY
from spades_env.engine.check import check_state
from spades_env.engine.hearts_scoring import score_hearts_hand
from spades_env.engine.state import PASS
from spades_env.games.hearts.reference import MOON_CARDS, HeartsReferenceGame, seat_points
from spades_env.games.spades.reference import SpadesReferenceGame
from tests.reference_games import reference_for

PHASE_OF = {
    BLIND: "blind",
    BID: "bid",
    PLAY: "play",
    OVER: "over",
    DRAW: "draw",
    EXCHANGE: "exchange",
    BEMO: "bemo",
    PASS: "pass",
}


def _cutthroat(n: int, bonuses: bool) -> Rules:
    exact = bonuses and n in (3, 4)
    return Rules(
        name=f"cutthroat-{n}{'-bonus' if bonuses else ''}",
        n_players=n,
        partnership=False,
        exact_small_bid_bonus=exact,
        big_bid_bonus=bonuses,
    )


RULE_SETS: list[Rules] = [Rules.preset(name) for name in list_presets()] + [
    _cutthroat(n, bonuses) for n in (3, 4, 5, 6) for bonuses in (False, True)
]
_base = Rules(name="partnership-variant")
RULE_SETS += [
    _base.replace(set_penalty="short"),
    _base.replace(set_penalty="zero"),
    _base.replace(bags=False),
    _base.replace(spades_lead_anytime=True),
    _base.replace(min_team_bid=4),
    _base.replace(min_team_bid=13, blind_nil_requires_behind_by=50),
    _base.replace(lose_score=None, target_score=300, max_hands=3),
    _base.replace(lose_score="-target", target_score=200, bag_limit=5, bag_penalty=50),
    _cutthroat(3, True).replace(spades_lead_anytime=True, set_penalty="short", blind_nil_requires_behind_by=30),
    _cutthroat(5, True).replace(bags=False, lose_score=None, max_hands=2),
    # Variants of RULES 4 and 6 beyond the presets, and combinations of them.
    Rules(name="two-player-jokers", n_players=2, partnership=False, jokers=True, spades_lead_anytime=True),
    Rules(name="two-player-plain", n_players=2, partnership=False, blind_nil=False, bemo=True, boston=True),
    _base.replace(name="jokers-lowest-club", jokers=True, lowest_club_leads=True, misdeal_weak_hand=True),
    _base.replace(name="face-up-bemo", face_up_deal=True, bemo=True, min_team_bid=4, ten_for_two_hundred=True),
    _base.replace(name="mirror-jokers", mirror=True, jokers=True, blind_nil=False, boston=True),
    _base.replace(name="fourteen-boston", fourteen=True, blind_nil=False, boston=True, set_penalty="short"),
    _cutthroat(3, True).replace(name="cutthroat-3-house", face_up_deal=True, bemo=True, lowest_club_leads=True),
    _cutthroat(5, False).replace(name="cutthroat-5-house", misdeal_weak_hand=True, ten_for_two_hundred=True),
    # Hearts options beyond the presets [RULES 7].
    Rules(name="hearts-moon-jack", game="hearts", moon_subtracts=True, jack_of_diamonds=True, target_score=60),
    Rules(name="hearts-team-jack", game="hearts", partnership=True, jack_of_diamonds=True, max_hands=5),
]
HEARTS_RULES = [r for r in RULE_SETS if r.hearts]
RULE_IDS = [f"{i}-{r.name}" for i, r in enumerate(RULE_SETS)]


def choose(
    legal: list[int], ref: SpadesReferenceGame | HeartsReferenceGame, rng: np.random.Generator, style: dict
) -> int:
    """A random legal action, biased toward blind nil, nil and low bids."""
    if ref.phase == "blind":
        if ref.blind_nil_action in legal and rng.random() < style["blind"]:
            return ref.blind_nil_action
        return ref.look_action
    if ref.phase == "bid":
        if legal[-1] == ref.special.get("redeal") and rng.random() < 0.5:
            return legal[-1]  # show a weak hand
        if legal[0] == ref.bid_offset and rng.random() < style["nil"]:
            return legal[0]
        if rng.random() < style["low"]:
            return legal[min(int(rng.integers(0, 3)), len(legal) - 1)]
        return int(rng.choice(legal))
    return int(rng.choice(legal))


def deal_of(rules: Rules, state, g: int) -> dict:
    """What the reference needs of the fast engine's random draws for game g's hand."""
    if state.passed[g].any() and state.phase[g] != PASS:
        raise AssertionError("a new hand's deal is read after its pass")
    hands = {"hands": [mask_to_cards(int(h)) for h in state.deal[g]]}
    if rules.hearts:
        return hands
    face_up = [mask_to_cards(int(f)) for f in state.face_up[g]]
    if state.pile.shape[1]:
        return {"pile": state.pile[g].tolist(), "face_up": face_up}
    return {**hands, "face_up": face_up}


def new_reference(rules: Rules, state, g: int) -> SpadesReferenceGame | HeartsReferenceGame:
    """The reference game of game g of a freshly reset batch: same deal, dealer, scores, bags, hands played."""
    start = {"dealer": int(state.dealer[g]), "scores": state.scores[g].tolist()}
    start["hand_number"] = int(state.hand_number[g])
    if not rules.hearts:
        start["bags"] = state.bags[g].tolist()
    else:
        assert not state.bags[g].any(), "Hearts keeps no bags"
    return reference_for(rules)(rules, **start, **deal_of(rules, state, g))


def _cards(masks) -> list[list[int]]:
    return [sorted(mask_to_cards(int(m))) for m in masks]


def compare(engine: SpadesEngine, state, refs: list, mask: np.ndarray | None = None) -> None:
    """Assert that every game of the batch agrees with its reference game."""
    player = engine.current_player(state)
    for g, ref in enumerate(refs):
        where = f"game {g} (rules {engine.rules.name}, hand {ref.hand_number}, phase {ref.phase})"
        assert PHASE_OF[int(state.phase[g])] == ref.phase, where
        assert int(player[g]) == ref.current_player(), where
        assert int(state.dealer[g]) == ref.dealer or ref.phase == "over", where
        assert state.scores[g].tolist() == ref.scores, where
        assert int(state.winner[g]) == ref.winner, where
        assert int(state.hand_number[g]) == ref.hand_number, where
        COMPARE_GAME[engine.rules.game](state, g, ref, where)
        if ref.phase == "over":
            continue
        assert state.tricks_won[g].tolist() == ref.tricks_won, where
        winners = state.trick_winners[g]
        assert winners[winners >= 0].tolist() == ref.trick_winners, where
        assert _cards(state.hands[g]) == [sorted(h) for h in ref.hands], where
        assert _cards(state.deal[g]) == ref.dealt, where
        if mask is not None:
            assert np.flatnonzero(mask[g]).tolist() == ref.legal_actions(), where


def compare_spades(state, g: int, ref: SpadesReferenceGame, where: str) -> None:
    """The Spades fields: bags, bids, blind nils, looks, Bemo, spades broken, face-up cards, the
    two-player draw and exchange; the Hearts fields stay empty."""
    assert state.bags[g].tolist() == ref.bags, where
    assert state.bids[g].tolist() == [-1 if b is None else b for b in ref.bids], where
    assert state.blind[g].tolist() == ref.blind, where
    assert state.looked[g].tolist() == ref.looked, where
    assert state.bemo[g].tolist() == [-1 if b is None else b for b in ref.bemo], where
    if ref.phase == "over":
        return
    assert bool(state.spades_broken[g]) == ref.spades_broken, where
    assert not state.passed[g].any() and not state.points_taken[g].any(), where
    visible = [sorted(f & h) for f, h in zip(ref.face_up, ref.hands, strict=True)]
    assert _cards(state.face_up[g] & state.hands[g]) == visible, where
    if ref.two_player:
        assert int(state.pile_pos[g]) == ref.pile_pos and int(state.shown[g]) == ref.shown, where
        assert _cards(state.discards[g]) == [sorted(d) for d in ref.discards], where
        assert _cards(state.seen[g]) == [sorted(x) for x in ref.seen], where
        assert _cards(state.exchanged_out[g]) == [sorted(x) for x in ref.given], where
        assert _cards(state.exchanged_in[g]) == [sorted(x) for x in ref.received], where


def compare_hearts(state, g: int, ref: HeartsReferenceGame, where: str) -> None:
    """The Hearts fields: the pass, the points taken, hearts broken (in ``spades_broken``); the
    Spades fields stay empty (no bags, bids, blind nils or Bemo)."""
    assert not state.bags[g].any() and (state.bids[g] == -1).all() and (state.bemo[g] == -1).all(), where
    assert not state.blind[g].any() and state.looked[g].all(), where
    if ref.phase == "over":
        return
    assert bool(state.spades_broken[g]) == ref.hearts_broken, where
    assert _cards(state.passed[g]) == [sorted(p) for p in ref.passed], where
    assert state.points_taken[g].tolist() == ref.points_taken, where
    assert not state.face_up[g].any(), where


#: The fields only one game has, compared by that game's function.
COMPARE_GAME = {"spades": compare_spades, "hearts": compare_hearts}


def shot_the_moon(ref: HeartsReferenceGame) -> bool:
    """A seat took every heart and the queen of spades in the hand just played [RULES 7]."""
    taken: list[set[int]] = [set() for _ in range(ref.n)]
    for trick, winner in zip(ref.history, ref.trick_winners, strict=True):
        taken[winner] |= {card for _, card in trick}
    return any(MOON_CARDS <= cards for cards in taken)


def play_and_compare(
    rules: Rules,
    seeds: list[int],
    policy_seed: int,
    style: dict,
    max_steps: int,
    start: dict | None = None,
) -> dict[str, int]:
    """Play B games in both engines, comparing every step; returns counts of the hands
    completed, the matches ended, the weak-hand redeals, the cards exchanged and the moons shot (Hearts)."""
    engine = SpadesEngine(rules)
    state = engine.reset(seeds, **(start or {}))
    b = state.batch_size
    refs = [new_reference(rules, state, g) for g in range(b)]
    assert engine.layout.n_actions == refs[0].n_actions
    rng = np.random.default_rng(policy_seed)
    stats = {"hands": 0, "redeals": 0, "exchanges": 0, "moons": 0, "matches": 0}
    for _ in range(max_steps):
        check_state(engine, state)
        mask = engine.legal_action_mask(state)
        compare(engine, state, refs, mask)
        live = [g for g in range(b) if refs[g].phase != "over"]
        if not live:
            break
        actions = np.zeros(b, dtype=np.int64)
        for g in live:
            actions[g] = choose(refs[g].legal_actions(), refs[g], rng, style)
        received = state.exchanged_in.copy()
        result = engine.step(state, actions, validate=len(live) == b)
        for g in live:
            seat = refs[g].to_move
            # A card given up in the exchange: the reference draws the card the fast engine drew.
            new = mask_to_cards(int(state.exchanged_in[g, seat] & ~received[g, seat]))
            refs[g].step(int(actions[g]), *new)
            stats["exchanges"] += len(new)
        assert np.flatnonzero(result.hand_done).tolist() == [g for g in live if refs[g].phase in ("deal", "over")]
        for fin in result.finished:
            for i, g in enumerate(fin.games.tolist()):
                ref = refs[g]
                stats["hands"] += 1
                stats["moons"] += rules.hearts and shot_the_moon(ref)
                assert fin.tricks_won[i].tolist() == ref.tricks_won
                assert fin.trick_winners[i].tolist() == ref.trick_winners
                assert fin.delta[i].tolist() == ref.last_points
                assert result.score_delta[g].tolist() == ref.last_points
                assert fin.scores[i].tolist() == ref.scores
                assert fin.bags[i].tolist() == (ref.bags if not rules.hearts else [0] * rules.n_sides)
                played = [[ref.history[t][k][1] for k in range(rules.n_players)] for t in range(ref.hand_size)]
                seats = [[ref.history[t][k][0] for k in range(rules.n_players)] for t in range(ref.hand_size)]
                for t in range(ref.hand_size):
                    assert [int(fin.history[i, t, s]) for s in seats[t]] == played[t]
                assert bool(result.match_done[g]) == (ref.phase == "over")
                stats["matches"] += ref.phase == "over"
        for g in live:
            stats["redeals"] += refs[g].phase == "redeal"
            if refs[g].phase in ("deal", "redeal"):  # the next deal (or a redeal) comes from the fast engine
                refs[g].start_hand(**deal_of(rules, state, g))
    check_state(engine, state)
    compare(engine, state, refs)
    return stats


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
    low = -(10**9) if rules.mercy_score is None else rules.mercy_score
    near = [v for v in near if low < v < rules.target_score]
    scores = data.draw(
        st.lists(st.lists(st.sampled_from(near), min_size=s, max_size=s), min_size=batch, max_size=batch)
    )
    max_bags = rules.bag_limit - 1 if rules.bags else 0  # a rule set without bags keeps none
    bags = data.draw(
        st.lists(st.lists(st.integers(0, max_bags), min_size=s, max_size=s), min_size=batch, max_size=batch)
    )
    dealers = data.draw(st.lists(st.integers(0, rules.n_players - 1), min_size=batch, max_size=batch))
    start = {"scores": scores, "bags": bags, "dealers": dealers}
    if rules.hearts:  # any pass direction
        last = 7 if rules.max_hands is None else min(7, rules.max_hands - 1)  # hands played before the match ends
        start["hand_numbers"] = data.draw(st.lists(st.integers(0, last), min_size=batch, max_size=batch))
    style = {"blind": 0.5, "nil": 0.4, "low": 0.9}
    play_and_compare(rules, list(range(first_seed, first_seed + batch)), policy_seed, style, 400, start)


@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_every_rule_set_ends_a_match_alike(rules):
    """Random games rarely reach the end of a match in a few hands: start every side just short of
    the target, so that each rule set's match end (highest or lowest score, ties playing on) is
    compared [RULES 3, 7]."""
    start = {"scores": [[rules.target_score - (1 if rules.hearts else 10)] * rules.n_sides], "dealers": 1}
    stats = play_and_compare(rules, [11], 5, {"blind": 0.2, "nil": 0.2, "low": 0.2}, 500, start)
    assert stats["matches"] == 1


@pytest.mark.parametrize("rules", [RULE_SETS[0], _cutthroat(4, True)], ids=["partnership", "cutthroat-4-bonus"])
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
    _base.replace(name="weak", misdeal_weak_hand=True, blind_nil=False, face_up_deal=True, bemo=True),
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
