"""The lookahead bidder (agents/search_bidding.py) and its route in the search bot."""

import numba
import numpy as np
import pytest

from agents import search_bidding
from agents.base import DecisionContext
from agents.heuristic import HeuristicAgent
from agents.search import SearchAgent
from agents.search_bidding import (
    BID_SHARPNESS,
    _bid_log_likelihood,
    candidate_mask,
    lookahead_bids,
    sample_bidding_hands,
)
from agents.specs import make_agent
from spades_env import cards
from spades_env.engine import PLAY, SpadesEngine, bits
from spades_env.games.spades.params import BID, BLIND
from spades_env.rules_yaml import list_presets

SPADES_PRESETS = [name for name in list_presets() if not name.startswith("hearts")]


def _mask(names: str) -> int:
    return cards.cards_to_mask([cards.parse_card(c) for c in names.split()])


def _advance_to(engine, state, phases, policy=None, limit=200):
    """Step every game with the heuristic (looking at the cards in BLIND) until each is in ``phases``."""
    policy = policy or HeuristicAgent()
    look = engine.layout.special("look")
    for _ in range(limit):
        waiting = ~np.isin(state.phase, phases)
        if not waiting.any():
            return state
        masks = engine.legal_action_mask(state)
        games = np.arange(state.batch_size)
        actions = policy.act(None, masks, DecisionContext(engine, state, games, state.to_move))
        if look is not None:
            actions = np.where(state.phase == BLIND, look, actions)
        actions = np.where(waiting, actions, np.argmax(masks, axis=1))
        sub = np.flatnonzero(waiting)
        view = state.take(sub)
        engine.step(view, actions[sub])
        state.put(sub, view)
    raise AssertionError("games did not reach the phase")


def _first_bid(engine, hands, dealer=3):
    """A hand dealt as given (seat 0 bids first with dealer 3), advanced to seat 0's bid."""
    state = engine.reset([7], deals=np.array([hands], dtype=np.uint64), dealers=[dealer])
    return _advance_to(engine, state, (BID,))


def _ctx(engine, state):
    return DecisionContext(engine, state, np.arange(state.batch_size), state.to_move)


def _decide(engine, state, samples, seed=0, **kw):
    games = np.arange(state.batch_size)
    ctx = DecisionContext(engine, state, games, state.to_move)
    return lookahead_bids(ctx, engine.legal_action_mask(state), samples, np.random.default_rng(seed), **kw)


def _bid_until_seat(engine, state, seat):
    """Let the heuristic bid for the seats before ``seat`` (one game)."""
    heuristic = HeuristicAgent()
    while state.to_move[0] != seat:
        engine.step(state, heuristic.act(None, engine.legal_action_mask(state), _ctx(engine, state)))
    return state


def test_thirteen_spades_bid_thirteen_after_a_nil_partner():
    # Seat 0 bids last (dealer 0); its partner, with the lowest cards, bid nil: 13 makes, 12 would bag.
    engine = SpadesEngine("partnership")
    spades = _mask(" ".join(f"{r}S" for r in "2 3 4 5 6 7 8 9 10 J Q K A".split()))
    low = _mask("2H 3H 4H 5H 2D 3D 4D 5D 2C 3C 4C 5C 6C")
    rest = [c for c in engine.deck if not ((spades | low) >> c) & 1]
    state = _bid_until_seat(
        engine,
        _first_bid(engine, [spades, cards.cards_to_mask(rest[::2]), low, cards.cards_to_mask(rest[1::2])], dealer=0),
        0,
    )
    engine.step(state, [engine.layout.special("look")])
    assert state.bids[0, 2] == 0 and state.phase[0] == BID
    action, values = _decide(engine, state, 4)
    bid13 = engine.layout.bid_offset + 13
    assert action[0] == bid13
    assert values[0, bid13] > values[0, bid13 - 1]


def test_a_hopeless_hand_bids_nil_when_nil_is_worth_most():
    engine = SpadesEngine("partnership")
    weak = _mask("2H 3H 4H 5H 2D 3D 4D 5D 2C 3C 4C 5C 6C")
    rest = [c for c in engine.deck if not (weak >> c) & 1]
    others = [cards.cards_to_mask(rest[k::3]) for k in range(3)]
    state = _first_bid(engine, [weak, *others])
    action, values = _decide(engine, state, 8)
    nil = engine.layout.bid_offset
    assert action[0] == nil
    bids = values[0, nil : engine.layout.bid_end]
    assert np.all(bids[1:] < bids[0])


