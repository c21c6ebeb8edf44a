"""Two-player: the search's sampler leans to the cards the opponent's draw keeps (``agents.search_draw``) and samples
the opponent's discards with its hand (``agents.search_sampling``)."""

import numpy as np
import pytest

from agents.base import DecisionContext
from agents.heuristic import HeuristicAgent
from agents.search import sample_hidden_hands
from agents.search_draw import FLOOR, keep_propensity
from agents.search_sampling import layout_states, sample_layouts
from spades_env import cards
from spades_env.engine import PLAY, SpadesEngine, bits

SPADES = np.uint64(sum(1 << (cards.SPADES * cards.N_RANKS + r) for r in range(cards.N_RANKS)))


def _card(text: str) -> int:
    return cards.parse_card(text)


def test_the_looking_drawer_keeps_trumps_aces_and_kings_and_the_blind_nil_drawer_low_side_cards():
    engine = SpadesEngine("two-player")
    table = keep_propensity(engine)
    assert table.shape == (2, engine.layout.n_card_ids)
    assert ((table >= FLOOR) & (table <= 1 - FLOOR)).all()
    looked, blind = table
    for high in ("2s", "Ts", "As", "Ah", "Kd"):  # kept whenever shown: well above half
        assert looked[_card(high)] > 0.7, high
        assert blind[_card(high)] < 0.4, high
    for low in ("2h", "7c", "9d"):  # kept only as the unseen next card
        assert looked[_card(low)] < 0.4, low
    assert blind[_card("2h")] > 0.7
    # Every drawer keeps 13 of the 26 cards it sees: the shares average one half.
    assert abs(looked.mean() - 0.5) < 0.02 and abs(blind.mean() - 0.5) < 0.02
    assert keep_propensity(engine) is table  # cached per rule set, from a fixed seed


def test_only_two_player_rules_have_a_draw():
    with pytest.raises(ValueError, match="two-player"):
        keep_propensity(SpadesEngine("partnership"))


def _at_first_lead(n: int):
    """Two-player engine and ``n`` seeded heuristic games at their first lead."""
    engine = SpadesEngine("two-player")
    state = engine.reset(np.arange(n) + 1000)
    heuristic = HeuristicAgent()
    while not (state.phase == PLAY).all():
        masks = engine.legal_action_mask(state)
        engine.step(state, heuristic.act(None, masks, DecisionContext(engine, state, np.arange(n), state.to_move)))
    return engine, state


def test_two_player_samples_give_the_opponent_the_trumps_its_draw_kept():
    """On seeded heuristic games, the opponent's sampled spades are near the spades it holds; an even split
    of the unseen cards (what the sampler drew before) gives it about 2 fewer."""
    n = 48
    engine, state = _at_first_lead(n)
    games, seats = np.arange(n), state.to_move.copy()
    hands = sample_hidden_hands(engine, state, games, seats, 16, np.random.default_rng(3))
    opponent = 1 - seats
    sampled = bits.popcount(hands[games, :, opponent] & SPADES).mean()
    held = bits.popcount(state.hands[games, opponent] & SPADES).mean()
    mine = state.hands[games, seats] | state.discards[games, seats]
    even = (13 - bits.popcount(mine & SPADES)).mean() / 2  # unseen spades split evenly with the discards
    assert held - even > 1.5  # the bias the lean corrects
    assert abs(sampled - held) < 0.6
    assert (bits.popcount(hands) == bits.popcount(state.hands)[:, None, :]).all()
    assert not (hands[games, :, opponent] & mine[:, None]).any()


def test_two_player_layouts_split_the_unseen_cards_between_the_opponents_hand_and_its_discards():
    """The opponent's discards come from the sample (the unseen cards it does not hold there), never from the
    state; the seat's own are its real ones."""
    n = 16
    engine, state = _at_first_lead(n)
    games, seats = np.arange(n), state.to_move.copy()
    hands, discards = sample_layouts(engine, state, games, seats, 8, np.random.default_rng(4))
    again = sample_hidden_hands(engine, state, games, seats, 8, np.random.default_rng(4))
    assert np.array_equal(hands, again)  # the same draws
    opponent = 1 - seats
    mine = state.hands[games, seats] | state.discards[games, seats]
    unseen = np.uint64(cards.cards_to_mask(engine.deck)) & ~mine
    assert (discards[games, :, seats] == state.discards[games, seats][:, None]).all()
    theirs_h, theirs_d = hands[games, :, opponent], discards[games, :, opponent]
    assert ((theirs_h | theirs_d) == unseen[:, None]).all() and not (theirs_h & theirs_d).any()
    assert (theirs_d != state.discards[games, opponent][:, None]).any(axis=1).all()  # sampled, not copied


def test_rollout_games_hold_nothing_the_seat_cannot_see():
    n = 6
    engine, state = _at_first_lead(n)
    games, seats = np.arange(n), state.to_move.copy()
    hands, discards = sample_layouts(engine, state, games, seats, 1, np.random.default_rng(5))
    roll = layout_states(engine, state, games, seats, hands[:, 0], discards[:, 0])
    opponent = 1 - seats
    assert np.array_equal(roll.hands, hands[:, 0]) and np.array_equal(roll.discards, discards[:, 0])
    assert (roll.key != state.key).all()
    assert (np.diff(roll.pile, axis=1) > 0).all()  # the deck in card order: the pile's order is not public
    assert (roll.seen[games, opponent] == (hands[games, 0, opponent] | discards[games, 0, opponent])).all()
    assert (roll.seen[games, seats] == state.seen[games, seats]).all()
    for name in ("exchanged_out", "exchanged_in"):
        assert not getattr(roll, name)[games, opponent].any(), name
    changed = state.copy()  # what the seat cannot see changes: the rollout games do not
    changed.key ^= np.uint64(12345)
    changed.pile = changed.pile[:, ::-1].copy()
    changed.discards[games, opponent] ^= np.uint64(1)
    again = layout_states(engine, changed, games, seats, hands[:, 0], discards[:, 0])
    for name in ("key", "pile", "discards", "seen", "deal", "hands"):
        assert np.array_equal(getattr(again, name), getattr(roll, name)), name
