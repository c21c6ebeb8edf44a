"""The variants of docs/rules.md sections 4 (two-player) and 6 (house rules), with worked examples."""

import numpy as np
import pytest

from spades_env import SpadesEngine, cards
from spades_env.core import bits
from spades_env.engine.state import LOWEST_CLUB_LEAD, OVER, PLAY
from spades_env.games.spades.params import BEMO, BID
from spades_env.games.spades.rules import HOUSE_VARIANTS
from spades_env.games.spades.scoring import match_winner, score_hand
from spades_env.rules import Rules, RulesError, list_presets
from tests.conftest import step_live_games

VARIANT_PRESETS = ["two-player", "jokers", "mirror", "fourteen", "partnership-house"]


def C(text: str) -> list[int]:
    return [cards.parse_card(t) for t in text.split()]


def deck_mask(rules: Rules) -> int:
    return cards.cards_to_mask(rules.deck)


def check_invariants(engine: SpadesEngine, state) -> None:
    """Card conservation and a non-empty legal mask for every live game."""
    r = engine.rules
    full = np.uint64(deck_mask(r))
    live = state.phase != OVER
    mask = engine.legal_action_mask(state)
    assert mask[live].any(axis=1).all(), "a live game has no legal action"
    held = np.bitwise_or.reduce(state.hands, axis=1)
    played = np.bitwise_or.reduce(state.deal & ~state.hands, axis=1)
    assert np.all(bits.popcount(state.hands).sum(axis=1) == bits.popcount(held))  # no card held twice
    if r.two_player:
        pos = state.pile_pos
        rest = np.array(
            [cards.cards_to_mask(state.pile[i, pos[i] :]) for i in range(state.batch_size)], dtype=np.uint64
        )
        discards = np.bitwise_or.reduce(state.discards | state.exchanged_out, axis=1)
        discards &= ~np.bitwise_or.reduce(state.exchanged_in, axis=1)
        in_play = np.where(np.isin(state.phase, (BID, PLAY, BEMO)), played, np.uint64(0))
        total = held | in_play | discards | rest
        assert np.all(total[live] == full)
        assert np.all(
            bits.popcount(held | in_play)[live] + bits.popcount(discards)[live] + bits.popcount(rest)[live] == 52
        )
    else:
        assert np.all((held | played)[live] == full)
        assert np.all(bits.popcount(state.deal).sum(axis=1)[live] == len(r.deck))


def play_random(engine: SpadesEngine, state, rng, max_steps: int = 5000, check: bool = True) -> int:
    steps = 0
    while steps < max_steps and step_live_games(engine, state, rng):
        if check:
            check_invariants(engine, state)
        steps += 1
    return steps


# ------------------------------------------------------------------ presets, random games
@pytest.mark.parametrize("preset", VARIANT_PRESETS)
def test_variant_presets_exist_and_name_their_rules_section(preset):
    from spades_env.rules_yaml import preset_bytes

    assert preset in list_presets()
    assert b"[RULES " in preset_bytes(preset)


@pytest.mark.parametrize("preset", list_presets())
def test_random_matches_of_every_preset_keep_the_invariants(preset):
    rules = Rules.preset(preset).replace(max_hands=2)
    engine = SpadesEngine(rules)
    state = engine.reset(np.arange(16))
    check_invariants(engine, state)
    play_random(engine, state, np.random.default_rng(1))
    assert (state.phase == OVER).all() and (state.winner >= -1).all()


@pytest.mark.parametrize(
    "changes",
    [
        dict(n_players=2, partnership=False, jokers=True, bemo=True, boston=True, ten_for_two_hundred=True),
        dict(n_players=4, partnership=False, jokers=True, mirror=True, blind_nil=False, lowest_club_leads=True),
        dict(n_players=3, partnership=False, face_up_deal=True, misdeal_weak_hand=True, bemo=True, blind_nil=True),
        dict(n_players=6, partnership=False, lowest_club_leads=True, boston=True),
    ],
)
def test_random_matches_of_variant_combinations_keep_the_invariants(changes):
    engine = SpadesEngine(Rules(max_hands=2, **changes))
    state = engine.reset(np.arange(8))
    play_random(engine, state, np.random.default_rng(2))
    assert (state.phase == OVER).all()


