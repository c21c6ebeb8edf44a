"""Two-player Spades (docs/rules.md section 4): the draw, the roles, blind nil and the exchange, with worked
examples."""

import numpy as np
import pytest

from spades_env import SpadesEngine, cards
from spades_env.core import bits
from spades_env.engine.state import PLAY
from spades_env.games.spades.params import BID, BLIND, DRAW, EXCHANGE
from spades_env.rules import Rules
from tests.spades_env.games.spades.test_variants import check_invariants


def two_player_pile():
    return list(range(52))  # top of the pile first: 2C, 3C, ...


def test_two_player_draw_alternates_and_gives_13_cards_each_with_26_discards():
    engine = SpadesEngine(Rules(n_players=2, partnership=False, blind_nil=False))
    lay = engine.layout
    state = engine.reset(0, piles=[two_player_pile()], dealers=[1])
    assert state.phase[0] == DRAW and state.to_move[0] == 1 and state.shown[0] == 0
    movers = []
    for k in range(26):
        movers.append(int(state.to_move[0]))
        assert state.shown[0] == 2 * k
        engine.step(state, [lay.keep if k % 3 else lay.discard])
        check_invariants(engine, state)
    assert movers == [1, 0] * 13
    assert bits.popcount(state.hands[0]).tolist() == [13, 13]
    assert bits.popcount(state.discards[0]).sum() == 26
    assert (state.seen[0] == state.hands[0] | state.discards[0]).all()
    assert state.hands[0, 1] & bits.BIT[1] and state.discards[0, 1] & bits.BIT[0]  # draw 0: discard 2C, keep 3C
    assert state.hands[0, 0] & bits.BIT[2] and state.discards[0, 0] & bits.BIT[3]  # draw 1: keep, discard next
    assert state.phase[0] == BID and state.to_move[0] == 0  # the non-dealer bids first
    engine.step(state, [lay.bid_action(4)])
    assert state.to_move[0] == 1
    engine.step(state, [lay.bid_action(5)])
    assert state.phase[0] == PLAY and state.to_move[0] == 0 and state.leader[0] == 0  # and leads
    assert (state.deal[0] == state.hands[0]).all()


def test_two_player_roles_alternate_each_hand():
    engine = SpadesEngine(Rules(n_players=2, partnership=False, blind_nil=False))
    state = engine.reset(0, dealers=[0])
    rng = np.random.default_rng(0)
    while state.hand_number[0] == 0:
        mask = engine.legal_action_mask(state)
        engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1))
    assert state.dealer[0] == 1 and state.phase[0] == DRAW and state.to_move[0] == 1


def test_two_player_blind_nil_before_the_draw_then_exchange_up_to_three():
    engine = SpadesEngine("two-player")
    lay = engine.layout
    state = engine.reset(3, piles=[two_player_pile()], dealers=[0])
    assert state.phase[0] == BLIND and state.to_move[0] == 1  # the non-dealer decides first
    engine.step(state, [lay.blind_nil])
    assert state.phase[0] == BLIND and state.to_move[0] == 0
    engine.step(state, [lay.look])
    assert state.phase[0] == DRAW and state.to_move[0] == 0
    for _ in range(26):
        engine.step(state, [lay.keep])
    assert state.phase[0] == EXCHANGE and state.to_move[0] == 1
    mask = engine.legal_action_mask(state)[0]
    assert mask[lay.exchange_done] and mask[:52].sum() == 13
    before = int(state.hands[0, 1])
    given = cards.mask_to_cards(before)[:3]
    for c in given[:2]:
        engine.step(state, [c])
        check_invariants(engine, state)
    assert state.phase[0] == EXCHANGE
    engine.step(state, [given[2]])  # the third exchange ends the phase
    assert state.phase[0] == BID and state.to_move[0] == 0
    hand = int(state.hands[0, 1])
    assert bits.popcount(state.hands[0:1, 1])[0] == 13
    assert all(not (hand >> c) & 1 for c in given)
    new = cards.mask_to_cards(int(state.exchanged_in[0, 1]))
    assert len(new) == 3 and all((int(state.discards[0].sum()) >> c) & 1 or True for c in new)
    all_discards = int(state.discards[0, 0] | state.discards[0, 1])
    assert all((all_discards >> c) & 1 for c in new)
    assert state.bids[0].tolist() == [-1, 0]
    engine.step(state, [lay.bid_action(6)])
    assert state.phase[0] == PLAY and state.to_move[0] == 1  # the non-dealer leads


def test_two_player_exchange_is_seeded_and_can_stop_early():
    engine = SpadesEngine("two-player")
    lay = engine.layout
    results = []
    for _ in range(2):
        state = engine.reset(11, piles=[two_player_pile()], dealers=[1])
        engine.step(state, [lay.look])  # seat 0, non-dealer
        engine.step(state, [lay.blind_nil])  # dealer
        for _ in range(26):
            engine.step(state, [lay.discard])
        assert state.phase[0] == EXCHANGE and state.to_move[0] == 1
        engine.step(state, [cards.mask_to_cards(int(state.hands[0, 1]))[0]])
        engine.step(state, [lay.exchange_done])
        assert state.phase[0] == BID and state.to_move[0] == 0
        results.append(int(state.hands[0, 1]))
    assert results[0] == results[1]


def test_two_player_needs_piles_not_deals():
    engine = SpadesEngine("two-player")
    with pytest.raises(ValueError, match="piles"):
        engine.reset(0, deals=[[[0], [1]]])
