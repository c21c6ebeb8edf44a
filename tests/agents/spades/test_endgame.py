"""The compiled endgame solver (``agents.spades.endgame``) against brute force on small endgames."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.base import DecisionContext
from agents.spades.endgame import NO_VALUE, endgame_tables, solve_positions
from spades_env import cards
from spades_env.engine import SpadesEngine
from spades_env.engine.state import RESTRICTED_LEAD
from spades_env.rules import resolve_rules
from tests.endgame_positions import brute_values, endgame_states


def _check_against_brute_force(preset: str, tricks_left: int, count: int, seed: int, adjust_bags: bool = True):
    engine = SpadesEngine(resolve_rules(preset))
    state = endgame_states(engine, tricks_left, count, seed)
    games = np.arange(state.batch_size)
    values = solve_positions(engine, state, games, state.hands, adjust_bags)
    for g in games:
        expected = brute_values(engine.rules, state, g, adjust_bags)
        got = {int(c): float(values[g, c]) for c in np.flatnonzero(values[g] != NO_VALUE)}
        assert got == expected, f"{preset} position {g}"
    return engine, state, values


@pytest.mark.parametrize(
    ("preset", "tricks_left", "count"),
    [
        ("partnership", 1, 12),
        ("partnership", 2, 12),
        ("partnership", 3, 10),
        ("two-player", 4, 10),
        ("cutthroat-3", 3, 10),
        ("cutthroat-3", 4, 4),
    ],
)
def test_solver_equals_brute_force(preset, tricks_left, count):
    _check_against_brute_force(preset, tricks_left, count, seed=tricks_left)


def test_solver_equals_brute_force_on_the_hands_own_score_near_the_bag_limit():
    """``adjust_bags=False``: the hand's own score, so a bag past the limit costs the whole penalty."""
    engine, state, values = _check_against_brute_force("partnership", 2, 12, seed=5, adjust_bags=False)
    adjusted = solve_positions(engine, state, np.arange(state.batch_size), state.hands, True)
    assert (values != adjusted).any()  # the bags carried in change some values


def test_spades_may_not_be_led_unbroken():
    """Spades unbroken: a leader holding any other card leads no spade [RULES 1]."""
    engine = SpadesEngine(resolve_rules("partnership"))
    state = endgame_states(engine, 2, 30, seed=7)
    lead = np.flatnonzero(state.n_in_trick == 0)
    assert len(lead)
    state.spades_broken[lead] = False  # as if no spade was played yet: the lead is restricted
    state.led_suit[lead] = RESTRICTED_LEAD
    values = solve_positions(engine, state, lead, state.hands[lead])
    mixed = 0
    for row, g in enumerate(lead):
        hand = int(state.hands[g, state.to_move[g]])
        spades = hand & int(cards.SUIT_MASK[cards.SPADES])
        legal = set(np.flatnonzero(values[row] != NO_VALUE).tolist())
        mixed += bool(spades) and spades != hand
        if spades != hand:  # a non-spade is held: no spade may lead
            assert not legal & set(cards.mask_to_cards(spades)), f"position {g}"
        assert legal == set(brute_values(engine.rules, state, g, unbroken_lead=True))
    assert mixed  # some leader held spades and other cards


def test_hearts_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="engine: the endgame solver needs a game with bidding, got table 'hearts'"):
        endgame_tables(SpadesEngine(resolve_rules("hearts")))


def test_search_endgame_values_are_the_solver_mean_over_the_samples():
    engine = SpadesEngine(resolve_rules("partnership"))
    state = endgame_states(engine, 2, 4, seed=9)
    games = np.arange(state.batch_size)
    bot = make_agent("search:samples=3,endgame=2,oversample=1", seed=4)  # unweighted: the plain sampler below
    assert bot.endgame == 2
    masks = engine.legal_action_mask(state)[:, :52]
    ctx = DecisionContext(engine, state, games, state.to_move[games])
    rng_state = bot.rng.bit_generator.state
    got = bot.card_values(ctx, masks)
    bot.rng.bit_generator.state = rng_state
    from agents.search import sample_hidden_hands

    hands = sample_hidden_hands(engine, state, games, state.to_move[games], 3, bot.rng)
    solved = solve_positions(engine, state, np.repeat(games, 3), hands.reshape(-1, 4)).reshape(4, 3, -1)
    expected = np.where(masks, np.where(masks[:, None], solved, 0).sum(axis=1) / 3, -np.inf)
    np.testing.assert_array_equal(got, expected)


def test_search_endgame_option_must_be_a_non_negative_integer():
    with pytest.raises(ValueError, match="'endgame' must be a non-negative integer, got -1"):
        make_agent("search:endgame=-1", seed=0)
