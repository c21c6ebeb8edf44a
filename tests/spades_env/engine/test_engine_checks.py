"""The engine's checks: the invariant checker, the reference engine's refusals, auto-reset, the mask as the
step's contract, random actions, state concat."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from spades_env import IllegalActionError, Rules, SpadesEngine, list_presets
from spades_env.engine import OVER, PLAY, dealing
from spades_env.engine.check import check_state
from spades_env.engine.sampling import sample_legal
from tests.conftest import hand, whole_suit

NO_BLIND = Rules.preset("partnership-no-blind-nil")


# ------------------------------------------------------------------ the invariant checker
def _corrupt_duplicate(state):
    h = state.hands[0, 0]
    state.hands[0, 1] |= h & (~h + np.uint64(1))  # seat 1 also holds seat 0's lowest card


CORRUPTIONS = {
    "dtype": (lambda s: setattr(s, "scores", s.scores.astype(np.int32)), "field 'scores'"),
    "shape": (lambda s: setattr(s, "bids", s.bids[:, :3]), "field 'bids'"),
    "duplicate-card": (_corrupt_duplicate, "not dealt to it"),
    "lost-card": (lambda s: s.hands.__setitem__((0, 2), s.hands[0, 2] & (s.hands[0, 2] - np.uint64(1))), "played"),
    "phase": (lambda s: s.phase.__setitem__(0, 99), "phase out of range"),
    "pass phase": (lambda s: s.phase.__setitem__(0, 7), "a phase these rules never reach"),
    "tricks": (lambda s: s.tricks_won.__setitem__((0, 0), 1), "tricks_won"),
    "winner-while-live": (lambda s: s.winner.__setitem__(0, 1), "winner"),
    "bid-out-of-turn": (lambda s: s.to_move.__setitem__(0, (s.to_move[0] + 1) % 4), "turn"),
}


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_check_state_catches_broken_states(name):
    engine = SpadesEngine(NO_BLIND)
    state = engine.reset([3, 4])
    check_state(engine, state)
    corrupt, message = CORRUPTIONS[name]
    corrupt(state)
    with pytest.raises(AssertionError, match=message):
        check_state(engine, state)


def test_reference_engine_rejects_illegal_actions(suit_deal):
    from spades_env.games.spades.reference import SpadesReferenceGame as ReferenceGame

    game = ReferenceGame(NO_BLIND, suit_deal, dealer=0)
    assert game.current_player() == 1 and game.phase == "bid"
    with pytest.raises(ValueError, match="illegal action 0"):
        game.step(0)
    for _ in range(4):
        game.step(52 + 1)
    assert game.phase == "play" and game.legal_actions() == whole_suit("D")


@pytest.mark.parametrize("preset", ["partnership", "cutthroat-3", "two-player", "hearts", "partnership-house"])
def test_auto_reset_equals_restarting_finished_matches(preset):
    """step(auto_reset=True) plays exactly the matches of step() + start_matches(splitmix64(key))."""
    engine = SpadesEngine(preset)
    a = engine.reset(np.arange(24))
    b = a.copy()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(1500):
        mask = engine.legal_action_mask(a)
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        ra = engine.step(a, actions, auto_reset=True)
        rb = engine.step(b, actions)
        over = np.flatnonzero(b.phase == OVER)
        np.testing.assert_array_equal(rb.match_done, b.phase == OVER)
        np.testing.assert_array_equal(ra.winner, np.where(rb.match_done, b.winner, -1))
        engine.start_matches(b, over, dealing.splitmix64(b.key[over]))
        ended += len(over)
        for f in dataclasses.fields(a):
            np.testing.assert_array_equal(getattr(a, f.name), getattr(b, f.name), err_msg=f.name)
        np.testing.assert_array_equal(ra.match_done, rb.match_done)
        np.testing.assert_array_equal(ra.score_delta, rb.score_delta)
        assert not np.any(a.phase == OVER)
    assert ended > 0


@pytest.mark.parametrize("preset", list_presets())
def test_step_accepts_exactly_the_actions_of_the_mask(preset):
    """For states met in random play, step() accepts every masked action and raises
    IllegalActionError (leaving the game unchanged) for every other one, out-of-range ones too."""
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(6))
    rng = np.random.default_rng(11)
    checked = []
    for t in range(400):
        mask = engine.legal_action_mask(state)
        deciding = np.flatnonzero(state.phase != PLAY)  # bids, blind nil, draws, passes ...
        if t % 23 == 0 or (len(deciding) and len(checked) < 12 and t % 3 == 0):
            g = int(rng.choice(deciding)) if len(deciding) and t % 23 else int(rng.integers(len(mask)))
            one = state.take([g])
            checked.append(int(one.phase[0]))
            for action in range(-1, engine.layout.n_actions + 1):
                trial = one.copy()
                legal = 0 <= action < engine.layout.n_actions and mask[g, action]
                if legal:
                    engine.step(trial, [action])
                else:
                    with pytest.raises(IllegalActionError, match="legal actions"):
                        engine.step(trial, [action])
                    if action in (-1, 0, engine.layout.n_actions):  # and nothing changed (a sample)
                        for f in dataclasses.fields(one):
                            np.testing.assert_array_equal(getattr(trial, f.name), getattr(one, f.name))
        engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1), auto_reset=True)
    assert PLAY in checked and len(set(checked)) >= 2, checked


WEAK_HANDS_MIN_BID = dataclasses.replace(Rules.preset("partnership"), misdeal_weak_hand=True, min_team_bid=4)


@pytest.mark.parametrize("preset", [*list_presets(), WEAK_HANDS_MIN_BID])
def test_random_actions_draw_what_sample_legal_draws_from_the_mask(preset):
    """``random_actions`` skips the mask for cards, bids and blind nil, yet draws the same
    actions as ``sample_legal`` on the mask from the same generator state, in every phase
    (and with the weak-hand redeal and a minimum team bid, which no preset has)."""
    engine = SpadesEngine(preset)
    if preset is WEAK_HANDS_MIN_BID:  # seat 1 bids first with a weak hand; the next hands are random
        weak = [
            hand("JH QH KH AH 6D 7D 8D 9D TD JD QD KD AD"),
            hand("2H 3H 4H 5H 6H 7H 8H 9H TH 2D 3D 4D 5D"),
            whole_suit("C"),
            whole_suit("S"),
        ]
        state = engine.reset(np.arange(64), deals=[weak] * 64, dealers=0)
    else:
        state = engine.reset(np.arange(64))
    ours, theirs = np.random.default_rng(3), np.random.default_rng(3)
    phases, redeals = set(), 0
    for _ in range(300):
        phases.update(np.unique(state.phase).tolist())
        actions = engine.random_actions(state, ours)
        np.testing.assert_array_equal(actions, sample_legal(engine.legal_action_mask(state), theirs))
        redeals += np.count_nonzero(actions == engine.layout.redeal)
        engine.step(state, actions, auto_reset=True)
    assert PLAY in phases and len(phases) >= 2, phases
    if preset is WEAK_HANDS_MIN_BID:
        assert redeals > 0


def test_random_actions_give_0_for_finished_matches():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(3))
    state.phase[1] = OVER
    assert engine.random_actions(state, np.random.default_rng(0))[1] == 0


def test_concat_of_taken_games_gives_back_the_batch_and_copies_it():
    engine = SpadesEngine(Rules())
    state = engine.reset(np.arange(5))
    engine.step(state, sample_legal(engine.legal_action_mask(state), np.random.default_rng(0)))
    joined = type(state).concat([state.take([0, 1]), state.take([2]), state.take([3, 4])])
    for f in dataclasses.fields(state):
        assert np.array_equal(getattr(joined, f.name), getattr(state, f.name)), f.name
    joined.hands[0] = ~joined.hands[0]
    assert not np.array_equal(joined.hands[0], state.hands[0])
