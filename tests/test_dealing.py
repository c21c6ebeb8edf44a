"""Seeded dealing [RULES 1]: the shuffle is the order of per-position random sort keys."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spades_env import cards
from spades_env.engine import dealing

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
