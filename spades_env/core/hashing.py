"""SplitMix64 hashing of one game's counters, compiled: the seeded draws of compiled rules.

The same values as ``spades_env.engine.dealing.splitmix64`` and ``dealing.stream`` (the
NumPy versions over a batch), for one uint64 at a time inside Numba code. Every random
draw of a game is a hash of its key and a counter, so a batch of games plays exactly the
games each would play alone.

SplitMix64 is a bijection: a ``stream`` value gives back its key (``key_for_stream``, which a
replay uses to make the engine draw a recorded card). So a finished hand is named by its
``hand_key`` (SipHash-2-4, a keyed pseudorandom function, of the hand number under the match
key), which gives back neither the match key nor any deal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_COUNTER_STRIDE = np.uint64(1_000_003)


@njit(cache=True)
def finalize(z):
    """The mixing rounds of SplitMix64 of ``z`` (its input plus the golden gamma), uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def splitmix64(x):
    """SplitMix64 of one uint64 (wraps modulo 2**64): ``dealing.splitmix64``."""
    return finalize(np.uint64(x) + GOLDEN)


@njit(cache=True)
def stream(key, counter, salt):
    """A fresh uint64 for (key, counter, salt): ``dealing.stream`` of one game."""
    mixed = splitmix64(np.uint64(counter) * _COUNTER_STRIDE + np.uint64(salt))
    return splitmix64(np.uint64(key) ^ mixed)


#: SipHash-2-4's initialization constants ("somepseudorandomlygeneratedbytes").
_SIP_V0, _SIP_V1 = np.uint64(0x736F6D6570736575), np.uint64(0x646F72616E646F6D)
_SIP_V2, _SIP_V3 = np.uint64(0x6C7967656E657261), np.uint64(0x7465646279746573)
#: The last block of a message of one 8-byte word: its length (8) in the top byte.
_SIP_LAST_BLOCK = np.uint64(8 << 56)
#: The second 64-bit word of the SipHash key of ``hand_key`` (the first is the match key).
HAND_KEY_K1 = np.uint64(0x6861_6E64_6B65_7931)  # "handkey1"


@njit(cache=True, inline="always")
def _rotl(x, b):
    return (x << np.uint64(b)) | (x >> np.uint64(64 - b))


@njit(cache=True, inline="always")
def _sip_rounds(v0, v1, v2, v3, n):
    """``n`` SipRounds of the state (v0, v1, v2, v3)."""
    for _ in range(n):
        v0 += v1
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 += v3
        v3 = _rotl(v3, 16) ^ v2
        v0 += v3
        v3 = _rotl(v3, 21) ^ v0
        v2 += v1
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


@njit(cache=True)
def siphash24(k0, k1, m):
    """SipHash-2-4 (Aumasson and Bernstein's keyed pseudorandom function) under the 128-bit key
    (``k0``, ``k1``) of the 8-byte message whose little-endian value is ``m`` (all uint64)."""
    k0, k1, m = np.uint64(k0), np.uint64(k1), np.uint64(m)
    v0, v1, v2, v3 = k0 ^ _SIP_V0, k1 ^ _SIP_V1, k0 ^ _SIP_V2, k1 ^ _SIP_V3
    for block in (m, _SIP_LAST_BLOCK):
        v3 ^= block
        v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 2)
        v0 ^= block
    v2 ^= np.uint64(0xFF)
    v0, v1, v2, v3 = _sip_rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


@njit(cache=True)
def hand_key(key, hand_number):
    """The key of hand ``hand_number`` of the match of ``key`` (uint64): SipHash-2-4 of the hand number
    under the match key. It names the hand in its records; unlike every ``stream`` value (SplitMix64 is
    a bijection, so each gives back the key), it cannot be turned into the match key or a later deal."""
    return siphash24(key, HAND_KEY_K1, np.uint64(hand_number))


@njit(cache=True)
def hand_key_each(keys, hand_numbers, out):
    """``hand_key`` of each (key, hand number) into ``out`` (B,) uint64."""
    for g in range(len(keys)):
        out[g] = hand_key(keys[g], hand_numbers[g])


_U64 = (1 << 64) - 1


def _unshift_xor(y: int, shift: int) -> int:
    """The x with ``x ^ (x >> shift) == y`` (64-bit ints)."""
    x = y
    for _ in range(64 // shift):
        x = y ^ (x >> shift)
    return x


def unsplitmix64(z: int) -> int:
    """The x with ``splitmix64(x) == z``, for a Python int in 0 .. 2**64 - 1 (SplitMix64 is a bijection)."""
    z = _unshift_xor(z, 31)
    z = (z * pow(int(_M2), -1, 1 << 64)) & _U64
    z = _unshift_xor(z, 27)
    z = (z * pow(int(_M1), -1, 1 << 64)) & _U64
    z = _unshift_xor(z, 30)
    return (z - int(GOLDEN)) & _U64


def key_for_stream(value: int, counter: int, salt: int) -> int:
    """The key with ``stream(key, counter, salt) == value`` (Python ints): a replay sets it so that the
    engine's one draw from that stream gives the card a record lists."""
    mixed = int(splitmix64(np.uint64((counter * int(_COUNTER_STRIDE) + salt) & _U64)))
    return unsplitmix64(value) ^ mixed
