"""SplitMix64 hashing of one game's counters, compiled: the seeded draws of compiled rules.

The same values as ``spades_env.engine.dealing.splitmix64`` and ``dealing.stream`` (the
NumPy versions over a batch), for one uint64 at a time inside Numba code. Every random
draw of a game is a hash of its key and a counter, so a batch of games plays exactly the
games each would play alone.
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