def test_batched_variant_games_equal_single_games():
    engine = SpadesEngine("partnership-house")
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    batch = engine.reset([3, 4])
    single = engine.reset([3])
    for _ in range(40):
        mask = engine.legal_action_mask(batch)
        a = np.argmax(rng_a.random(mask.shape) * mask, axis=1)
        rng_b.random(mask.shape)
        engine.step(batch, a)
        engine.step(single, a[:1])
    np.testing.assert_array_equal(batch.hands[:1], single.hands)
    np.testing.assert_array_equal(batch.face_up[:1], single.face_up)


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize(
    "changes, fields",
    [
        (dict(mirror=True, fourteen=True, blind_nil=False), ["mirror", "fourteen"]),
        (dict(mirror=True), ["mirror", "blind_nil"]),
        (dict(fourteen=True), ["fourteen", "blind_nil"]),
        (dict(fourteen=True, blind_nil=False, min_team_bid=4), ["min_team_bid", "fourteen"]),
        (dict(n_players=3, partnership=False, fourteen=True, blind_nil=False), ["fourteen", "partnership"]),
        (dict(n_players=2, partnership=False, face_up_deal=True), ["face_up_deal", "n_players"]),
        (dict(n_players=2, partnership=False, misdeal_weak_hand=True), ["misdeal_weak_hand", "n_players"]),
        (dict(n_players=2, partnership=False, lowest_club_leads=True), ["lowest_club_leads", "n_players"]),
        (dict(n_players=3, partnership=False, jokers=True), ["jokers", "n_players"]),
        (dict(boston_wins_match=True), ["boston_wins_match", "boston"]),
        (dict(n_players=2), ["n_players", "partnership"]),
        (dict(bemo="yes"), ["bemo"]),
    ],
)
def test_bad_variant_combinations_are_rejected_naming_the_fields(changes, fields):
    with pytest.raises(RulesError) as err:
        Rules(**changes)
    for field in fields:
        assert field in str(err.value)


def test_every_house_variant_is_off_by_default():
    rules = Rules()
    assert not any(getattr(rules, v) for v in HOUSE_VARIANTS)


# ------------------------------------------------------------------ action layout
def test_action_layout_enables_only_the_special_actions_of_the_rules():
    plain = SpadesEngine("cutthroat-4").layout
    assert plain.n_actions == 52 + 14 and plain.blind_nil is None and plain.keep is None
    two = SpadesEngine("two-player").layout
    assert two.max_bid == 13 and [two.describe(a) for a in range(two.bid_end, two.n_actions)] == [
        "blind nil",
        "look at cards",
        "keep the shown card",
        "discard the shown card",
        "done exchanging",
    ]
    house = SpadesEngine("partnership-house").layout
    assert house.describe(house.little_bemo) == "little Bemo (first 6 tricks)"
    assert house.describe(house.redeal) == "show weak hand: redeal"
    jok = SpadesEngine("jokers").layout
    assert jok.n_card_ids == 54 and jok.bid_offset == 54 and jok.describe(53) == "play BJ"


# ------------------------------------------------------------------ scoring variants
def score(rules, bids, tricks, blind=None, bags=None, **kw):
    n = rules.n_players
    blind = np.zeros((1, n), bool) if blind is None else np.array([blind])
    bags = np.zeros((1, rules.n_sides), np.int64) if bags is None else np.array([bags])
    return score_hand(rules, np.array([bids]), blind, np.array([tricks]), bags, **kw)


@pytest.mark.parametrize(
    "bids, tricks, expected",
    [
        ([5, 1, 5, 1], [6, 1, 5, 1], [201, 20]),  # team bid 10, took 11: 200 + 1 bag
        ([6, 1, 5, 1], [5, 2, 5, 1], [-200, 21]),  # team bid 11, took 10: -200
        ([4, 1, 5, 1], [4, 2, 5, 2], [90, 22]),  # team bid 9: plain scoring
    ],
)
def test_ten_for_two_hundred(bids, tricks, expected):
    rules = Rules(ten_for_two_hundred=True)
    assert score(rules, bids, tricks).delta[0].tolist() == expected


@pytest.mark.parametrize(
    "bids, tricks, expected, boston",
    [
        ([7, 0, 6, 1], [7, 0, 6, 0], [200, 90], True),  # nil made, 1 set
        ([7, 0, 6, 1], [7, 1, 5, 0], [-200, -109], False),
    ],
)
def test_boston_scores_200_and_can_win_the_match(bids, tricks, expected, boston):
    rules = Rules(boston=True, boston_wins_match=True)
    s = score(rules, bids, tricks)
    assert s.delta[0].tolist() == expected and s.boston[0].tolist() == [boston, False]
    winner = match_winner(rules, np.array([[100, 300]]) + s.delta, np.array([3]), boston=s.boston)
    assert winner[0] == (0 if boston else -1)


