"""Seeded, counter-based dealing: a game's deals depend only on its key and hand number.

Each game carries a 64-bit key. The deal of hand ``h`` is a shuffle driven by
SplitMix64 hashes of ``(key, h, position)``, so a batch of B games gives exactly
the deals of the same B games played one at a time, whatever else runs beside them.
"""

from __future__ import annotations

import numpy as np

from spades_env.engine import bits, inputs

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


def first_dealer(keys: np.ndarray, n_players: int) -> np.ndarray:
    """The random first dealer of each game's match (int64)."""
    return (stream(keys, 0, salt=7) % np.uint64(n_players)).astype(np.int64)


#: Added to the deal counter per weak-hand redeal, so that redeal 0 is the plain deal of the hand.
REDEAL_STRIDE = 1 << 20


def deal_counter(hand_number: np.ndarray, n_redeals: np.ndarray | int = 0) -> np.ndarray:
    """The counter that seeds the deal of a hand (and of its redeals)."""
    return np.asarray(hand_number, dtype=np.int64) + REDEAL_STRIDE * np.asarray(n_redeals, dtype=np.int64)


_POSITION_BITS = np.uint64(63)
_POSITIONS = np.arange(64, dtype=np.uint64)


def shuffle_order(keys: np.ndarray, counter: np.ndarray, n_cards: int) -> np.ndarray:
    """(B, n_cards) int64: each game's deck positions in shuffled order (the argsort of ``sort_keys``).

    The low 6 bits of each sort key are replaced by the key's position and the keys are
    sorted by value, which is several times faster than ``argsort``; the position then comes
    back out of the low bits. The order is the argsort's unless two keys of a deal agree on
    their top 58 bits (a chance of about 1e-14), when the lower position comes first.
    """
    return _sorted_positions(keys, counter, n_cards).astype(np.int64)


def shuffle(keys: np.ndarray, counter: np.ndarray, deck: tuple[int, ...]) -> np.ndarray:
    """Each game's shuffled deck: (B, len(deck)) int64 card ids (the two-player draw pile)."""
    order = shuffle_order(keys, counter, len(deck))
    if deck == tuple(range(len(deck))):
        return order
    return np.asarray(deck, dtype=np.int64)[order]


def _sorted_positions(keys: np.ndarray, counter: np.ndarray, n_cards: int) -> np.ndarray:
    """``shuffle_order`` as uint64 (a fresh array)."""
    if n_cards > 64:
        raise ValueError(f"a deck of at most 64 cards can be shuffled, got {n_cards}")
    tagged = sort_keys(keys, counter, n_cards)
    tagged &= ~_POSITION_BITS
    tagged |= _POSITIONS[:n_cards]
    tagged.sort(axis=1)
    tagged &= _POSITION_BITS
    return tagged


def sort_keys(keys: np.ndarray, counter: np.ndarray, n_cards: int) -> np.ndarray:
    """(B, n_cards) uint64 random sort keys: a deck position's key orders it in the shuffle.

    The 64-bit keys of one deal are distinct but for a chance of about 1e-16, so any sort
    (stable or not) gives the same shuffle.
    """
    base = stream(keys, counter, salt=11)
    z = base[:, None] ^ _POSITION_GAMMA[:n_cards]
    z += _GOLDEN
    return _finalize(z)


#: ``position * golden gamma``: XORed into a deal's base hash to key each deck position.
_POSITION_GAMMA = np.arange(64, dtype=np.uint64) * _GOLDEN


def pick_cards(keys: np.ndarray, counter: np.ndarray, masks: np.ndarray, k: int) -> np.ndarray:
    """k seeded random cards of each (B, N) uint64 mask, as (B, N) uint64 masks (face-up cards)."""
    b, n = masks.shape
    left = masks.reshape(-1).copy()
    picked = np.zeros_like(left)
    base = np.repeat(stream(keys, counter, salt=13), n) ^ np.tile(np.arange(n, dtype=np.uint64), b)
    for j in range(k):
        count = np.maximum(bits.popcount(left), 1).astype(np.uint64)
        card = bits.select_kth(left, (splitmix64(base + np.uint64(j)) % count).astype(np.int64))
        card_bit = np.where(left != 0, bits.BIT[card], np.uint64(0))
        picked |= card_bit
        left &= ~card_bit
    return picked.reshape(b, n)


def deal(keys: np.ndarray, hand_number: np.ndarray, deck: tuple[int, ...], n_players: int) -> np.ndarray:
    """Shuffle ``deck`` for each game and deal it out: (B, n_players) uint64 hands.

    ``hand_number`` is the deal counter (see ``deal_counter``).
    """
    hand_size = len(deck) // n_players
    positions = _sorted_positions(keys, hand_number, len(deck))[:, : hand_size * n_players]
    if deck == tuple(range(len(deck))):  # a position is its card id: its bit is 1 << position
        card_bits = np.left_shift(np.uint64(1), positions, out=positions).reshape(-1)
    else:
        card_bits = bits.BIT[np.asarray(deck, dtype=np.int64)[positions.astype(np.int64)]].reshape(-1)
    # A hand is the OR of its cards' bits; the bits are distinct, so a segmented sum is the same.
    hands = np.add.reduceat(card_bits, np.arange(0, card_bits.size, hand_size))
    return hands.reshape(len(keys), n_players)
