"""``SearchAgent.action_values``: the estimate of every action, and ``act`` plays its argmax (ties: the heuristic)."""

import numpy as np
import pytest

from agents import HeuristicAgent, SearchAgent
from agents.base import DecisionContext
from agents.search import TIE_BONUS, choose
from spades_env.engine import PLAY, SpadesEngine
from spades_env.games.spades.params import BID, BLIND


def _positions(preset: str, n_games: int, steps: int):
    """A seeded batch advanced ``steps`` heuristic steps, and its decision context and legal masks."""
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(n_games) + 5)
    heuristic = HeuristicAgent()
    for _ in range(steps):
        ctx = DecisionContext(engine, state, np.arange(n_games), state.to_move.copy())
        engine.step(state, heuristic.act(None, engine.legal_action_mask(state), ctx))
    ctx = DecisionContext(engine, state, np.arange(n_games), state.to_move.copy())
    return engine, state, ctx, engine.legal_action_mask(state)


@pytest.mark.parametrize(
    ("preset", "steps"), [("partnership", 0), ("partnership", 9), ("partnership", 30), ("hearts", 20)]
)
def test_act_plays_the_argmax_of_the_action_values_with_the_heuristic_on_ties(preset, steps):
    engine, state, ctx, masks = _positions(preset, 8, steps)
    values = SearchAgent(seed=4, samples=3, bid_samples=2).action_values(None, masks, ctx)
    acted = SearchAgent(seed=4, samples=3, bid_samples=2).act(None, masks, ctx)  # same seed: the same samples
    assert values.shape == masks.shape
    assert np.isneginf(values[~masks]).all()
    assert not np.isneginf(values[masks]).any()  # a legal action is valued (finite) or not valued (NaN)
    default = HeuristicAgent().act(None, masks, ctx)
    assert (acted == choose(values, default)).all()
    assert masks[np.arange(8), acted].all()
    valued = np.isfinite(values).any(axis=1)
    assert (acted[~valued] == default[~valued]).all()
    best = np.where(np.isnan(values), -np.inf, values).max(axis=1)
    rows = np.flatnonzero(valued)
    assert (values[rows, acted[rows]] >= best[rows] - TIE_BONUS).all()
    phase = state.phase
    searched = (phase == PLAY) & (masks[:, : engine.layout.n_card_ids].sum(axis=1) > 1)
    if engine.rules.game != "hearts":
        searched |= np.isin(phase, (BID, BLIND)) & (masks.sum(axis=1) > 1)  # bids, blind nil or look
    assert (valued == searched).all()
    assert valued.any()


def test_bids_are_not_valued_without_bid_samples_and_the_tie_rule_keeps_the_default():
    engine, state, ctx, masks = _positions("partnership", 4, 0)
    assert np.isin(state.phase, (BID, BLIND)).all()
    values = SearchAgent(seed=0, samples=2).action_values(None, masks, ctx)
    assert np.isnan(values[masks]).all()
    # Equal values: the default wins; a better value elsewhere wins over the default.
    tied = np.where(masks, 1.0, -np.inf)
    default = np.argmax(masks, axis=1)
    assert (choose(tied, default) == default).all()
    better = tied.copy()
    last = masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)
    better[np.arange(4), last] = 2.0
    assert (choose(better, default) == last).all()


def test_play_margin_keeps_the_heuristics_card_unless_another_beats_it_by_more_than_the_margin():
    engine, state, ctx, masks = _positions("partnership", 32, 30)
    default = HeuristicAgent().act(None, masks, ctx)
    values = SearchAgent(seed=4, samples=6).action_values(None, masks, ctx)
    gain = np.where(np.isnan(values), -np.inf, values).max(axis=1) - values[np.arange(32), default]
    margin = float(np.median(gain[gain > 0]))  # some decisions move the card by more, some by less
    acted = SearchAgent(seed=4, samples=6, play_margin=margin).act(None, masks, ctx)  # the same samples
    far = gain > margin
    assert far.any() and (~far & (gain > 0)).any()
    np.testing.assert_array_equal(acted[far], choose(values, default)[far])
    np.testing.assert_array_equal(acted[~far], default[~far])
    assert (SearchAgent(seed=4, samples=6, play_margin=1e9).act(None, masks, ctx) == default).all()
    with pytest.raises(ValueError, match="play_margin"):
        SearchAgent(play_margin=-1)


def test_play_votes_keep_the_heuristics_card_unless_every_search_picks_the_same_other_card():
    engine, state, ctx, masks = _positions("partnership", 48, 30)
    default = HeuristicAgent().act(None, masks, ctx)
    one = SearchAgent(seed=4, samples=4).act(None, masks, ctx)
    assert (SearchAgent(seed=4, samples=4, play_votes=1).act(None, masks, ctx) == one).all()
    voted = SearchAgent(seed=4, samples=4, play_votes=3).act(None, masks, ctx)  # its first search is ``one``'s
    moved = voted != default
    assert moved.any() and moved.sum() < (one != default).sum()  # fewer deviations, each one the first search's
    np.testing.assert_array_equal(voted[moved], one[moved])
    with pytest.raises(ValueError, match="'play_votes' must be a positive integer, got 0"):
        SearchAgent(play_votes=0)