@pytest.mark.parametrize(
    "declared, winners, expected_bonus",
    [
        (1, [0, 2, 0, 0, 2, 2, 1, 1, 1, 1, 1, 1, 1], 60),  # little Bemo made: first 6 tricks
        (1, [0, 2, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0], -60),  # little Bemo lost on trick 6
        (2, [0, 2, 0, 0, 2, 2, 0, 2, 0, 1, 1, 1, 1], 90),  # big Bemo made: first 9 tricks
        (2, [0, 2, 0, 0, 2, 2, 0, 2, 1, 0, 0, 0, 0], -90),  # big Bemo lost on trick 9
    ],
)
def test_bemo_little_and_big(declared, winners, expected_bonus):
    rules = Rules(bemo=True)
    tricks = np.bincount(winners, minlength=4).tolist()
    plain = score(rules, [3, 3, 3, 3], tricks).delta[0]
    s = score(rules, [3, 3, 3, 3], tricks, trick_winners=np.array([winners]), bemo=np.array([[declared, 0]]))
    assert (s.delta[0] - plain).tolist() == [expected_bonus, 0]


# ------------------------------------------------------------------ bidding variants
def test_mirror_forces_the_number_of_spades_held_jokers_included():
    rules = Rules(mirror=True, blind_nil=False, jokers=True)
    engine = SpadesEngine(rules)
    deck = list(rules.deck)
    spades = [c for c in deck if cards.card_suit(c) == cards.SPADES]  # 13 spades + 2 jokers
    others = [c for c in deck if cards.card_suit(c) != cards.SPADES]
    hands = [spades[:5] + others[:8], spades[5:10] + others[8:16], spades[10:15] + others[16:24], others[24:37]]
    state = engine.reset(0, deals=[hands], dealers=[3])
    expected = {0: 5, 1: 5, 2: 5, 3: 0}
    for seat in (0, 1, 2, 3):
        assert state.to_move[0] == seat
        legal = np.flatnonzero(engine.legal_action_mask(state)[0]) - engine.layout.bid_offset
        assert legal.tolist() == [expected[seat]]
        engine.step(state, [engine.layout.bid_action(expected[seat])])
    assert state.phase[0] == PLAY


def test_fourteen_bids_at_least_two_and_forces_the_second_partner():
    engine = SpadesEngine("fourteen")
    state = engine.reset(0, dealers=[3])
    lay = engine.layout
    legal = lambda: (np.flatnonzero(engine.legal_action_mask(state)[0]) - lay.bid_offset).tolist()  # noqa: E731
    assert legal() == [2, 3, 4, 5]
    engine.step(state, [lay.bid_action(4)])  # seat 0
    assert legal() == [2, 3, 4, 5]
    engine.step(state, [lay.bid_action(2)])  # seat 1
    assert legal() == [3]  # seat 2 completes 4 + 3 = 7
    engine.step(state, [lay.bid_action(3)])
    assert legal() == [5]  # seat 3 completes 2 + 5 = 7
    with pytest.raises(ValueError, match="legal actions"):
        engine.step(state, [lay.bid_action(4)])


# ------------------------------------------------------------------ jokers
def test_jokers_deck_and_trick_winners():
    rules = Rules.preset("jokers")
    assert len(rules.deck) == 52 and cards.parse_card("2C") not in rules.deck
    assert cards.parse_card("2D") not in rules.deck and {52, 53} <= set(rules.deck)
    engine = SpadesEngine(rules)
    power = lambda c: engine.trick_tables.power[cards.HEARTS, cards.parse_card(c)]  # noqa: E731
    assert power("BJ") > power("LJ") > power("AS") > power("2S") > power("AH")


def test_jokers_follow_spades_and_win_the_trick():
    rules = Rules(jokers=True, blind_nil=False, spades_lead_anytime=True)
    engine = SpadesEngine(rules)
    deck = [c for c in rules.deck]
    spades = C("AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S") + [52, 53]
    rest = [c for c in deck if c not in spades]
    hands = [
        C("AS 2S") + rest[0:11],
        [53] + rest[11:23],  # big joker, no spade
        C("KS") + [52] + rest[23:34],
        C("QS JS TS 9S 8S 7S 6S 5S 4S 3S") + rest[34:37],
    ]
    state = engine.reset(0, deals=[hands], dealers=[3])
    for _ in range(4):
        engine.step(state, [engine.layout.bid_action(1)])
    engine.step(state, C("2S"))  # seat 0 leads a spade
    legal = np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
    assert legal == [53]  # the big joker is a spade: seat 1 must follow with it
    engine.step(state, [53])
    legal = np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
    assert legal == [cards.parse_card("KS"), 52]
    engine.step(state, [52])
    engine.step(state, C("QS"))
    assert state.tricks_won[0].tolist() == [0, 1, 0, 0]  # big joker > little joker


