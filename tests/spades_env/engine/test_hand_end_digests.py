"""Seeded games through the compiled hand end equal main's engine before it (NumPy hand end).

Each run plays random legal games of a preset and hashes, every step, every ``GameState``
array, the legal-action mask, the ``random_actions`` draw, the ``StepResult`` arrays and every
``FinishedHands`` field (values, dtypes and shapes), in the layout of then, when every state held every game's
fields (``tests.union_layout``: a field the game lacks hashed as that engine held it). ``EXPECTED`` holds the
digests that the engine of commit 291dd36 (the NumPy hand end of ``engine.hand_cycle``) gave for the same runs:
B = 7 with ``auto_reset``, B = 1 with ``auto_reset``, and B = 5 played until every match is
OVER; the starting scores near the target make matches end within the run.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from spades_env import SpadesEngine
from spades_env.engine import OVER
from spades_env.engine.dealing import hand_keys
from spades_env.rules_yaml import list_presets
from tests.union_layout import union_arrays, union_finished

#: (batch size, auto_reset, steps, seed, starting points below the target or None)
RUNS = ((7, True, 400, 3, 30), (1, True, 300, 11, 15), (5, False, 500, 5, 40))
#: preset -> per run of ``RUNS``: (digest, finished hands, matches ended), from commit 291dd36.
EXPECTED = {
    "cutthroat-3": [["8d980be4629a760d1ab2", 49, 12], ["c237deaf3f4d66c6d6a4", 5, 3], ["a94972854cb3d418ba75", 19, 5]],
    "cutthroat-4": [["dce6954db018bd462e01", 49, 8], ["b441f92d34fc336bfd41", 5, 2], ["edc4ab39f22d3d6d48b1", 31, 4]],
    "cutthroat-5": [["f4220736956b5b79b24e", 49, 7], ["9edf9ffc20d430815e5d", 5, 2], ["9676360f26db5f9024c2", 45, 1]],
    "cutthroat-6": [["e12534c632a705e82b6a", 49, 8], ["f47e78e1efceba60829c", 5, 2], ["718b829b1a6a064cd1e5", 23, 3]],
    "fourteen": [["c6731711999a8b4b915e", 49, 8], ["91dd25e97da26e900061", 5, 2], ["4dc3a01822dace845d10", 5, 5]],
    "hearts": [["06683b825f481dc6abe7", 42, 7], ["14e572780dda07a68567", 4, 1], ["99b558bf1ec4d66ab4f7", 22, 5]],
    "hearts-50": [["7ce09352c61b442151ca", 42, 8], ["29ac6c345e79e68af506", 4, 1], ["ccd4b6f86c4d3b6d16d4", 22, 5]],
    "hearts-partnership": [
        ["85bb641af7d0cc310e64", 42, 8],
        ["dd345ed5ea10dc58e4b8", 4, 1],
        ["8435a429b0be31720b8f", 15, 5],
    ],
    "jokers": [["9f96cad7491f595ac9e5", 42, 29], ["c9573ee34559e3dcaf73", 5, 4], ["d42dd54d37dc4dfbdc20", 12, 5]],
    "mirror": [["47fa6c9bfba338e6e89a", 49, 9], ["5f213142555f8465c82d", 5, 1], ["2415f733de071c332b7c", 8, 5]],
    "partnership": [["5ce1957c852bd7e941a9", 42, 27], ["1f7430c2919c2837b6da", 5, 4], ["f6365cb776dc31e689e1", 12, 5]],
    "partnership-250": [
        ["ee38ffb2a4360d552be6", 42, 32],
        ["aa615fd0ddfdeb002036", 5, 4],
        ["3240683fba33f14937f7", 10, 5],
    ],
    "partnership-house": [
        ["578052ebd1735bec566d", 42, 34],
        ["22faa1a7b9cb92b58dd5", 5, 4],
        ["5fffb4dae2ff1cb60e0c", 10, 5],
    ],
    "partnership-no-blind-nil": [
        ["e4699035cf143876905a", 49, 16],
        ["5c5a0f330feb14b25594", 5, 2],
        ["6c2d3a2865fda3494652", 21, 5],
    ],
    "partnership-tournament": [
        ["12d7495183ffffc7b7da", 49, 8],
        ["f3f127a11ff0919c07dd", 5, 1],
        ["690dd6f4b26bac221d15", 28, 5],
    ],
    "two-player": [["a7141b92a6b90ca7e08e", 43, 17], ["d521be831ee66a82ad45", 5, 2], ["08c947380c2ff6676c02", 16, 5]],
}


#: ``FinishedHands``' fields at commit 291dd36, in order: its ``key`` was the match key, which a finished hand now
#: replaces by its one-way ``hand_key`` (issue 52); its later fields (``exchanged_in``, ``face_up``) are state arrays
#: the digest already holds.
FINISHED_FIELDS_AT_291DD36 = (
    "games", "deal", "dealer", "history", "bids", "blind", "tricks_won", "trick_winners", "start_scores",
    "start_bags", "delta", "scores", "bags", "made", "bags_added", "bag_penalties", "bemo", "pile", "discards",
    "exchanged_out", "passed", "hand_number", "points_taken", "key",
)  # fmt: skip


def _feed(h, a) -> None:
    a = np.asarray(a)
    h.update(str((a.dtype.str, a.shape)).encode())
    h.update(np.ascontiguousarray(a).tobytes())


def play_digest(preset: str, b: int, auto_reset: bool, steps: int, seed: int, near: int | None):
    """(digest, hands finished, matches ended) of a run."""
    engine = SpadesEngine(preset)
    r = engine.rules
    scores = None if near is None else [[r.target_score - near] * r.n_sides] * b
    state = engine.reset(np.arange(b) + seed, scores=scores)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    n_hands = n_matches = 0
    for _ in range(steps):
        for a in union_arrays(state):
            _feed(h, a)
        _feed(h, engine.legal_action_mask(state))
        actions = engine.random_actions(state, rng)
        _feed(h, actions)
        if (state.phase == OVER).all():
            break
        match_keys = state.key.copy()  # the key of the match each finished hand belongs to
        result = engine.step(state, actions, validate=auto_reset, auto_reset=auto_reset)
        for name in ("hand_done", "match_done", "score_delta", "winner"):
            _feed(h, getattr(result, name))
        n_matches += int(result.match_done.sum())
        for finished in result.finished:
            n_hands += len(finished.games)
            keys = match_keys[finished.games]
            # The hand key is the one-way digest of the match key and the hand (never the key itself).
            np.testing.assert_array_equal(finished.hand_key, hand_keys(keys, finished.hand_number))
            assert not np.isin(finished.hand_key, keys).any()
            for name in FINISHED_FIELDS_AT_291DD36:  # the fields as that engine gave them, its match key included
                _feed(h, keys if name == "key" else union_finished(finished, name))
            _feed(h, union_finished(finished, "nil_made"))
            _feed(h, union_finished(finished, "nil_failed"))
    return [h.hexdigest()[:20], n_hands, n_matches]


@pytest.mark.parametrize("preset", sorted(EXPECTED))
def test_seeded_games_are_main_engines_games(preset):
    got = [play_digest(preset, *run) for run in RUNS]
    assert got == EXPECTED[preset]
    assert all(n_hands > 0 and n_matches > 0 for _, n_hands, n_matches in got)  # the runs end hands and matches


def test_every_preset_is_pinned():
    assert sorted(EXPECTED) == sorted(list_presets())
