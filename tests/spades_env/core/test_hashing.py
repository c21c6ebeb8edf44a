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


# SipHash-2-4's published vectors (the reference implementation's ``vectors_sip64``): key 00 01 .. 0f,
# message 00 01 .. 07 (entry 8, one 8-byte word); the key and message as little-endian words.
_SIP_KEY = (0x0706050403020100, 0x0F0E0D0C0B0A0908)


def test_siphash24_gives_the_published_vector_of_one_word():
    assert int(hashing.siphash24(*_SIP_KEY, 0x0706050403020100)) == 0x93F5F5799A932462


def test_hand_key_is_siphash_of_the_hand_number_under_the_match_key_in_batch_and_alone():
    keys = dealing.game_keys(np.arange(40))
    numbers = np.arange(40) % 7
    batch = dealing.hand_keys(keys, numbers)
    alone = [int(hashing.siphash24(k, hashing.HAND_KEY_K1, n)) for k, n in zip(keys, numbers, strict=True)]
    assert [int(v) for v in batch] == alone
    assert len(set(alone)) == len(alone)  # every (match, hand) its own key
    assert int(dealing.hand_keys(keys[:1], 1)[0]) != int(batch[0]) != int(keys[0])


def test_unsplitmix64_inverts_splitmix64_and_key_for_stream_gives_the_stream_value():
    xs = np.random.default_rng(1).integers(0, 2**64, size=100, dtype=np.uint64, endpoint=False)
    for x in [*xs, np.uint64(0), np.uint64(2**64 - 1)]:
        assert hashing.unsplitmix64(int(hashing.splitmix64(x))) == int(x)
    for value in (0, 7, 2**63 + 5, 2**64 - 1):
        for counter in (0, 37, 1 << 40):
            key = hashing.key_for_stream(value, counter, 29)
            assert int(hashing.stream(np.uint64(key), counter, 29)) == value