def test_without_nil_the_hopeless_hand_bids_a_contract_and_nil_is_not_valued():
    engine = SpadesEngine("partnership")
    weak = _mask("2H 3H 4H 5H 2D 3D 4D 5D 2C 3C 4C 5C 6C")
    rest = [c for c in engine.deck if not (weak >> c) & 1]
    state = _first_bid(engine, [weak, *(cards.cards_to_mask(rest[k::3]) for k in range(3))])
    action, values = _decide(engine, state, 8, nil=False)
    nil = engine.layout.bid_offset
    assert action[0] != nil and engine.legal_action_mask(state)[0, action[0]]
    assert np.isneginf(values[0, nil]) and np.isfinite(values[0, nil + 1 : engine.layout.bid_end]).any()


def test_without_nil_blind_nil_is_no_candidate_but_look_still_is():
    engine = SpadesEngine("partnership")
    state = _advance_to(engine, engine.reset(np.arange(6)), (BLIND,))
    masks = engine.legal_action_mask(state)
    blind_nil, look = engine.layout.special("blind_nil"), engine.layout.special("look")
    assert masks[:, blind_nil].all()
    with_nil, without = candidate_mask(engine, state.phase, masks), candidate_mask(engine, state.phase, masks, False)
    assert with_nil[:, blind_nil].all() and not without[:, blind_nil].any() and without[:, look].all()


def test_the_search_option_bid_nil_0_keeps_the_lookahead_from_nil():
    assert make_agent("search:fast,bid_samples=8").bid_nil
    assert not make_agent("search:fast,bid_samples=8,bid_nil=0").bid_nil


def test_only_legal_bids_are_candidates_and_every_other_value_is_minus_infinity():
    engine = SpadesEngine("partnership")
    state = _advance_to(engine, engine.reset(np.arange(6)), (BID,))
    masks = engine.legal_action_mask(state)
    action, values = _decide(engine, state, 3)
    cand = candidate_mask(engine, state.phase, masks)
    assert np.isfinite(values[cand]).all() and np.isneginf(values[~cand]).all()
    assert masks[np.arange(6), action].all()


def test_samples_keep_the_own_hand_the_face_up_cards_and_deal_the_rest():
    engine = SpadesEngine("partnership-house")
    state = _advance_to(engine, engine.reset(np.arange(4) + 11), (BID,))
    games, seats = np.arange(4), state.to_move
    ctx = DecisionContext(engine, state, games, seats)
    hands = sample_bidding_hands(ctx, 6, 3, np.random.default_rng(1), HeuristicAgent())  # (4, 6, N)
    deck = np.uint64(cards.cards_to_mask(engine.deck))
    assert (np.bitwise_or.reduce(hands, axis=2) == deck).all()
    assert (bits.popcount(hands).sum(axis=2) == len(engine.deck)).all()  # a partition of the deck
    assert (hands[games, :, seats] == state.hands[games, seats][:, None]).all()
    face_up = state.face_up & state.hands
    assert face_up.any()
    assert ((hands & face_up[:, None, :]) == face_up[:, None, :]).all()
    others = np.arange(4)[None, :] != seats[:, None]
    differs = (hands != state.hands[:, None, :]).any(axis=1)  # (4, N): some sample differs from the truth
    assert differs[others].all() and not differs[~others].any()  # hidden hands are sampled, the own is not


def test_two_player_samples_keep_the_own_discards_out_of_the_opponents_hand():
    engine = SpadesEngine("two-player")
    state = _advance_to(engine, engine.reset(np.arange(4) + 5), (BID,))
    games, seats = np.arange(4), state.to_move
    ctx = DecisionContext(engine, state, games, seats)
    hands = sample_bidding_hands(ctx, 8, 2, np.random.default_rng(2), HeuristicAgent())
    opponent = 1 - seats
    held = hands[games, :, opponent]
    assert (bits.popcount(held) == engine.hand_size).all()
    assert not (held & state.discards[games, seats][:, None]).any()
    assert not (held & state.hands[games, seats][:, None]).any()


