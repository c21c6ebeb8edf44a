"""The compiled one-game hashes give the NumPy batch hashes' values."""

import numpy as np

from spades_env.core import hashing
from spades_env.engine import dealing


def test_splitmix64_matches_the_batch_version():
    xs = np.random.default_rng(0).integers(0, 2**64, size=200, dtype=np.uint64, endpoint=False)
    xs = np.concatenate([xs, np.array([0, 1, 2**64 - 1], dtype=np.uint64)])
    expected = dealing.splitmix64(xs)
    assert [int(hashing.splitmix64(x)) for x in xs] == [int(v) for v in expected]


def test_stream_matches_the_batch_version_for_small_and_large_counters():
    keys = dealing.game_keys(np.arange(50))
    for counter in (0, 3, 1023, 1024, 1 << 20, 123_456_789):
        for salt in (7, 11, 13, 29):
            expected = dealing.stream(keys, np.full(len(keys), counter), salt=salt)
            got = [int(hashing.stream(k, counter, salt)) for k in keys]
            assert got == [int(v) for v in expected], (counter, salt)
