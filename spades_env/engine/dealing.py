"""Seeded, counter-based dealing: a game's deals depend only on its key and hand number.

Each game carries a 64-bit key. The deal of hand ``h`` is a shuffle driven by
SplitMix64 hashes of ``(key, h, position)``, so a batch of B games gives exactly
the deals of the same B games played one at a time, whatever else runs beside them.
The shuffle, the deal, the pile and the face-up cards are written once, for one game, in
``spades_env.core.deal``; the batch functions here run it in a compiled loop over the games.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from spades_env.core import deal as core_deal
from spades_env.core import hashing
from spades_env.core.deal import REDEAL_STRIDE
from spades_env.engine import inputs

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finalizer of uint64 values (vectorized, wraps modulo 2**64)."""
    z = np.asarray(x, dtype=np.uint64)
    if z.ndim == 0:  # NumPy warns on scalar overflow only; arrays wrap silently (and fast)
        return splitmix64(z.reshape(1))[0]
    return _finalize(z + _GOLDEN)


def _finalize(z: np.ndarray) -> np.ndarray:
    """The mixing rounds of SplitMix64, in place on ``z`` (its input plus the golden gamma)."""
    z ^= z >> _S30
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z


def game_keys(seeds: np.ndarray | list[int] | int) -> np.ndarray:
    """Per-game keys (uint64) from integer seeds in 0 .. 2**64 - 1 (checked by ``inputs.seed_array``)."""
    return splitmix64(splitmix64(inputs.seed_array(seeds)))


_U64_MASK = (1 << 64) - 1


def splitmix64_int(x: int) -> int:
    """``splitmix64`` of one Python int in 0 .. 2**64 - 1 (the same value, without array overhead)."""
    z = (x + int(_GOLDEN)) & _U64_MASK
    z = ((z ^ (z >> 30)) * int(_M1)) & _U64_MASK
    z = ((z ^ (z >> 27)) * int(_M2)) & _U64_MASK
    return z ^ (z >> 31)


def _mixed_counter_int(counter: int, salt: int) -> int:
    """What ``stream`` XORs into a key for (counter, salt), for one counter."""
    return splitmix64_int((int(counter) * 1_000_003 + salt) & _U64_MASK)


def stream_int(key: int, counter: int, salt: int) -> int:
    """``stream`` of one game, in Python ints."""
    return splitmix64_int(key ^ _mixed_counter_int(counter, salt))


def stream(keys: np.ndarray, counter: np.ndarray | int, salt: int) -> np.ndarray:
    """A fresh uint64 per game for (key, counter, salt)."""
    if isinstance(counter, (int, np.integer)):  # one counter for all games: mix it once
        mixed = np.uint64(_mixed_counter_int(counter, salt))
    else:
        c = np.atleast_1d(np.asarray(counter, dtype=np.uint64))
        table = _mixed_counter_table(salt)
        if len(c) and c.max() < len(table):  # the usual small counters (hand numbers): looked up
            mixed = table[c]
        else:
            mixed = _mix_counters(c, salt)
    return splitmix64(keys ^ mixed)


def _mix_counters(counters: np.ndarray, salt: int) -> np.ndarray:
    """What ``stream`` XORs into a key for each uint64 counter and ``salt``."""
    return splitmix64(counters * np.uint64(1_000_003) + np.uint64(salt))


_MIXED_COUNTERS: dict[int, np.ndarray] = {}


def _mixed_counter_table(salt: int) -> np.ndarray:
    """What ``stream`` XORs into a key for counters 0..1023 and ``salt`` (kept per salt)."""
    table = _MIXED_COUNTERS.get(salt)
    if table is None:
        table = _MIXED_COUNTERS[salt] = _mix_counters(np.arange(1024, dtype=np.uint64), salt)
        table.flags.writeable = False
    return table


def hand_keys(keys: np.ndarray, hand_numbers: np.ndarray | int) -> np.ndarray:
    """(B,) uint64: the key of hand ``hand_numbers`` of each game's match (``core.hashing.hand_key``), the
    ``FinishedHands.hand_key`` and record ``hand_key`` of that hand."""
    keys, numbers = _keys_and_counters(keys, hand_numbers, 0)
    out = np.empty(len(keys), np.uint64)
    hashing.hand_key_each(keys, numbers, out)
    return out


