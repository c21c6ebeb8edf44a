"""The heuristic's decisions of the variants: the two-player draw and exchange, Bemo, the weak-hand redeal,
forced bids, jokers."""

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent
from agents.base import DecisionContext
from agents.search import sample_hidden_hands
from spades_env import cards
from spades_env.engine import PLAY, SpadesEngine, bits
from spades_env.games.spades.params import BEMO, BID, BLIND, DRAW, EXCHANGE
from train.evaluation.tournament import play_games


def _hand(text: str) -> list[int]:
    return [cards.parse_card(t) for t in text.split()]


def _heuristic_actions(engine, state, agent=None):
    masks = engine.legal_action_mask(state)
    ctx = DecisionContext(engine, state, np.arange(state.batch_size), state.to_move.copy())
    actions = (agent or HeuristicAgent()).act(None, masks, ctx)
    assert masks[np.arange(state.batch_size), actions].all()
    return actions


def _pile(engine, placed: dict[int, str]) -> list[int]:
    """A two-player pile with the given cards at the given positions, the rest in deck order."""
    fixed = {pos: cards.parse_card(c) for pos, c in placed.items()}
    rest = iter(c for c in engine.deck if c not in fixed.values())
    return [fixed.get(pos, None) if pos in fixed else next(rest) for pos in range(len(engine.deck))]


def _two_player_after_blind(pile, blind_seat=None):
    """Two-player hand with dealer 0: seat 1 then seat 0 decide blind nil, then the draw starts."""
    engine = SpadesEngine("two-player")
    lay = engine.layout
    state = engine.reset(0, piles=[pile], dealers=[0])
    for seat in (1, 0):
        assert state.to_move[0] == seat
        engine.step(state, [lay.blind_nil if seat == blind_seat else lay.look])
    return engine, state


@pytest.mark.parametrize(("shown", "keep"), [("AS", True), ("3S", True), ("KD", True), ("2H", False), ("7C", False)])
def test_draw_keeps_likely_tricks_and_discards_low_side_cards(shown, keep):
    engine = SpadesEngine("two-player")
    engine, state = _two_player_after_blind(_pile(engine, {0: shown}))
    assert state.phase[0] == DRAW and state.shown[0] == cards.parse_card(shown)
    lay = engine.layout
    assert _heuristic_actions(engine, state)[0] == (lay.keep if keep else lay.discard)


def test_blind_nil_drawer_keeps_low_cards_and_exchange_gives_up_high_spades_then_aces():
    engine = SpadesEngine("two-player")
    lay = engine.layout
    # With "keep" every time, seat 1 (non-dealer, blind nil) keeps pile positions 2, 6, 10, ...
    kept = "AS KS AH 2C 3C 4C 5C 2D 3D 4D 2H 3H 4H".split()
    pile = _pile(engine, {2 + 4 * k: card for k, card in enumerate(kept)})
    engine, state = _two_player_after_blind(pile, blind_seat=1)
    for _ in range(26):
        engine.step(state, [lay.keep])
    assert state.phase[0] == EXCHANGE and state.to_move[0] == 1
    given = []
    while state.phase[0] == EXCHANGE:
        action = int(_heuristic_actions(engine, state)[0])
        given.append(action)
        engine.step(state, [action])
    assert [cards.card_name(c) for c in given[:3]] == ["AS", "KS", "AH"]

    # While drawing, a blind-nil player keeps a low side card and discards a high spade.
    for shown, expected in (("3H", lay.keep), ("QS", lay.discard)):
        engine2 = SpadesEngine("two-player")
        pile = _pile(engine2, {0: "2C", 1: "3C", 2: shown})
        engine2, state2 = _two_player_after_blind(pile, blind_seat=1)
        engine2.step(state2, [lay.keep])  # the dealer's draw
        assert state2.to_move[0] == 1 and state2.shown[0] == cards.parse_card(shown)
        assert _heuristic_actions(engine2, state2)[0] == expected


def test_never_declares_bemo_with_a_weak_hand_and_never_big_bemo():
    engine = SpadesEngine("partnership-house")
    lay = engine.layout
    state = engine.reset(np.arange(400))
    agent = HeuristicAgent()
    decisions = 0
    for _ in range(12):  # four bids (and redeals), then the Bemo decisions
        actions = _heuristic_actions(engine, state, agent)
        bemo = np.flatnonzero(state.phase == BEMO)
        est = agent.estimate_tricks(engine, state.hands[bemo, state.to_move[bemo]])
        assert (actions[bemo] != lay.big_bemo).all()
        assert (actions[bemo][est < agent.bemo_threshold] == lay.no_bemo).all()
        decisions += len(bemo)
        engine.step(state, actions)
    assert decisions > 0


def test_declares_little_bemo_with_a_very_strong_hand():
    engine = SpadesEngine("partnership-house")
    lay = engine.layout
    strong = _hand("AS KS QS JS TS 9S AH KH QH AD KD AC 3C")  # seat 1: bids first
    partner = _hand("8S 7S 6S JH TH JD TD QC JC 9H 9D 2S 3S")  # seat 3
    rest = [c for c in range(52) if c not in strong + partner]
    deal = [rest[:13], strong, rest[13:], partner]
    state = engine.reset(0, deals=[deal], dealers=[0])
    while state.phase[0] != BEMO:
        assert state.phase[0] in (BLIND, BID)
        engine.step(state, _heuristic_actions(engine, state))
    assert state.bids[0, 1] + state.bids[0, 3] >= 10
    while state.phase[0] == BEMO:
        seat = int(state.to_move[0])
        action = int(_heuristic_actions(engine, state)[0])
        expected = lay.little_bemo if seat == 1 else lay.no_bemo
        if engine.side_of_seat[seat] == 1:
            assert action == expected
        engine.step(state, [action])
    assert state.bemo[0].tolist() == [0, 1]  # side 1 (seats 1 and 3) declared little Bemo


