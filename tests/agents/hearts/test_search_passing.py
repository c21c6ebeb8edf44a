"""The Hearts pass by lookahead (``agents.hearts.passing``) and Hearts play-outs from a position."""

import dataclasses
from itertools import combinations

import numba
import numpy as np
import pytest

from agents import HeuristicAgent, SearchAgent
from agents.base import DecisionContext
from agents.hearts.passing import _passed_and_played, pass_candidates, pass_values
from agents.search_rollouts import play_out_values
from spades_env.engine import PLAY, SpadesEngine, bits
from spades_env.games.hearts.phases import PASS


def _pass_positions(preset: str, n: int, chosen: int):
    """``n`` seeded games at the first seat's pass with ``chosen`` cards already set aside (the heuristic's)."""
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(n) + 40)
    heuristic = HeuristicAgent()
    for _ in range(chosen):
        masks = engine.legal_action_mask(state)
        engine.step(state, heuristic.act(None, masks, DecisionContext(engine, state, np.arange(n), state.to_move)))
    assert (state.phase == PASS).all()
    ctx = DecisionContext(engine, state, np.arange(n), state.to_move.copy())
    return engine, state, ctx, engine.legal_action_mask(state)


@pytest.mark.parametrize("chosen", [0, 1, 2])
def test_candidates_complete_the_cards_set_aside_from_the_most_dangerous_with_the_heuristics_pass_first(chosen):
    engine, state, ctx, masks = _pass_positions("hearts", 6, chosen)
    heuristic = HeuristicAgent()
    top = 5
    candidates = pass_candidates(ctx, masks, top, heuristic)
    rows = np.arange(6)
    held = state.hands[rows, ctx.seats]
    set_aside = state.passed[rows, ctx.seats]
    # The heuristic's own pass: its next card, then (in a copy) the cards it would add after it.
    first = heuristic.act(None, masks, ctx)
    assert (candidates[rows, 0] & bits.BIT[first] != 0).all()
    for i in range(6):
        sets = [int(c) for c in candidates[i] if c]
        assert len(set(sets)) == len(sets)
        for c in sets:
            assert bin(c).count("1") == 3 and c & int(held[i]) == c and c & int(set_aside[i]) == int(set_aside[i])
        ranked, left = [], masks[i : i + 1].copy()
        for _ in range(top):  # the heuristic's danger order, by asking it again without the cards it named
            pick = int(
                heuristic.act(None, left, DecisionContext(engine, state, rows[i : i + 1], ctx.seats[i : i + 1]))[0]
            )
            ranked.append(pick)
            left[0, pick] = False
        completions = {int(set_aside[i]) | sum(1 << c for c in combo) for combo in combinations(ranked, 3 - chosen)}
        assert completions <= set(sets) and len(sets) <= len(completions) + 1


def test_the_pass_replay_gives_the_seat_the_planned_pass_and_reaches_the_card_play():
    engine, state, ctx, masks = _pass_positions("hearts", 4, 1)
    heuristic = HeuristicAgent()
    candidates = pass_candidates(ctx, masks, 4, heuristic)
    rows = np.arange(4)
    plan = candidates[rows, 1]
    before = state.copy()
    values = _passed_and_played(ctx, state.hands[rows], rows, plan, heuristic)  # the true deal as the sample
    assert np.isfinite(values).all()
    assert not np.array_equal(values, np.zeros(4))
    for field in dataclasses.fields(state):
        assert np.array_equal(getattr(state, field.name), getattr(before, field.name)), field.name


def _engine_play_out(engine, state, seats):
    """The reference of ``play_out_values`` in Hearts: the heuristic steps the engine to each hand's end."""
    state = state.copy()
    heuristic = HeuristicAgent()
    n = state.batch_size
    values = np.full(n, np.nan)
    side = engine.side_of_seat[seats]
    while np.isnan(values).any():
        masks = engine.legal_action_mask(state)
        result = engine.step(
            state, heuristic.act(None, masks, DecisionContext(engine, state, np.arange(n), state.to_move))
        )
        for f in result.finished:
            g = f.games[np.isnan(values[f.games])]
            delta = f.delta[np.isnan(values[f.games])]
            mine = delta[np.arange(len(g)), side[g]]
            values[g] = (delta.sum(axis=1) - mine) / (engine.n_sides - 1) - mine
    return values


@pytest.mark.parametrize("preset", ["hearts", "hearts-partnership"])
def test_hearts_play_outs_from_a_position_give_the_engines_values(preset):
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(6) + 3)
    heuristic = HeuristicAgent()
    for step in range(30):
        masks = engine.legal_action_mask(state)
        engine.step(state, heuristic.act(None, masks, DecisionContext(engine, state, np.arange(6), state.to_move)))
        if (state.phase == PLAY).all() and step % 7 == 0:
            seats = (state.to_move + step) % engine.n_players
            assert np.array_equal(
                play_out_values(engine, state, seats, heuristic), _engine_play_out(engine, state, seats)
            )


def test_pass_values_value_each_card_by_its_best_candidate_and_a_seed_repeats_them():
    engine, state, ctx, masks = _pass_positions("hearts", 4, 0)
    heuristic = HeuristicAgent()
    values = pass_values(ctx, masks, 6, 4, np.random.default_rng(5), heuristic)
    again = pass_values(ctx, masks, 6, 4, np.random.default_rng(5), heuristic)
    assert np.array_equal(values, again, equal_nan=True)
    assert np.isneginf(values[~masks]).all()
    candidates = pass_candidates(ctx, masks, 4, heuristic)
    in_some = bits.to_bool(np.bitwise_or.reduce(candidates, axis=1), engine.layout.n_card_ids)
    legal = masks[:, : engine.layout.n_card_ids]
    assert np.isfinite(values[:, : in_some.shape[1]][in_some & legal]).all()
    assert np.isnan(values[:, : in_some.shape[1]][legal & ~in_some]).all()
    # The cards of one candidate share no value larger than the best candidate's: the row's maximum is
    # reached by all three cards of the best pass.
    best = np.nanmax(np.where(np.isneginf(values), np.nan, values), axis=1)
    assert ((values == best[:, None]).sum(axis=1) >= 3).all()


def test_the_search_passes_by_lookahead_only_with_pass_samples_and_keeps_the_heuristics_pass_within_the_margin():
    engine, state, ctx, masks = _pass_positions("hearts", 8, 0)
    default = HeuristicAgent().act(None, masks, ctx)
    plain = SearchAgent(seed=1, samples=4)
    assert np.isnan(plain.action_values(None, masks, ctx)[masks]).all()
    assert plain.pass_decisions == 0
    searched = SearchAgent(seed=1, samples=4, pass_samples=8)
    values = searched.action_values(None, masks, ctx)
    assert np.isfinite(values).any(axis=1).all() and searched.pass_decisions == 8
    threaded = SearchAgent(seed=1, samples=4, pass_samples=8, threads=min(2, numba.config.NUMBA_NUM_THREADS))
    assert np.array_equal(threaded.action_values(None, masks, ctx), values, equal_nan=True)  # the same on 2 threads
    acted = SearchAgent(seed=1, samples=4, pass_samples=8).act(None, masks, ctx)
    assert masks[np.arange(8), acted].all()
    assert (acted != default).any()  # the lookahead moves some passes off the heuristic's
    wide = SearchAgent(seed=1, samples=4, pass_samples=8, pass_margin=1e9).act(None, masks, ctx)
    assert (wide == default).all()
    with pytest.raises(ValueError, match="pass_samples"):
        SearchAgent(pass_samples=-1)