def first_dealer(keys: np.ndarray, n_players: int) -> np.ndarray:
    """The random first dealer of each game's match (int64): ``core.deal.first_dealer`` of each key."""
    keys = _keys(keys)
    out = np.empty(len(keys), np.int64)
    core_deal.first_dealer_each(keys, n_players, out)
    return out


def deal_counter(hand_number: np.ndarray, n_redeals: np.ndarray | int = 0) -> np.ndarray:
    """The counter that seeds the deal of a hand (and of its redeals): ``core.deal.deal_counter``."""
    return np.asarray(hand_number, dtype=np.int64) + REDEAL_STRIDE * np.asarray(n_redeals, dtype=np.int64)


def shuffle_order(keys: np.ndarray, counter: np.ndarray, n_cards: int) -> np.ndarray:
    """(B, n_cards) int64: each game's deck positions in shuffled order (``core.deal.shuffle_order``:
    the argsort of ``sort_keys``, the lower position first where two keys agree on their top 58 bits)."""
    keys, counters = _keys_and_counters(keys, counter, n_cards)
    out = np.empty((len(keys), n_cards), np.int64)
    core_deal.shuffle_order_each(keys, counters, out)
    return out


def shuffle(keys: np.ndarray, counter: np.ndarray, deck: tuple[int, ...]) -> np.ndarray:
    """Each game's shuffled deck: (B, len(deck)) int64 card ids (the two-player draw pile)."""
    keys, counters = _keys_and_counters(keys, counter, len(deck))
    out = np.empty((len(keys), len(deck)), np.int64)
    core_deal.shuffle_each(keys, counters, _deck_array(deck), out)
    return out


def sort_keys(keys: np.ndarray, counter: np.ndarray, n_cards: int) -> np.ndarray:
    """(B, n_cards) uint64 random sort keys: a deck position's key orders it in the shuffle.

    The 64-bit keys of one deal are distinct but for a chance of about 1e-16, so any sort
    (stable or not) gives the same shuffle.
    """
    keys, counters = _keys_and_counters(keys, counter, n_cards)
    out = np.empty((len(keys), n_cards), np.uint64)
    core_deal.sort_keys_each(keys, counters, out)
    return out


def pick_cards(keys: np.ndarray, counter: np.ndarray, masks: np.ndarray, k: int) -> np.ndarray:
    """k seeded random cards of each (B, N) uint64 mask, as (B, N) uint64 masks (face-up cards)."""
    masks = np.ascontiguousarray(masks, dtype=np.uint64)
    keys, counters = _keys_and_counters(keys, counter, 0)
    out = np.empty(masks.shape, np.uint64)
    core_deal.pick_cards_each(keys, counters, masks, int(k), out)
    return out


def deal(keys: np.ndarray, hand_number: np.ndarray, deck: tuple[int, ...], n_players: int) -> np.ndarray:
    """Shuffle ``deck`` for each game and deal it out: (B, n_players) uint64 hands.

    ``hand_number`` is the deal counter (see ``deal_counter``).
    """
    keys, counters = _keys_and_counters(keys, hand_number, len(deck))
    out = np.empty((len(keys), n_players), np.uint64)
    core_deal.deal_each(keys, counters, _deck_array(deck), out)
    return out


def _keys(keys) -> np.ndarray:
    return np.ascontiguousarray(np.atleast_1d(keys), dtype=np.uint64)


def _keys_and_counters(keys, counter, n_cards: int) -> tuple[np.ndarray, np.ndarray]:
    """(B,) uint64 keys and (B,) int64 counters (one counter for all games is broadcast)."""
    if n_cards > 64:
        raise ValueError(f"a deck of at most 64 cards can be shuffled, got {n_cards}")
    keys = _keys(keys)
    counters = np.ascontiguousarray(np.broadcast_to(np.asarray(counter, dtype=np.int64), keys.shape))
    return keys, counters


@lru_cache(maxsize=16)
def _deck_array(deck: tuple[int, ...]) -> np.ndarray:
    """The deck's card ids as an int64 array (kept per deck, never written: writable so that the
    compiled loops share the one-game functions' compiled versions with other callers')."""
    return np.array(deck, dtype=np.int64)
