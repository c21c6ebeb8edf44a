"""Seeded dealing [RULES 1]: the shuffle is the order of per-position random sort keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import spades_env
from spades_env import Rules, SpadesEngine, cards
from spades_env.core import deal as core_deal
from spades_env.engine import dealing
from spades_env.games import spec
from spades_env.rules import resolve_rules

keys = st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(keys=keys, counter=st.integers(0, 10**6), n_cards=st.sampled_from([2, 36, 48, 52, 54]))
def test_shuffle_order_is_the_argsort_of_the_sort_keys(keys, counter, n_cards):
    k = np.array(keys, np.uint64)
    c = np.full(len(k), counter, np.int64)
    expected = np.argsort(dealing.sort_keys(k, c, n_cards), axis=1, kind="stable")
    assert np.array_equal(dealing.shuffle_order(k, c, n_cards), expected)


@settings(max_examples=30, deadline=None)
@given(keys=keys, counter=st.integers(0, 1000))
def test_deal_gives_each_player_a_hand_of_the_shuffled_deck(keys, counter):
    k = np.array(keys, np.uint64)
    c = np.full(len(k), counter, np.int64)
    deck = tuple(range(cards.N_STANDARD_CARDS))
    hands = dealing.deal(k, c, deck, 4)
    order = dealing.shuffle(k, c, deck)
    for g in range(len(k)):
        for seat in range(4):
            assert hands[g, seat] == cards.cards_to_mask(order[g, 13 * seat : 13 * seat + 13].tolist())


def test_shuffle_of_a_deck_that_is_not_0_to_n_maps_positions_to_its_cards():
    k, c = np.array([1, 2, 3], np.uint64), np.zeros(3, np.int64)
    deck = tuple(range(2, 54))
    assert np.array_equal(dealing.shuffle(k, c, deck), np.array(deck)[dealing.shuffle_order(k, c, len(deck))])


def test_decks_over_64_cards_are_refused():
    with pytest.raises(ValueError, match="at most 64 cards"):
        dealing.shuffle_order(np.array([1], np.uint64), np.zeros(1, np.int64), 65)


@settings(max_examples=40, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**22)), min_size=1, max_size=20),
    salt=st.sampled_from([7, 11, 13, 29]),
)
def test_stream_of_a_counter_array_is_the_per_game_stream(pairs, salt):
    """Small counters are looked up in a kept table, large ones mixed directly: either way
    each game gets the stream of its own (key, counter)."""
    k = np.array([p[0] for p in pairs], np.uint64)
    c = np.array([p[1] for p in pairs], np.int64)
    expected = [dealing.stream_int(int(key), int(counter), salt) for key, counter in pairs]
    assert dealing.stream(k, c, salt).tolist() == expected
    small = c % 1024
    assert dealing.stream(k, small, salt).tolist() == [
        dealing.stream_int(int(key), int(counter), salt) for key, counter in zip(k, small, strict=True)
    ]


# --- The compiled one-game dealing (core.deal) against a plain-Python statement of the shuffle.
PRESETS = [p.stem for p in sorted((Path(spades_env.__file__).parent / "presets").glob("*.yaml"))]
_MASK64 = (1 << 64) - 1


def _python_shuffle_order(key: int, counter: int, n_cards: int) -> list[int]:
    """[RULES 1] in Python ints: position p's sort key is splitmix64(stream(key, counter, 11) ^ p * gamma)
    with its low 6 bits replaced by p; the positions in increasing key order."""
    base = dealing.stream_int(key, counter, 11)
    tagged = [
        (dealing.splitmix64_int(base ^ ((p * 0x9E3779B97F4A7C15) & _MASK64)) & ~63 & _MASK64) | p
        for p in range(n_cards)
    ]
    return [t & 63 for t in sorted(tagged)]


def _python_pick(key: int, counter: int, mask: int, seat: int, k: int) -> int:
    """Face-up cards [RULES 6] in Python ints: draw j is card splitmix64((stream ^ seat) + j) % left."""
    base, picked = dealing.stream_int(key, counter, 13) ^ seat, 0
    for j in range(k):
        left = [c for c in range(64) if mask >> c & 1 and not picked >> c & 1]
        if not left:
            break
        picked |= 1 << left[dealing.splitmix64_int((base + j) & _MASK64) % len(left)]
    return picked


DECKS = {
    name: Rules.preset(name).deck for name in ("partnership", "jokers", "two-player", "cutthroat-3", "cutthroat-5")
}


@settings(max_examples=25, deadline=None)
@given(key=st.integers(0, 2**64 - 1), counter=st.integers(0, 2**22), deck=st.sampled_from(sorted(DECKS)))
def test_compiled_shuffle_of_one_game_is_the_plain_python_shuffle(key, counter, deck):
    cards_in_play = np.array(DECKS[deck], np.int64)
    expected = _python_shuffle_order(key, counter, len(cards_in_play))
    order = np.empty(len(cards_in_play), np.int64)
    core_deal.shuffle_order(np.uint64(key), counter, order)
    assert order.tolist() == expected
    pile = np.empty(len(cards_in_play), np.int64)
    core_deal.shuffle(np.uint64(key), counter, cards_in_play, pile)
    assert pile.tolist() == cards_in_play[expected].tolist()
    batch = dealing.shuffle(np.array([key, key], np.uint64), np.array([counter, counter]), DECKS[deck])
    assert batch.tolist() == [pile.tolist()] * 2


@settings(max_examples=25, deadline=None)
@given(key=st.integers(0, 2**64 - 1), counter=st.integers(0, 2**22), n_players=st.sampled_from([3, 4, 5, 6]))
def test_compiled_deal_and_face_up_cards_are_the_plain_python_ones(key, counter, n_players):
    deck = Rules(n_players=n_players, partnership=False).deck
    order = _python_shuffle_order(key, counter, len(deck))
    size = len(deck) // n_players
    hands = np.empty(n_players, np.uint64)
    core_deal.deal(np.uint64(key), counter, np.array(deck, np.int64), hands)
    expected = [cards.cards_to_mask([deck[p] for p in order[s * size : (s + 1) * size]]) for s in range(n_players)]
    assert hands.tolist() == expected
    picked = np.empty(n_players, np.uint64)
    core_deal.pick_cards(np.uint64(key), counter, hands, 4, picked)
    assert picked.tolist() == [_python_pick(key, counter, int(h), s, 4) for s, h in enumerate(expected)]
    partial = hands & np.uint64(0x5555555555555555)
    partial[0] = 0  # an empty hand gets no card
    core_deal.pick_cards(np.uint64(key), counter, partial, 14, picked)
    assert picked.tolist() == [_python_pick(key, counter, int(h), s, 14) for s, h in enumerate(partial)]
    assert picked[0] == 0


def test_first_dealer_and_deal_counter_are_the_plain_python_ones():
    keys = [0, 1, 12345, 2**64 - 1, 0xDEADBEEF_CAFEBABE]
    for n in (2, 3, 4, 6):
        expected = [dealing.stream_int(k, 0, 7) % n for k in keys]
        assert [core_deal.first_dealer(np.uint64(k), n) for k in keys] == expected
        assert dealing.first_dealer(np.array(keys, np.uint64), n).tolist() == expected
    assert core_deal.deal_counter(3, 2) == 3 + 2 * dealing.REDEAL_STRIDE == dealing.deal_counter(3, 2)


@pytest.mark.parametrize("preset", PRESETS)
def test_deal_next_hand_deals_what_the_engine_deals(preset):
    """``core.deal.deal_next_hand`` of each game writes the hands, deal, pile and face-up cards that
    the engine's reset wrote; and hand h after r redeals is ``dealing.deal`` of that counter."""
    rules = resolve_rules(preset)
    engine = SpadesEngine(rules)
    state = engine.reset(np.arange(6) * 1000 + 7)
    state.hand_number[:] = [0, 1, 2, 5, 0, 9]
    spades = rules.game == "spades"  # the redeals, the pile and the face-up cards are Spades' fields
    redeals = np.array([0, 0, 1, 0, 2, 3]) if spades else np.zeros(6, np.int64)
    fresh = state.copy()
    pile = fresh.pile if spades else np.zeros((6, 0), np.int64)
    face_up = fresh.face_up if spades else np.zeros_like(fresh.hands)
    face_up_deal = spec(rules.game).face_up_deal(rules)
    for field in (fresh.hands, fresh.deal, pile) + ((face_up,) if face_up_deal else ()):
        field[:] = 1  # overwritten by the deal (face_up is left alone without ``face_up_deal``)
    deck = np.array(rules.deck, np.int64)
    n_face_up = 4 if face_up_deal else 0
    for i in range(6):
        args = (fresh.key, fresh.hand_number, redeals, deck, rules.two_player, n_face_up)
        core_deal.deal_next_hand(i, *args, fresh.hands, fresh.deal, pile, face_up)
    counters = dealing.deal_counter(state.hand_number, redeals)
    if rules.two_player:
        assert np.array_equal(pile, dealing.shuffle(state.key, counters, rules.deck))
        assert not fresh.hands.any() and not fresh.deal.any()
    else:
        assert np.array_equal(fresh.hands, dealing.deal(state.key, counters, rules.deck, rules.n_players))
        assert np.array_equal(fresh.deal, fresh.hands)
    if face_up_deal:
        assert np.array_equal(face_up, dealing.pick_cards(state.key, counters, fresh.deal, 4))
    first = engine.reset(np.arange(6) * 1000 + 7)  # game 0 is hand 0 with no redeal: reset's deal
    for name in ("hands", "deal") + (("pile", "face_up") if spades else ()):
        assert np.array_equal(getattr(fresh, name)[0], getattr(first, name)[0]), name
    assert np.array_equal(fresh.hand_number, state.hand_number) and (fresh.phase == state.phase).all()
