"""The hand end inside the compiled engine: the weak-hand redeal dealt in ``step``, the first
deal of ``reset`` (seeded or given cards) and the finished hands' record arrays."""

from __future__ import annotations

import dataclasses

import numpy as np

from spades_env import SpadesEngine, cards
from spades_env.engine import OVER, dealing
from spades_env.games.spades.params import BID, BLIND


def _weak_first_bidder_deals() -> np.ndarray:
    """Deals of partnership-house where seat 1 (first to bid after dealer 0) holds a weak hand:
    no spade, jack, queen or king [RULES 6]."""
    low = [s * 13 + r for s in (cards.CLUBS, cards.DIAMONDS, cards.HEARTS) for r in range(9)]
    weak = low[:13]
    rest = [c for c in range(52) if c not in weak]
    hands = [rest[0:13], weak, rest[13:26], rest[26:39]]
    return np.array([[cards.cards_to_mask(h) for h in hands]], np.uint64)


def test_a_weak_hand_redeal_is_dealt_inside_the_step_from_the_redeal_counter():
    engine = SpadesEngine("partnership-house")
    state = engine.reset(4, deals=_weak_first_bidder_deals(), dealers=0)
    np.testing.assert_array_equal(
        state.face_up, dealing.pick_cards(state.key, np.zeros(1, np.int64), state.deal, 4)
    )  # the given deal's face-up cards, from the hand's counter
    if state.phase[0] == BLIND:
        engine.step(state, [engine.layout.look])
    assert state.phase[0] == BID and state.to_move[0] == 1
    assert engine.legal_action_mask(state)[0, engine.layout.redeal]
    result = engine.step(state, [engine.layout.redeal])
    assert not result.hand_done.any() and not result.finished
    counter = dealing.deal_counter(np.zeros(1, np.int64), 1)
    dealt = dealing.deal(state.key, counter, engine.deck, 4)
    assert state.n_redeals[0] == 1 and state.dealer[0] == 0 and state.hand_number[0] == 0
    np.testing.assert_array_equal(state.hands, dealt)
    np.testing.assert_array_equal(state.deal, dealt)
    np.testing.assert_array_equal(state.face_up, dealing.pick_cards(state.key, counter, dealt, 4))
    assert state.to_move[0] == 1 and state.phase[0] in (BID, BLIND) and (state.bids == -1).all()


def test_reset_deals_the_seeded_hands_or_the_given_cards_and_piles():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(3), hand_numbers=[0, 2, 5])
    np.testing.assert_array_equal(state.hands, dealing.deal(state.key, state.hand_number, engine.deck, 4))
    given = _weak_first_bidder_deals()
    state = engine.reset(9, deals=given)
    np.testing.assert_array_equal(state.hands, given)
    two = SpadesEngine("two-player")
    seeded = two.reset(np.arange(2))
    np.testing.assert_array_equal(seeded.pile, dealing.shuffle(seeded.key, np.zeros(2, np.int64), two.deck))
    pile = np.array([list(range(51, -1, -1))])
    state = two.reset(3, piles=pile)
    np.testing.assert_array_equal(state.pile, pile)
    assert state.pile_pos[0] == 0 and not state.hands.any()


def test_finished_hands_own_their_arrays_and_keep_the_hand_before_the_next():
    engine = SpadesEngine("two-player")
    state = engine.reset(np.arange(6), scores=[[480, 480]] * 6)
    rng = np.random.default_rng(2)
    seen = []
    while len(seen) < 8:
        before = state.copy()
        result = engine.step(state, engine.random_actions(state, rng), auto_reset=True)
        for f in result.finished:
            g = f.games
            np.testing.assert_array_equal(f.pile, before.pile[g])
            np.testing.assert_array_equal(f.history[:, :-1], before.history[g][:, :-1])
            np.testing.assert_array_equal(f.hand_key, dealing.hand_keys(before.key[g], before.hand_number[g]))
            np.testing.assert_array_equal(f.exchanged_in, before.exchanged_in[g])
            np.testing.assert_array_equal(f.scores, f.start_scores + f.delta)
            seen.append(f)
    for f in seen:  # no field is a view of the engine's state or of a buffer reused by a later step
        for field in dataclasses.fields(f):
            a = getattr(f, field.name)
            assert field.name == "games" or a.base is None or a.size == 0, field.name  # games: flatnonzero's
    assert any(f.scores.max() >= 500 for f in seen)  # some matches ended and started again
    assert (state.phase != OVER).all()
