"""Nothing ``VectorSpades`` reports of a finished hand (its infos, the hands' records) deals a later hand.

The old leak: ``FinishedHands`` and every record carried the match key, and dealing hand ``hand_number + 1``
from it (or hand 0 from ``splitmix64`` of it, the next match's key) gave the next deal of every game. Now
they carry the hand's ``hand_key`` (SipHash-2-4 under the match key): here every integer they hold is
tried as a key, as a seed and as the key before the next match's, for every deal counter up to the next
hand's, and none deals what the game dealt next; the same attack with the true match key does.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from spades_env.engine import dealing
from spades_env.envs.vector import VectorSpades

PRESETS = ["partnership", "cutthroat-4", "hearts", "two-player"]
#: Seeds no program is given (small seeds are among the scores and card ids a step reports).
SEED = 0x2C9F_5EED_0000_0000


def _dealt(env: VectorSpades, keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """(K, ...) what each key deals at each counter: the hands, or the two-player pile."""
    rules = env.rules
    if rules.two_player:
        return dealing.shuffle(keys, counters, rules.deck)
    return dealing.deal(keys, counters, rules.deck, rules.n_players)


def _next_deals(env: VectorSpades, games: np.ndarray) -> np.ndarray:
    """What the games hold as their next hand, dealt in the step that finished theirs."""
    return (env.state.pile if env.rules.two_player else env.state.deal)[games].copy()


def _integers(value) -> set[int]:
    """Every integer in what a step reported (infos, ``FinishedHands``, records), as a uint64 (negative ones
    wrapped)."""
    if dataclasses.is_dataclass(value):
        value = vars(value)
    if isinstance(value, dict):
        return set().union(set(), *(_integers(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(set(), *(_integers(v) for v in value))
    if isinstance(value, np.ndarray) and value.dtype.kind in "iub":
        return {v % 2**64 for v in np.unique(value).tolist()}
    if isinstance(value, int | np.integer):
        return {int(value) % 2**64}
    return set()


def _finished_steps(preset: str, n_hands: int):
    """(what the step reported, the games whose hand finished, their keys before and after, hand numbers, next deals)
    of the steps of random play that finished at least ``n_hands`` hands in all."""
    env = VectorSpades(preset, num_envs=8, seed=SEED)
    rules = env.rules
    near_the_end = np.full((8, rules.n_sides), rules.target_score - 30)  # some matches end: new keys
    _, info = env.reset(options={"scores": np.where(np.arange(8)[:, None] % 2, near_the_end, 0)})
    rng = np.random.default_rng(3)
    steps, total = [], 0
    while total < n_hands:
        key_before = env.state.key.copy()
        weights = rng.random(info["action_mask"].shape) * info["action_mask"]
        _, _, _, _, info = env.step(weights.argmax(axis=1))
        if info["finished_hands"]:
            games = np.concatenate([f.games for f in info["finished_hands"]])
            numbers = np.concatenate([f.hand_number for f in info["finished_hands"]])
            reported = [info, env.hand_records()]
            steps.append((reported, games, key_before[games], env.state.key[games], numbers, _next_deals(env, games)))
            total += len(games)
    return env, steps


@pytest.mark.parametrize("preset", PRESETS)
def test_no_number_reported_of_a_finished_hand_deals_the_next_one(preset):
    env, steps = _finished_steps(preset, n_hands=12)
    rows = lambda deals: {d.tobytes() for d in deals}  # noqa: E731
    assert any((after != before).any() for _, _, before, after, _, _ in steps)  # a match ended: a new key
    for reported, _, key_before, key_after, numbers, next_deals in steps:
        # The old attack, with the match key: hand n + 1 of that key, or hand 0 of the next match's.
        new_match = key_after != key_before
        attack_key = np.where(new_match, dealing.splitmix64(key_before), key_before)
        attack = _dealt(env, attack_key, np.where(new_match, 0, numbers + 1))
        assert rows(attack) == rows(next_deals)
        # Every integer reported, as a key, a seed or the key before the next match's, at every counter.
        candidates = np.array(sorted(_integers(reported)), dtype=np.uint64)
        keys = np.concatenate([candidates, dealing.game_keys(candidates), dealing.splitmix64(candidates)])
        counters = np.arange(int(numbers.max()) + 2)
        predicted = _dealt(env, np.repeat(keys, len(counters)), np.tile(counters, len(keys)))
        assert not rows(predicted) & rows(next_deals), preset
        assert len(candidates) > 50 and not set(key_before.tolist()) & set(candidates.tolist())


def test_a_records_hand_key_is_its_hand_of_its_match_only():
    env, steps = _finished_steps("partnership", n_hands=8)
    for reported, _, key_before, _, numbers, _ in steps:
        records = reported[1]
        assert [r["hand_key"] for r in records] == dealing.hand_keys(key_before, numbers).tolist()
        assert all("key" not in r for r in records)
        assert not set(dealing.hand_keys(key_before, numbers + 1).tolist()) & _integers(reported)