# ------------------------------------------------------------------ lowest club, misdeal, face up
def test_lowest_club_leads_the_first_trick():
    engine = SpadesEngine(Rules(lowest_club_leads=True, blind_nil=False))
    deck = list(range(52))
    hands = [deck[13:26], deck[26:39], deck[0:13], deck[39:52]]  # seat 2 holds 2C
    state = engine.reset(0, deals=[hands], dealers=[0])
    for _ in range(4):
        engine.step(state, [engine.layout.bid_action(3)])
    assert state.to_move[0] == 2 and state.led_suit[0] == LOWEST_CLUB_LEAD
    assert np.flatnonzero(engine.legal_action_mask(state)[0]).tolist() == C("2C")


def test_lowest_club_is_the_three_when_the_two_is_out_of_the_deck():
    engine = SpadesEngine(Rules(n_players=3, partnership=False, blind_nil=False, lowest_club_leads=True))
    assert engine.lowest_club == cards.parse_card("3C")


def test_weak_hand_can_force_a_redeal_by_the_same_dealer():
    engine = SpadesEngine(Rules(misdeal_weak_hand=True, blind_nil=False))
    weak = C("2C 3C 4C 5C 6C 7C 8C 9C TC AC 2D 3D 4D")
    rest = [c for c in range(52) if c not in weak]
    hands = [rest[0:13], weak, rest[13:26], rest[26:39]]
    state = engine.reset(7, deals=[hands], dealers=[0])
    lay = engine.layout
    assert state.to_move[0] == 1 and engine.legal_action_mask(state)[0, lay.redeal]
    dealt = state.hands.copy()
    engine.step(state, [lay.redeal])
    assert state.phase[0] == BID and state.dealer[0] == 0 and state.to_move[0] == 1
    assert state.n_redeals[0] == 1 and not np.array_equal(state.hands, dealt)
    assert (state.bids[0] == -1).all()
    other = engine.reset(7, deals=[hands], dealers=[0])
    engine.step(other, [lay.redeal])
    np.testing.assert_array_equal(state.hands, other.hands)  # the redeal is seeded
    strong = engine.reset(7, deals=[[weak, rest[0:13], rest[13:26], rest[26:39]]], dealers=[0])
    assert not engine.legal_action_mask(strong)[0, lay.redeal]
    with pytest.raises(ValueError, match="legal actions"):
        engine.step(strong, [lay.redeal])


def test_face_up_deal_shows_four_cards_of_each_hand():
    engine = SpadesEngine("partnership-house")
    state = engine.reset(np.arange(5))
    assert (bits.popcount(state.face_up) == 4).all()
    assert ((state.face_up & ~state.deal) == 0).all()


# ------------------------------------------------------------------ bemo phase
def test_bemo_phase_one_decision_per_side_before_the_first_lead():
    engine = SpadesEngine(Rules(bemo=True, blind_nil=False))
    lay = engine.layout
    state = engine.reset(0, dealers=[1])
    for _ in range(4):
        engine.step(state, [lay.bid_action(3)])
    assert state.phase[0] == BEMO and state.to_move[0] == 2
    engine.step(state, [lay.big_bemo])
    assert state.phase[0] == BEMO and state.to_move[0] == 3
    engine.step(state, [lay.no_bemo])
    assert state.phase[0] == PLAY and state.to_move[0] == 2 and state.bemo[0].tolist() == [2, 0]


@pytest.mark.parametrize("preset", VARIANT_PRESETS)
def test_variant_hand_records_replay_to_the_same_result(preset):
    from spades_env.engine import records

    engine = SpadesEngine(Rules.preset(preset).replace(max_hands=1))
    state = engine.reset(np.arange(6))
    rng = np.random.default_rng(3)
    found = []
    while (state.phase != OVER).any():
        live = np.flatnonzero(state.phase != OVER)
        sub = state.take(live)
        mask = engine.legal_action_mask(sub)
        result = engine.step(sub, np.argmax(rng.random(mask.shape) * mask, axis=1))
        state.put(live, sub)
        for finished in result.finished:
            found += records.hand_records(engine, finished)
    assert len(found) == 6
    for record in found:
        records.verify(record)