def test_blind_samples_deal_the_unseen_own_hand_too():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(3))
    assert (state.phase == BLIND).all()
    ctx = DecisionContext(engine, state, np.arange(3), state.to_move)
    hands = sample_bidding_hands(ctx, 5, 1, np.random.default_rng(3), HeuristicAgent())
    own = hands[np.arange(3), :, state.to_move]
    assert (bits.popcount(hands) == 13).all()
    assert len(np.unique(own)) == own.size  # every sample deals the own hand afresh


def test_samples_are_weighted_by_the_bids_already_made(monkeypatch):
    # Seat 0 bid high: its sampled hands should be ones the heuristic bids about as high with.
    engine = SpadesEngine("partnership")
    heuristic = HeuristicAgent()
    strong = _mask("AS KS QS 5S AH KH 3H AD 4D 5D 2C 3C 4C")
    rest = [c for c in engine.deck if not (strong >> c) & 1]
    others = [cards.cards_to_mask(rest[k::3]) for k in range(3)]
    state = _first_bid(engine, [strong, *others])
    engine.step(state, heuristic.act(None, engine.legal_action_mask(state), _ctx(engine, state)))
    assert state.n_bids[0] == 1 and state.bids[0, 0] >= 5
    ctx = _ctx(engine, state)
    weighted = sample_bidding_hands(ctx, 32, 16, np.random.default_rng(4), heuristic)
    monkeypatch.setattr(search_bidding, "BID_SHARPNESS", 0.0)  # every sample weighs the same
    plain = sample_bidding_hands(ctx, 32, 16, np.random.default_rng(4), heuristic)
    monkeypatch.undo()
    # Trick distance between seat 0's bid and the heuristic's bid for its sampled hand, per sample.
    miss_weighted = -_bid_log_likelihood(ctx, weighted, heuristic)[0] / BID_SHARPNESS
    miss_plain = -_bid_log_likelihood(ctx, plain, heuristic)[0] / BID_SHARPNESS
    assert miss_plain.mean() > 1.5 and miss_weighted.mean() < 0.5 * miss_plain.mean()


def test_seeded_decisions_are_reproducible_and_the_seed_matters():
    engine = SpadesEngine("partnership")
    state = _advance_to(engine, engine.reset(np.arange(8)), (BID,))
    a1, v1 = _decide(engine, state, 4, seed=5)
    a2, v2 = _decide(engine, state, 4, seed=5)
    _, v3 = _decide(engine, state, 4, seed=6)
    assert (a1 == a2).all() and np.array_equal(v1, v2)
    assert not np.array_equal(v1, v3)


@pytest.mark.parametrize("preset", SPADES_PRESETS)
def test_every_spades_preset_bids_legally_by_lookahead(preset):
    engine = SpadesEngine(preset)
    state = _advance_to(engine, engine.reset(np.arange(3) + 40), (BID,))
    masks = engine.legal_action_mask(state)
    action, values = _decide(engine, state, 2, max_rollouts=16)  # small groups: the batching is exercised
    assert masks[np.arange(3), action].all()
    cand = candidate_mask(engine, state.phase, masks)
    several = cand.sum(axis=1) > 1
    assert np.isfinite(values[cand & several[:, None]]).all()
    heuristic = HeuristicAgent().act(None, masks, _ctx(engine, state))
    assert (action[~several] == heuristic[~several]).all()  # forced bids stay the heuristic's


def test_blind_nil_is_weighed_against_looking():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(4))
    action, values = _decide(engine, state, 4)
    lay = engine.layout
    pair = values[:, [lay.special("blind_nil"), lay.special("look")]]
    assert np.isfinite(pair).all()
    assert (action == np.where(pair[:, 0] > pair[:, 1], lay.special("blind_nil"), lay.special("look"))).all()


def test_hearts_is_refused_and_bad_options_are_named():
    hearts = SpadesEngine("hearts")
    state = hearts.reset([1])
    with pytest.raises(ValueError, match="lookahead bidding needs a game with bidding, got table 'hearts'"):
        _decide(hearts, state, 2)
    engine = SpadesEngine("partnership")
    state = engine.reset([1])
    with pytest.raises(ValueError, match="^lookahead bidding option 'samples' must be a positive integer, got 0"):
        _decide(engine, state, 0)
    with pytest.raises(ValueError, match="^lookahead bidding option 'oversample' must be a positive integer"):
        _decide(engine, state, 2, oversample=True)