@pytest.mark.parametrize(("weak", "expected"), [("AC", "redeal"), ("7C", "nil")])
def test_weak_hand_redeals_unless_it_is_a_nil(weak, expected):
    engine = SpadesEngine("partnership-house")
    hand = _hand(f"{weak} 2C 3C 4C 5C 6C 2D 3D 4D 5D 2H 3H 4H")  # no spade, no J Q K
    rest = [c for c in range(52) if c not in hand]
    state = engine.reset(0, deals=[[rest[:13], hand, rest[13:26], rest[26:]]], dealers=[0])
    assert state.phase[0] == BLIND and state.to_move[0] == 1
    engine.step(state, [engine.layout.look])
    assert state.phase[0] == BID and state.to_move[0] == 1
    action = int(_heuristic_actions(engine, state)[0])
    want = engine.layout.redeal if expected == "redeal" else engine.layout.bid_action(0)
    assert action == want


@pytest.mark.parametrize("preset", ["mirror", "fourteen"])
def test_forced_bids_come_through_the_mask(preset):
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(64))
    for _ in range(4):
        lo, hi = engine.bid_range(state)
        actions = _heuristic_actions(engine, state) - engine.layout.bid_offset
        assert ((actions >= lo) & (actions <= hi)).all()
        engine.step(state, actions + engine.layout.bid_offset)
    if preset == "mirror":
        assert (state.bids == bits.popcount(state.deal & cards.TRUMP_MASK)).all()
    else:
        assert (state.bids[:, 0::2].sum(axis=1) == 7).all() and (state.bids >= 2).all()


def test_jokers_are_the_top_trumps_for_the_heuristic():
    engine = SpadesEngine("jokers")
    agent = HeuristicAgent()
    with_jokers = np.array([cards.cards_to_mask(_hand("BJ LJ AS 3C 4C 5C 6D 7D 8D 3H 4H 5H 6H"))], dtype=np.uint64)
    without = np.array([cards.cards_to_mask(_hand("4S 5S 6S 3C 4C 5C 6D 7D 8D 3H 4H 5H 6H"))], dtype=np.uint64)
    assert agent.estimate_tricks(engine, with_jokers)[0] >= 2.5
    assert agent.estimate_tricks(engine, without)[0] < 1.0


def _play_to(engine, state, plays: int):
    """Heuristic moves until every game has played ``plays`` cards of the hand (all in PLAY)."""
    agent = HeuristicAgent()
    for _ in range(200):
        done = (state.phase == PLAY) & (state.n_tricks * engine.n_players + state.n_in_trick >= plays)
        if done.all():
            return
        actions = _heuristic_actions(engine, state, agent)
        live = np.flatnonzero(~done)
        sub = state.take(live)
        engine.step(sub, actions[live])
        state.put(live, sub)
    raise AssertionError("did not reach the position")


def test_sampled_hands_two_player_face_up_and_jokers():
    rng = np.random.default_rng(0)
    for preset in ("two-player", "partnership-house", "jokers"):
        engine = SpadesEngine(preset)
        state = engine.reset(np.arange(24))
        _play_to(engine, state, 5)
        games, seats = np.arange(24), state.to_move.copy()
        hands = sample_hidden_hands(engine, state, games, seats, 6, rng)
        assert (bits.popcount(hands) == bits.popcount(state.hands)[:, None, :]).all()
        assert (hands[games, :, seats] == state.hands[games, seats][:, None]).all()
        union = np.bitwise_or.reduce(hands, axis=2)
        played = np.bitwise_or.reduce(state.deal & ~state.hands, axis=1)
        assert not (union & played[:, None]).any()
        voids = state.void_suits()
        assert not (voids[:, None] & (bits.lanes(hands, 4) > 0)).any()
        trump_void = voids[:, None, :, cards.SPADES]
        assert not (trump_void & ((hands & cards.JOKER_MASK) != 0)).any()
        if engine.rules.two_player:
            mine = state.discards[games, seats] | state.exchanged_out[games, seats]
            assert not (union & mine[:, None]).any()  # own discards are out of play (no blind nil here)
            assert not state.blind.any()
        if engine.rules.face_up_deal:
            known = state.face_up & state.hands  # face-up cards still held stay with their holders
            assert ((hands & known[:, None, :]) == known[:, None, :]).all()
            assert known.any()


def test_play_games_refuses_a_bot_that_does_not_support_the_rules():
    class Picky(RandomAgent):
        name = "picky"

        def supports(self, engine):
            return not engine.rules.two_player

    engine = SpadesEngine("two-player")
    with pytest.raises(ValueError, match="'picky' does not support the rules 'two-player'"):
        play_games(engine, np.arange(2), np.zeros((2, 2), dtype=np.int64), [Picky(seed=0)], "hand")
