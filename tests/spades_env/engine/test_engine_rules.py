"""Rules of play [RULES 1, 2] on explicit deals: leads, following, tricks, bidding, errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from spades_env import IllegalActionError, Rules, SpadesEngine
from spades_env.cards import parse_card
from spades_env.engine import OVER, PLAY
from spades_env.engine.check import check_state
from spades_env.engine.state import FREE_LEAD, RESTRICTED_LEAD
from spades_env.games.spades.params import BID, BLIND
from tests.conftest import hand, whole_suit

NO_BLIND = Rules.preset("partnership-no-blind-nil")
C = parse_card

# Seat 1 (first to lead with dealer 0) holds twelve spades and the two of hearts.
SPADE_HEAVY = [
    whole_suit("C"),
    hand("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 2H"),
    hand("2S 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"),
    whole_suit("D"),
]


def legal_cards(engine, state, game=0) -> list[int]:
    mask = engine.legal_action_mask(state)[game]
    return [int(a) for a in np.flatnonzero(mask[: engine.layout.n_card_ids])]


def start_play(rules, deal, bids=(1, 1, 1, 1), dealer=0, **kw):
    engine = SpadesEngine(rules)
    state = engine.reset(0, deals=[deal], dealers=dealer, **kw)
    lay = engine.layout
    while state.phase[0] != PLAY:
        seat = int(state.to_move[0])
        action = lay.look if state.phase[0] == BLIND else lay.bid_action(bids[seat])
        engine.step(state, [action])
    return engine, state


def play(engine, state, *names):
    for name in names:
        engine.step(state, [C(name)])
        check_state(engine, state)


# ------------------------------------------------------------------ leading spades
def test_spades_cannot_be_led_before_broken():
    engine, state = start_play(NO_BLIND, SPADE_HEAVY)
    assert state.to_move[0] == 1 and state.led_suit[0] == RESTRICTED_LEAD
    assert legal_cards(engine, state) == [C("2H")]
    with pytest.raises(IllegalActionError):
        engine.step(state, [C("AS")])


def test_follow_suit_when_able():
    engine, state = start_play(NO_BLIND, SPADE_HEAVY)
    play(engine, state, "2H")
    assert legal_cards(engine, state) == whole_suit("H")[1:]  # seat 2 must follow hearts, not play 2S
    play(engine, state, "3H")
    assert legal_cards(engine, state) == whole_suit("D")  # seat 3 is void in hearts: anything
    play(engine, state, "AD")
    assert legal_cards(engine, state) == whole_suit("C")
    play(engine, state, "AC")
    assert state.trick_winners[0, 0] == 2  # highest heart; the aces of other suits do not count
    assert not state.spades_broken[0]


def test_discarding_a_spade_breaks_spades_and_wins():
    engine, state = start_play(NO_BLIND, SPADE_HEAVY)
    play(engine, state, "2H", "AH", "2D", "2C")  # seat 2 wins and must lead a heart
    assert state.to_move[0] == 2 and legal_cards(engine, state) == whole_suit("H")[1:-1]
    play(engine, state, "3H", "3D", "3C")
    assert legal_cards(engine, state) == hand("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS")  # void in hearts
    play(engine, state, "3S")
    assert state.spades_broken[0] and state.trick_winners[0, 1] == 1
    assert state.led_suit[0] == FREE_LEAD
    assert state.void_suits()[0, 1, 2]  # seat 1 showed out of hearts


def test_a_player_with_only_spades_may_lead_one_and_it_breaks_spades(suit_deal):
    engine, state = start_play(NO_BLIND, suit_deal, dealer=2)  # seat 3 (all spades) leads
    assert state.to_move[0] == 3 and state.led_suit[0] == RESTRICTED_LEAD
    assert legal_cards(engine, state) == whole_suit("S")
    play(engine, state, "2S")
    assert state.spades_broken[0]
    play(engine, state, "AC", "AD", "AH")
    assert state.trick_winners[0, 0] == 3  # the only spade wins


def test_spades_lead_anytime():
    rules = NO_BLIND.replace(spades_lead_anytime=True)
    engine, state = start_play(rules, SPADE_HEAVY)
    assert state.led_suit[0] == FREE_LEAD
    assert legal_cards(engine, state) == sorted(SPADE_HEAVY[1])
    play(engine, state, "AS")  # a spade lead: seat 2 must follow with its only spade
    assert legal_cards(engine, state) == [C("2S")]


def test_highest_spade_wins_a_trumped_trick():
    deal = [
        whole_suit("C"),
        hand("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD 2S 3S"),
        hand("KD AD 2H 3H 4H 5H 6H 7H 8H 9H TH JH 4S"),
        hand("QH KH AH 5S 6S 7S 8S 9S TS JS QS KS AS"),
    ]
    engine, state = start_play(NO_BLIND, deal, dealer=3)  # seat 0 leads
    play(engine, state, "2C", "3D", "2H", "QH")  # nobody else holds a club; nobody trumps
    assert state.trick_winners[0, 0] == 0  # only the led suit counts: 2C wins
    play(engine, state, "3C", "3S", "4S", "KH")
    assert state.trick_winners[0, 1] == 2  # the higher of two spades wins


# ------------------------------------------------------------------ bidding
def test_blind_nil_is_decided_before_looking():
    engine = SpadesEngine("partnership")
    state = engine.reset(5, dealers=1)
    lay = engine.layout
    assert state.phase[0] == BLIND and state.to_move[0] == 2 and not state.looked[0].any()
    assert np.flatnonzero(engine.legal_action_mask(state)[0]).tolist() == [lay.blind_nil, lay.look]
    for action in (lay.bid_action(3), 0, lay.n_actions):  # a bid or a card before looking
        with pytest.raises(IllegalActionError, match=r"phase 'blind'; legal actions: \[.*blind nil.*look"):
            engine.step(state, [action])
    engine.step(state, [lay.look])
    assert state.phase[0] == BID and state.to_move[0] == 2 and state.looked[0, 2]  # same seat bids
    engine.step(state, [lay.bid_action(3)])
    assert state.phase[0] == BLIND and state.to_move[0] == 3
    engine.step(state, [lay.blind_nil])
    assert state.bids[0].tolist() == [-1, -1, 3, 0] and state.blind[0, 3]
    assert state.phase[0] == BLIND and state.to_move[0] == 0
    check_state(engine, state)


def test_no_blind_nil_preset_goes_straight_to_bidding():
    state = SpadesEngine(NO_BLIND).reset(5)
    assert state.phase[0] == BID and state.looked[0].all()


def test_blind_nil_only_when_behind_by_enough():
    engine = SpadesEngine(Rules(blind_nil_requires_behind_by=100))
    state = engine.reset([1, 1, 1], dealers=0, scores=[[0, 0], [0, 100], [250, 120]])
    assert state.looked.tolist() == [[True] * 4, [False, True, False, True], [True, False, True, False]]
    assert state.phase.tolist() == [BID, BID, BLIND]  # seat 1 bids first


def test_min_team_bid_masks_low_bids_and_blind_nil():
    engine = SpadesEngine("partnership-tournament")  # min_team_bid 4, blind nil needs -100
    lay = engine.layout
    state = engine.reset([0, 0], dealers=0, scores=[[0, 200], [0, 200]])  # side 0 may bid blind
    engine.step(state, [lay.bid_action(1), lay.bid_action(6)])  # seat 1: team 1 open
    engine.step(state, [lay.look, lay.look])  # seat 2 looks (partner seat 0 has not bid)
    legal = np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
    assert legal == [lay.bid_action(b) for b in range(14)]
    engine.step(state, [lay.bid_action(1), lay.bid_action(0)])  # seat 2 bids 1 / nil
    assert state.to_move[0] == 3
    legal = np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
    assert legal == [lay.bid_action(b) for b in range(3, 14)]  # seat 3: partner bid 1
    engine.step(state, [lay.bid_action(3), lay.bid_action(3)])
    mask = engine.legal_action_mask(state)
    assert state.phase.tolist() == [BLIND, BLIND]
    assert not mask[0, lay.blind_nil] and mask[0, lay.look]  # partner bid 1 < 4: no blind nil
    assert not mask[1, lay.blind_nil]  # partner bid nil: seat 0 must bid at least 4
    with pytest.raises(IllegalActionError, match="blind nil"):
        engine.step(state, [lay.blind_nil, lay.look])
    engine.step(state, [lay.look, lay.look])
    assert engine.min_bid(state).tolist() == [3, 4]


def test_min_team_bid_allows_blind_nil_after_a_high_partner_bid():
    engine = SpadesEngine(Rules(min_team_bid=4))
    lay = engine.layout
    state = engine.reset(0, dealers=3)  # seat 0 bids first
    engine.step(state, [lay.look])
    engine.step(state, [lay.bid_action(5)])
    engine.step(state, [lay.look])
    engine.step(state, [lay.bid_action(0)])
    assert engine.legal_action_mask(state)[0, lay.blind_nil]  # seat 2: partner bid 5 >= 4


# ------------------------------------------------------------------ dealer and seats
def test_dealer_rotates_and_dealer_plus_one_bids_and_leads():
    engine = SpadesEngine(NO_BLIND.replace(lose_score=None))
    state = engine.reset([4, 9], dealers=[3, 1])
    rng = np.random.default_rng(0)
    for k in range(3):
        assert state.dealer.tolist() == [(3 + k) % 4, (1 + k) % 4]
        assert state.to_move.tolist() == [(4 + k) % 4, (2 + k) % 4]
        lay = engine.layout
        for _ in range(4):
            engine.step(state, np.full(2, lay.bid_action(3)))
        assert state.phase.tolist() == [PLAY, PLAY] and state.to_move.tolist() == [(4 + k) % 4, (2 + k) % 4]
        result = None
        while result is None or not result.hand_done.all():
            mask = engine.legal_action_mask(state)
            result = engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1))
        assert state.hand_number.tolist() == [k + 1, k + 1]


def test_random_first_dealer_varies_with_seed():
    engine = SpadesEngine("partnership")
    dealers = engine.reset(np.arange(64)).dealer
    assert set(dealers.tolist()) == {0, 1, 2, 3}
    state = engine.reset(np.arange(64))
    assert np.array_equal(state.to_move, (dealers + 1) % 4)


# ------------------------------------------------------------------ errors and resets
def test_illegal_action_error_names_game_seat_action_and_legal_actions():
    engine = SpadesEngine(NO_BLIND)
    state = engine.reset([1, 2, 3, 4], dealers=0)
    lay = engine.layout
    assert issubclass(IllegalActionError, ValueError)
    before = state.copy()
    actions = [lay.bid_action(2)] * 4
    actions[2] = C("AS")  # a card during bidding
    with pytest.raises(IllegalActionError) as err:
        engine.step(state, actions)
    text = str(err.value)
    assert "game 2" in text and "seat 1" in text and f"illegal action {C('AS')}" in text
    assert "legal actions" in text and "bid nil" in text and "bid 13" in text
    for name in ("bids", "phase", "to_move", "n_bids"):  # nothing changed in any game
        assert np.array_equal(getattr(before, name), getattr(state, name)), name


@pytest.mark.parametrize("n_bidding", [1, 2], ids=["most-playing-masked", "few-playing-subset"])
@pytest.mark.parametrize("illegal", ["card", "bid"])
def test_an_illegal_action_in_a_mixed_batch_changes_no_game(n_bidding, illegal):
    """Game 0 plays, the others bid: with most games playing the step plays the whole batch
    masked, with few it plays their rows; either way one illegal action changes no game."""
    engine, state = start_play(NO_BLIND, SPADE_HEAVY)
    bidding = SpadesEngine(NO_BLIND).reset(0, deals=[SPADE_HEAVY], dealers=0)
    batch = state.take([0] * (1 + n_bidding))
    batch.put(list(range(1, 1 + n_bidding)), bidding.take([0] * n_bidding))
    before = batch.copy()
    card = C("AS") if illegal == "card" else C("2H")  # seat 1 may not lead a spade: 2H is legal
    bids = [engine.layout.bid_action(1)] * n_bidding
    if illegal == "bid":
        bids[-1] = engine.layout.n_actions  # no such action
    pattern = rf"game {n_bidding}: illegal"
    if illegal == "card":
        pattern = r"game 0: illegal action \d+ \(play AS\) for seat 1"
    with pytest.raises(IllegalActionError, match=pattern):
        engine.step(batch, [card, *bids])
    for f in dataclasses.fields(batch):
        np.testing.assert_array_equal(getattr(batch, f.name), getattr(before, f.name))


def test_stepping_a_finished_match_raises(suit_deal):
    engine = SpadesEngine(NO_BLIND.replace(max_hands=1))
    state = engine.reset(0, deals=[suit_deal], dealers=0)
    lay = engine.layout
    for _ in range(4):
        engine.step(state, [lay.bid_action(1)])
    while state.phase[0] != OVER:
        engine.step(state, [int(np.flatnonzero(engine.legal_action_mask(state)[0])[0])])
    assert engine.current_player(state).tolist() == [-1]
    assert not engine.legal_action_mask(state).any()
    with pytest.raises(IllegalActionError, match="match is over"):
        engine.step(state, [0])
    check_state(engine, state)


def test_explicit_deal_dealer_scores_and_bags_in_reset(suit_deal):
    engine = SpadesEngine("partnership")
    state = engine.reset(
        [0, 1], deals=[suit_deal, suit_deal[::-1]], dealers=[2, 3], scores=[[10, 20], [30, 40]], bags=[[1, 2], [3, 4]]
    )
    masks = [[sum(1 << c for c in h) for h in d] for d in (suit_deal, suit_deal[::-1])]
    assert state.deal.tolist() == masks and state.hands.tolist() == masks
    assert state.dealer.tolist() == [2, 3] and state.to_move.tolist() == [3, 0]
    assert state.scores.tolist() == [[10, 20], [30, 40]] and state.bags.tolist() == [[1, 2], [3, 4]]
    check_state(engine, state)
    again = engine.reset([0, 1], deals=state.deal.copy())  # uint64 masks work too
    assert np.array_equal(again.deal, state.deal)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: [d[0][:-1] + [d[1][0]], *d[1:]], "not a legal deal"),  # a card dealt twice
        (lambda d: [d[0][:-1], *d[1:]], "not a legal deal"),  # a short hand
        (lambda d: d[:3], "4 hands each"),  # a missing hand
        (lambda d: [d[0][:-1] + [60], *d[1:]], "not in the deck"),  # not a card
    ],
    ids=["duplicate", "short-hand", "missing-hand", "bad-card-id"],
)
def test_bad_deals_are_rejected_clearly(suit_deal, change, message):
    with pytest.raises(ValueError, match=message):
        SpadesEngine("partnership").reset(0, deals=[change(suit_deal)])


def test_a_deal_must_use_the_deck_of_the_rules():
    rules = Rules(n_players=3, partnership=False)  # the two of clubs is out
    deck = [c for c in range(52) if c != C("3C")]
    with pytest.raises(ValueError, match="not in the deck"):
        SpadesEngine(rules).reset(0, deals=[[deck[:17], deck[17:34], deck[34:]]])


def test_cutthroat_decks_and_hand_sizes():
    for n, size, removed in ((3, 17, ["2C"]), (4, 13, []), (5, 10, ["2C", "2D"]), (6, 8, ["2C", "2D", "2H", "2S"])):
        engine = SpadesEngine(Rules(n_players=n, partnership=False))
        state = engine.reset(np.arange(4))
        assert engine.hand_size == size and state.deal.shape == (4, n)
        held = np.bitwise_or.reduce(state.deal, axis=1)
        for card in removed:
            assert not np.any((held >> np.uint64(C(card))) & np.uint64(1))
        check_state(engine, state)