def test_search_bids_by_lookahead_only_with_bid_samples():
    engine = SpadesEngine("partnership")
    state = _advance_to(engine, engine.reset(np.arange(6)), (BID,))
    masks = engine.legal_action_mask(state)
    ctx = _ctx(engine, state)
    plain = SearchAgent(seed=3).act(None, masks, ctx)
    assert (plain == HeuristicAgent().act(None, masks, ctx)).all()
    agent = SearchAgent(seed=3, bid_samples=4)
    expected = lookahead_bids(ctx, masks, 4, np.random.default_rng(3))[0]
    assert (agent.act(None, masks, ctx) == expected).all()
    assert agent.bid_decisions == 6 and agent.bid_seconds > 0
    threaded = SearchAgent(seed=3, bid_samples=4, threads=min(2, numba.config.NUMBA_NUM_THREADS))
    assert np.array_equal(
        threaded.action_values(None, masks, ctx), SearchAgent(seed=3, bid_samples=4).action_values(None, masks, ctx)
    )
    with pytest.raises(ValueError, match="^search bot option 'bid_samples' must be an integer from 0 up, got -1"):
        SearchAgent(bid_samples=-1)


@pytest.mark.parametrize("preset", SPADES_PRESETS)
def test_bidding_rollouts_play_the_cards_compiled_with_the_engine_values(preset, monkeypatch):
    calls = []
    compiled_play = search_bidding.play_out_values
    monkeypatch.setattr(search_bidding, "play_out_values", lambda *a: calls.append(1) or compiled_play(*a))
    engine = SpadesEngine(preset)
    state = _advance_to(engine, engine.reset(np.arange(6) + 60), (BID,))
    masks = engine.legal_action_mask(state)
    lay = engine.layout
    # Every game tries each of its legal bids: the rollouts bid on, play the hand and score it.
    rows, bids = np.nonzero(masks[:, lay.bid_offset : lay.bid_end])
    values = {}
    for compiled in (True, False):
        roll = state.take(rows)
        values[compiled] = search_bidding.rollout_values(
            engine, roll, bids + lay.bid_offset, state.to_move[rows], HeuristicAgent(), 0.5, compiled=compiled
        )
    assert calls == [1]  # the compiled card play ran (once, for every game), and only when asked for
    assert np.array_equal(values[True], values[False])
    assert len(np.unique(values[True])) > 1


def test_card_play_samples_are_weighted_by_every_bid_with_the_hand_it_was_made_with(monkeypatch):
    engine = SpadesEngine("partnership")
    heuristic = HeuristicAgent()
    state = _advance_to(engine, engine.reset(np.arange(4) + 20), (PLAY,))
    for _ in range(6):  # a trick and a half into the hand: the bids were made with more cards
        engine.step(state, heuristic.act(None, engine.legal_action_mask(state), _ctx(engine, state)))
    assert (state.phase == PLAY).all() and (state.n_bids == 4).all()
    ctx = _ctx(engine, state)
    weighted = search_bidding.sample_play_hands(ctx, 24, 8, np.random.default_rng(5), heuristic)
    monkeypatch.setattr(search_bidding, "BID_SHARPNESS", 0.0)
    plain = search_bidding.sample_play_hands(ctx, 24, 8, np.random.default_rng(5), heuristic)
    monkeypatch.undo()
    assert weighted.shape == (4, 24, 4)
    assert (bits.popcount(weighted) == bits.popcount(state.hands)[:, None, :]).all()  # the cards held now
    rows = np.arange(4)
    assert (weighted[rows, :, state.to_move] == state.hands[rows, state.to_move][:, None]).all()
    miss_weighted = -_bid_log_likelihood(ctx, weighted, heuristic) / BID_SHARPNESS
    miss_plain = -_bid_log_likelihood(ctx, plain, heuristic) / BID_SHARPNESS
    # The true hands are what every seat bid with: the heuristic's bids, so they miss by nothing.
    assert (_bid_log_likelihood(ctx, state.hands[:, None, :], heuristic) == 0).all()
    assert miss_weighted.mean() < 0.6 * miss_plain.mean()
    # The search bot with oversample > 1 plays from such samples (and legally).
    masks = engine.legal_action_mask(state)
    acted = SearchAgent(seed=1, samples=3, oversample=4).act(None, masks, ctx)
    assert masks[rows, acted].all()


def test_a_game_without_bidding_has_no_bid_candidates():
    engine = SpadesEngine("hearts")
    state = engine.reset(np.arange(3))
    masks = engine.legal_action_mask(state)
    assert not candidate_mask(engine, state.phase, masks).any()
