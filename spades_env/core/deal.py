"""Seeded dealing of one game, compiled: the shuffle, the deal, the two-player pile, face-up cards.

A game's deals depend only on its 64-bit key and a deal counter (``deal_counter``: the hand
number, plus ``REDEAL_STRIDE`` per weak-hand redeal) [RULES 1, 6]. The shuffle of a deck of
n <= 64 cards: deck position p gets the sort key ``splitmix64(stream(key, counter, 11) ^ p *
GOLDEN)``, and the positions are taken in increasing key order. The low 6 bits of each key are
replaced by its position before sorting, so that the keys are distinct and the position comes
back out of them; two keys that agree on their top 58 bits (a chance of about 1e-14 per deal)
keep the lower position first. These are the values of ``engine.dealing`` (which runs these
functions over a batch), so a batch of B games deals exactly what each game would alone.

Every function works on one game and writes into rows the caller gives (``deck`` is an int64
array of the card ids in play, in id order). The one-game entry point of the engine is
``deal_next_hand(i, key, hand_number, n_redeals, deck, two_player, n_face_up, hands, deal, pile,
face_up)``: it deals hand ``hand_number[i]`` of game ``i`` (after ``n_redeals[i]`` redeals) and
writes ``hands[i]``, ``deal[i]``, ``pile[i]`` and ``face_up[i]``, nothing else.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from spades_env.core.hashing import GOLDEN, splitmix64, stream

#: Added to the deal counter per weak-hand redeal, so that redeal 0 is the plain deal of the hand.
REDEAL_STRIDE = 1 << 20
#: The ``stream`` salts of the random first dealer, the shuffle and the face-up cards.
FIRST_DEALER_SALT, SHUFFLE_SALT, FACE_UP_SALT = 7, 11, 13
#: The low bits of a sort key that hold the deck position (decks of at most 64 cards).
_POSITION_BITS = np.uint64(63)
#: ``sorted_tagged_keys`` counts the keys into buckets by their top 7 bits.
_N_BUCKETS, _BUCKET_SHIFT = 128, np.uint64(57)


@njit(cache=True)
def deal_counter(hand_number, n_redeals):
    """The counter that seeds the deal of hand ``hand_number`` after ``n_redeals`` redeals (int64)."""
    return np.int64(hand_number) + REDEAL_STRIDE * np.int64(n_redeals)


@njit(cache=True)
def first_dealer(key, n_players):
    """The random first dealer of the match of ``key`` (int64 seat)."""
    return np.int64(stream(key, 0, FIRST_DEALER_SALT) % np.uint64(n_players))


@njit(cache=True)
def sort_keys(key, counter, out):
    """The random sort key of each deck position 0 .. len(out) - 1, into ``out`` (uint64)."""
    base = stream(key, counter, SHUFFLE_SALT)
    for p in range(len(out)):
        out[p] = splitmix64(base ^ (np.uint64(p) * GOLDEN))


@njit(cache=True)
def sorted_tagged_keys(key, counter, n_cards):
    """The deal's sort keys of positions 0 .. n_cards - 1, each with its low 6 bits replaced by
    its position, in increasing order (a fresh uint64 array): ``& 63`` of each is the shuffle.

    A counting sort on the top 7 bits, then an insertion sort, which only has to reorder the
    keys that share those bits: several times faster than a general sort of a deck.
    """
    scratch = np.empty(2 * n_cards + _N_BUCKETS, np.uint64)  # one allocation: tagged keys, sorted, counts
    tagged, out, starts = scratch[:n_cards], scratch[n_cards : 2 * n_cards], scratch[2 * n_cards :]
    sort_keys(key, counter, tagged)
    for b in range(_N_BUCKETS):  # loops, not slice assignments: those are slow to compile
        starts[b] = 0
    for p in range(n_cards):
        t = (tagged[p] & ~_POSITION_BITS) | np.uint64(p)
        tagged[p] = t
        starts[t >> _BUCKET_SHIFT] += np.uint64(1)
    total = np.uint64(0)
    for b in range(_N_BUCKETS):
        count = starts[b]
        starts[b] = total
        total += count
    for p in range(n_cards):
        t = tagged[p]
        b = t >> _BUCKET_SHIFT
        out[starts[b]] = t
        starts[b] += np.uint64(1)
    for j in range(1, n_cards):
        t = out[j]
        k = j - 1
        while k >= 0 and out[k] > t:
            out[k + 1] = out[k]
            k -= 1
        out[k + 1] = t
    return out


@njit(cache=True)
def shuffle_order(key, counter, out):
    """The deck positions 0 .. len(out) - 1 in shuffled order (increasing sort key), into ``out``
    (int64); the lower position first where two keys agree on their top 58 bits."""
    tagged = sorted_tagged_keys(key, counter, len(out))
    for j in range(len(out)):
        out[j] = np.int64(tagged[j] & _POSITION_BITS)


@njit(cache=True)
def shuffle(key, counter, deck, out):
    """The cards of ``deck`` in shuffled order, top first, into ``out`` (int64, len(deck)): the
    two-player draw pile [RULES 4]."""
    shuffle_order(key, counter, out)
    for j in range(len(out)):
        out[j] = deck[out[j]]


@njit(cache=True)
def deal(key, counter, deck, out):
    """Shuffle ``deck`` and deal it out, ``len(deck) // len(out)`` cards a player in shuffled
    order (player 0 the first ones), into ``out`` (uint64 hands, one per player) [RULES 1]."""
    n_players = len(out)
    hand_size = len(deck) // n_players
    tagged = sorted_tagged_keys(key, counter, len(deck))
    for seat in range(n_players):
        hand = np.uint64(0)
        for j in range(seat * hand_size, (seat + 1) * hand_size):
            hand |= np.uint64(1) << np.uint64(deck[tagged[j] & _POSITION_BITS])
        out[seat] = hand


@njit(cache=True)
def _select_kth(mask, k):
    """The card id of set bit ``k`` (0 = the lowest) of ``mask``."""
    for _ in range(k):
        mask &= mask - np.uint64(1)
    return trailing_zeros(mask)


@njit(cache=True)
def _popcount(m):
    """The number of set bits of a uint64."""
    m = m - ((m >> np.uint64(1)) & np.uint64(0x5555555555555555))
    m = (m & np.uint64(0x3333333333333333)) + ((m >> np.uint64(2)) & np.uint64(0x3333333333333333))
    m = (m + (m >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((m * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def pick_cards(key, counter, masks, k, out):
    """``k`` seeded random cards of each mask of ``masks`` (uint64, one per player), as masks into
    ``out``: the cards dealt face up [RULES 6]. Draw j of player s is card ``splitmix64((stream(key,
    counter, 13) ^ s) + j) % (cards left)`` of those not yet drawn, in id order."""
    base = stream(key, counter, FACE_UP_SALT)
    for s in range(len(masks)):
        left = masks[s]
        picked = np.uint64(0)
        for j in range(k):
            if left == np.uint64(0):
                break
            draw = splitmix64((base ^ np.uint64(s)) + np.uint64(j)) % np.uint64(_popcount(left))
            bit = np.uint64(1) << np.uint64(_select_kth(left, np.int64(draw)))
            picked |= bit
            left &= ~bit
        out[s] = picked


@njit(cache=True)
def deal_next_hand(i, key, hand_number, n_redeals, deck, two_player, n_face_up, hands, deal_rows, pile, face_up):
    """Deal hand ``hand_number[i]`` of game ``i`` after ``n_redeals[i]`` redeals, in place.

    Two-player (``two_player`` True): ``pile[i]`` is the shuffled deck and ``hands[i]`` and
    ``deal_rows[i]`` are emptied (the hands are drawn from the pile) [RULES 4]. Otherwise the
    shuffled deck is dealt into ``hands[i]`` and ``deal_rows[i]``. With ``n_face_up`` > 0,
    ``face_up[i]`` gets that many cards of each dealt hand [RULES 6]. ``key`` (B,) uint64,
    ``hand_number`` and ``n_redeals`` (B,) int64 are the ``GameState`` fields; nothing else of
    the state is touched (the phase, dealer, bids and tricks are the caller's).
    """
    counter = deal_counter(hand_number[i], n_redeals[i])
    if two_player:
        shuffle(key[i], counter, deck, pile[i])
        for seat in range(hands.shape[1]):
            hands[i, seat] = 0
            deal_rows[i, seat] = 0
    else:
        deal(key[i], counter, deck, hands[i])
        for seat in range(hands.shape[1]):
            deal_rows[i, seat] = hands[i, seat]
    if n_face_up > 0:
        pick_cards(key[i], counter, deal_rows[i], n_face_up, face_up[i])


# Over a batch (B,) of keys and counters, one game at a time: ``engine.dealing``'s batch functions. They
# live beside the one-game functions so that a change to these invalidates their Numba cache too.
@njit(cache=True)
def first_dealer_each(keys, n_players, out):
    """``first_dealer`` of each key into ``out`` (B,) int64."""
    for g in range(len(keys)):
        out[g] = first_dealer(keys[g], n_players)


@njit(cache=True)
def sort_keys_each(keys, counters, out):
    """``sort_keys`` of each game into the rows of ``out`` (B, n) uint64."""
    for g in range(len(keys)):
        sort_keys(keys[g], counters[g], out[g])


@njit(cache=True)
def shuffle_order_each(keys, counters, out):
    """``shuffle_order`` of each game into the rows of ``out`` (B, n) int64."""
    for g in range(len(keys)):
        shuffle_order(keys[g], counters[g], out[g])


@njit(cache=True)
def shuffle_each(keys, counters, deck, out):
    """``shuffle`` of ``deck`` for each game into the rows of ``out`` (B, len(deck)) int64."""
    for g in range(len(keys)):
        shuffle(keys[g], counters[g], deck, out[g])


@njit(cache=True)
def deal_each(keys, counters, deck, out):
    """``deal`` of ``deck`` for each game into the rows of ``out`` (B, N) uint64."""
    for g in range(len(keys)):
        deal(keys[g], counters[g], deck, out[g])


@njit(cache=True)
def pick_cards_each(keys, counters, masks, k, out):
    """``pick_cards`` of each game's ``masks`` row into the rows of ``out`` (B, N) uint64."""
    for g in range(len(keys)):
        pick_cards(keys[g], counters[g], masks[g], k, out[g])
