"""The encoders' calls: any rows of any batch in one call, one game, a strided ``out``, Hearts'
plain reading, which encoder each game gets, and the errors for bad arguments."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spades_env import SpadesEngine
from spades_env import cards as C
from spades_env.engine import OVER, PLAY, EngineInputError
from spades_env.games.hearts.phases import PASS
from spades_env.observation import SCORE_CLIP, HeartsObservationEncoder, ObservationEncoder, encoder_for
from tests.conftest import step_live_games
from tests.spades_env.test_observation import reference


def hearts_reference(encoder: HeartsObservationEncoder, state, g: int, seat: int) -> np.ndarray:
    """The Hearts observation built one entry at a time, straight from its layout table."""
    e, n = encoder.engine, encoder.n_players
    obs = np.zeros(encoder.size, np.float32)
    v = lambda name: encoder.view(obs, name)  # noqa: E731 - writable views into obs
    rel = [(seat + j) % n for j in range(n)]
    v("hand")[C.mask_to_cards(int(state.hands[g, seat]))] = 1
    for j, a in enumerate(rel):
        v("played")[j, C.mask_to_cards(int(state.deal[g, a]) & ~int(state.hands[g, a]))] = 1
        if state.trick[g, a] >= 0:
            v("trick")[j, state.trick[g, a]] = 1
        if encoder.perfect_information:
            v("all_hands")[j, C.mask_to_cards(int(state.hands[g, a]))] = 1
        v("voids")[j] = state.void_suits()[g, a]
        v("points")[j] = state.points_taken[g, a] / 26
        v("tricks_won")[j] = state.tricks_won[g, a] / e.hand_size
    offset = int(e.pass_offset(state.hand_number[g : g + 1])[0])
    v("passed")[C.mask_to_cards(int(state.passed[g, seat]))] = 1
    if offset and state.phase[g] != PASS:
        v("received")[C.mask_to_cards(int(state.passed[g, (seat - offset) % n]))] = 1
    if state.led_suit[g] >= 0:
        v("led_suit")[state.led_suit[g]] = 1
    if state.phase[g] == PLAY:
        v("leader")[rel.index(int(state.leader[g]))] = 1
    v("hearts_broken")[0] = state.spades_broken[g]
    v("pass_direction")[state.hand_number[g] % 4] = 1
    v("phase")[[PASS, PLAY, OVER].index(int(state.phase[g]))] = 1
    if state.phase[g] != OVER:
        v("to_move")[rel.index(int(state.to_move[g]))] = 1
    v("dealer")[rel.index(int(state.dealer[g]))] = 1
    for j in range(encoder.n_sides):
        score = state.scores[g, e.rules.side_of_seat(rel[j])] / e.rules.target_score
        v("score")[j] = np.clip(score, -SCORE_CLIP, SCORE_CLIP)
    v("target")[0] = e.rules.target_score / 1000
    return obs


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(["partnership-house", "two-player", "jokers", "cutthroat-3", "hearts", "hearts-partnership"]),
    perfect=st.booleans(),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 400),
)
def test_batched_rows_equal_one_game_calls_and_the_plain_reading(rules, perfect, seed, steps):
    """Random states (face-up deals and Bemo in partnership-house, the pass in Hearts): every row
    of a batched call, any seat, games repeated and in any order, equals the one-game call bit for
    bit, and the plain reading of the layout; a non-contiguous ``out`` gets the same rows."""
    engine = SpadesEngine(rules)
    enc = encoder_for(engine, perfect_information=perfect)
    plain = hearts_reference if engine.rules.game == "hearts" else reference
    state = engine.reset(np.arange(8) + seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not step_live_games(engine, state, rng):
            break
    games = rng.integers(0, 8, 21)
    seats = rng.integers(0, engine.n_players, len(games))
    got = enc.encode(state, games, seats)
    strided = np.full((len(games), 2 * enc.size), np.nan, np.float32)[:, ::2]
    assert enc.encode(state, games, seats, out=strided) is strided
    assert strided.tobytes() == got.tobytes()
    for row, (g, seat) in enumerate(zip(games, seats, strict=True)):
        assert enc.encode(state, [g], [seat]).tobytes() == got[row].tobytes()
        np.testing.assert_allclose(got[row], plain(enc, state, int(g), int(seat)), rtol=1e-6, atol=1e-7)


def test_each_game_gets_its_encoder_and_the_spades_one_refuses_hearts():
    hearts = SpadesEngine("hearts")
    assert type(encoder_for(hearts)) is HeartsObservationEncoder
    assert type(encoder_for(SpadesEngine("two-player"))) is ObservationEncoder
    with pytest.raises(ValueError, match="needs Spades rules.*encoder_for"):
        ObservationEncoder(hearts)
    with pytest.raises(ValueError, match="needs Hearts rules"):
        HeartsObservationEncoder(SpadesEngine("partnership"))


@pytest.mark.parametrize("rules", ["partnership", "hearts"])
def test_bad_games_seats_and_out_are_refused_with_the_argument_named(rules):
    engine = SpadesEngine(rules)
    enc = encoder_for(engine)
    state = engine.reset([0, 1])
    with pytest.raises(EngineInputError, match=r"row 1 asks for seat 0 of game 2; the state holds games 0\.\.1"):
        enc.encode(state, [0, 2], [0, 0])
    with pytest.raises(EngineInputError, match="seat 4 of game 0"):
        enc.encode(state, [0], [4])
    with pytest.raises(EngineInputError, match="seat -1"):
        enc.encode(state, [0], [-1])
    with pytest.raises(EngineInputError, match="games and seats must have the same length, got 2 and 1"):
        enc.encode(state, [0, 1], [0])
    with pytest.raises(TypeError, match=r"games must be a 1-d array of integers, got float64 of shape \(1,\)"):
        enc.encode(state, [0.5], [0])
    with pytest.raises(TypeError, match=r"seats must be a 1-d array of integers, got int64 of shape \(1, 1\)"):
        enc.encode(state, [0], [[0]])
    every_other = np.zeros(4, np.int64)[::2]  # a strided view: games 0, 0 and seats 0, 0
    assert not every_other.flags.c_contiguous
    np.testing.assert_array_equal(enc.encode(state, every_other, every_other), enc.encode(state, [0, 0], [0, 0]))
    with pytest.raises(TypeError, match=rf"out must be a \(2, {enc.size}\) float32 array, got float64"):
        enc.encode(state, [0, 1], [0, 0], out=np.zeros((2, enc.size)))
    assert enc.encode(state, [], []).shape == (0, enc.size)
