"""The card-play likelihood of sampled layouts (``agents.spades.play_model``) and its use in the sampler."""

import numpy as np
import pytest

from agents import HeuristicAgent, SearchAgent, make_agent, search_bidding
from agents.base import DecisionContext
from agents.search import AUTO_PLAY_SHARPNESS
from agents.search_bidding import sample_play_hands
from agents.search_sampling import sample_hidden_hands
from agents.spades.play_model import play_log_likelihood
from spades_env.engine import PLAY, SpadesEngine


def _mid_hand(preset: str, n: int = 12, tricks: int = 5):
    """Seeded heuristic games advanced until most are in PLAY with ``tricks`` tricks done."""
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(n) + 300)
    heuristic = HeuristicAgent()
    for _ in range(400):
        if ((state.phase == PLAY) & (state.n_tricks >= tricks)).sum() >= n // 2:
            break
        masks = engine.legal_action_mask(state)
        engine.step(state, heuristic.act(None, masks, DecisionContext(engine, state, np.arange(n), state.to_move)))
    games = np.flatnonzero((state.phase == PLAY) & (state.n_tricks >= 1))
    return engine, state, games, state.to_move[games].copy()


@pytest.mark.parametrize("preset", ["partnership", "cutthroat-4", "two-player", "partnership-house"])
def test_the_true_layout_explains_every_heuristic_play_and_sampled_ones_do_not(preset):
    engine, state, games, seats = _mid_hand(preset)
    heuristic = HeuristicAgent()
    true = play_log_likelihood(engine, state, games, seats, state.hands[games][:, None, :], heuristic)
    assert (true == 0).all()  # the heuristic played every card: the replay on the real hands agrees
    hands = sample_hidden_hands(engine, state, games, seats, 16, np.random.default_rng(1))
    sampled = play_log_likelihood(engine, state, games, seats, hands, heuristic, 2.0)
    assert sampled.shape == (len(games), 16)
    assert (sampled <= 0).all() and (sampled % 2 == 0).all()  # whole plays, 2.0 each
    assert sampled.mean() < -1.0  # random layouts disagree with some of the opponents' plays


def test_play_weighted_samples_are_closer_to_the_truth_and_repeat_with_a_seed():
    engine, state, games, seats = _mid_hand("cutthroat-4", n=16, tricks=4)
    heuristic = HeuristicAgent()
    ctx = DecisionContext(engine, state, games, seats)
    plain = sample_play_hands(ctx, 16, 4, np.random.default_rng(2), heuristic)
    weighted = sample_play_hands(ctx, 16, 4, np.random.default_rng(2), heuristic, play_sharpness=1.0)
    again = sample_play_hands(ctx, 16, 4, np.random.default_rng(2), heuristic, play_sharpness=1.0)
    assert np.array_equal(weighted, again)
    misses = [-play_log_likelihood(engine, state, games, seats, h, heuristic).mean() for h in (plain, weighted)]
    assert misses[1] < misses[0]


def test_the_default_search_weighs_by_the_play_model_except_in_cutthroat(monkeypatch):
    with pytest.raises(ValueError, match="play_sharpness"):
        SearchAgent(play_sharpness=-1.0)
    with pytest.raises(ValueError, match="'play_sharpness' must be a number from 0 up or 'auto'"):
        make_agent("search:play_sharpness=sharp", seed=0)
    assert make_agent("search:play_sharpness=0.25", seed=0).play_sharpness == 0.25
    assert make_agent("search", seed=0).play_sharpness is None  # "auto": by the rules
    engine, state, games, seats = _mid_hand("partnership", n=8, tricks=3)
    calls = []
    real = search_bidding.play_log_likelihood

    def counted(*args, **kwargs):
        calls.append(args[6])  # the sharpness (the layouts' discards follow it)
        return real(*args, **kwargs)

    monkeypatch.setattr(search_bidding, "play_log_likelihood", counted)
    masks = engine.legal_action_mask(state)
    ctx = DecisionContext(engine, state, games, seats)
    legal = masks[games, : engine.layout.n_card_ids]
    SearchAgent(seed=0, samples=2).card_values(ctx, legal)
    assert calls == [AUTO_PLAY_SHARPNESS]  # partnership: the default weighs by the play model
    SearchAgent(seed=0, samples=2, play_sharpness=0).card_values(ctx, legal)
    assert calls == [AUTO_PLAY_SHARPNESS]
    for preset, expected in (("two-player", [AUTO_PLAY_SHARPNESS]), ("cutthroat-4", [])):
        engine, state, games, seats = _mid_hand(preset, n=8, tricks=3)
        masks = engine.legal_action_mask(state)
        ctx = DecisionContext(engine, state, games, seats)
        legal = masks[games, : engine.layout.n_card_ids]
        calls.clear()
        SearchAgent(seed=0, samples=2).card_values(ctx, legal)
        assert calls == expected, preset  # cutthroat weighs by the bids alone
        SearchAgent(seed=0, samples=2, play_sharpness=0.25).card_values(ctx, legal)
        assert calls == [*expected, 0.25], preset
