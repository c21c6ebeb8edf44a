"""What callers hand the engine is checked: a bad seed, action, dealer, score, bag or deal fails
with a one-line message naming the argument, before any work; good inputs of any integer form work."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env import EngineInputError, SpadesEngine
from spades_env.cards import card_name
from spades_env.engine import dealing
from spades_env.engine.check import check_state
from spades_env.engine.inputs import EngineInputTypeError
from spades_env.games.spades.params import BID, BLIND
from tests.conftest import whole_suit


@pytest.fixture(scope="module")
def engine() -> SpadesEngine:
    return SpadesEngine("partnership")


# ----------------------------------------------------------------------------- actions
@pytest.mark.parametrize(
    "actions, kind",
    [
        (np.full(8, 66.7), "float"),
        (np.full(8, 66.0), "float"),  # an integral float is still not an action id
        (["66"] * 8, "string"),
        (np.full(8, 66 + 0j), "complex"),
        (np.ones(8, bool), "bool"),
        ([66] * 7 + [None], "object"),
    ],
)
def test_step_refuses_actions_that_are_not_integers(engine, actions, kind):
    state = engine.reset(np.arange(8))
    before = state.copy()
    for validate in (True, False):
        with pytest.raises(EngineInputTypeError, match=f"actions must be integer action ids, got {kind}"):
            engine.step(state, actions, validate=validate)
    assert all(np.array_equal(a, b) for a, b in zip(state.__dict__.values(), before.__dict__.values(), strict=True))


@pytest.mark.parametrize("shape", [(2, 4), (8, 1), (4,), (16,)])
def test_step_refuses_actions_of_the_wrong_shape(engine, shape):
    state = engine.reset(np.arange(8))
    legal = engine.legal_action_mask(state).argmax(axis=1)
    actions = np.resize(legal, shape)
    with pytest.raises(EngineInputError, match=r"actions must have shape \(8,\) \(one action id per game\)"):
        engine.step(state, actions)


def test_step_takes_any_integer_dtype_and_a_scalar_for_one_game(engine):
    state = engine.reset(np.arange(8))
    twin = state.copy()
    legal = engine.legal_action_mask(state).argmax(axis=1)
    engine.step(state, legal.astype(np.int64))
    engine.step(twin, legal.astype(np.uint8))
    assert np.array_equal(state.bids, twin.bids) and np.all(state.n_bids == 1)
    one = engine.reset(3)
    engine.step(one, int(engine.legal_action_mask(one).argmax()))
    assert one.n_bids.tolist() == [1]


# ------------------------------------------------------------------------------- seeds
@pytest.mark.parametrize(
    "seeds, error, message",
    [
        ("5", EngineInputTypeError, "seeds must be integers in 0..2\\*\\*64 - 1, got string"),
        (1.5, EngineInputTypeError, "got float"),
        (True, EngineInputTypeError, "got bool"),
        (None, EngineInputTypeError, "got None"),
        (2**64, EngineInputError, "in 0..2\\*\\*64 - 1, got 18446744073709551616"),
        (-1, EngineInputError, "got -1"),
        ([[1, 2], [3, 4]], EngineInputError, "1-D sequence"),
        ([], EngineInputError, "empty"),
    ],
)
def test_reset_refuses_bad_seeds_naming_the_range(engine, seeds, error, message):
    with pytest.raises(error, match=message):
        engine.reset(seeds)
    with pytest.raises(error, match=message):
        dealing.game_keys(seeds)


def test_seeds_up_to_2_64_work_and_keep_the_keys_of_smaller_seeds(engine):
    seeds = np.array([0, 5, 2**63 - 1, 2**63, 2**64 - 1], dtype=np.uint64)
    keys = dealing.game_keys(seeds)
    assert keys[:3].tolist() == dealing.game_keys(np.array([0, 5, 2**63 - 1], np.int64)).tolist()
    assert len(set(keys.tolist())) == 5
    state = engine.reset(seeds)
    assert engine.reset(2**64 - 1).deal.tolist() == state.deal[4:].tolist()
    check_state(engine, state)


# ------------------------------------------------------------------ dealers, scores, bags
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(dealers=1.7), EngineInputTypeError, "dealers must be integers in 0..3, got float"),
        (dict(dealers="2"), EngineInputTypeError, "dealers must be integers in 0..3, got string"),
        (dict(dealers=[0, 1, 2]), EngineInputError, r"dealers must be one integer or 2 \(one per game\)"),
        (dict(dealers=4), EngineInputError, "dealers must be integers in 0..3, got 4"),
        (dict(hand_numbers=[0.5, 1]), EngineInputTypeError, "hand_numbers must be integers"),
        (dict(scores=[["10", "0"]] * 2), EngineInputTypeError, "scores must be integers"),
        (dict(scores=[[1.5, 0]] * 2), EngineInputTypeError, "scores must be integers"),
        (dict(bags=[[-1, 0]] * 2), EngineInputError, "bags must be integers in 0..9, got -1"),
        (dict(bags=[[10, 0]] * 2), EngineInputError, "bags must be integers in 0..9, got 10"),
        (dict(scores=[[0, 0], [500, 480]]), EngineInputError, r"scores \[500, 480\] of game 1 .* already end"),
        (dict(scores=[[-200, 0]] * 2), EngineInputError, "already end the match"),
    ],
)
def test_reset_refuses_bad_overrides_naming_them(engine, kwargs, error, message):
    with pytest.raises(error, match=message):
        engine.reset([0, 1], **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [dict(bags=[[-1, 0]]), dict(bags=[[10, 0]], hand_numbers=3), dict(scores=[[510, 0]]), dict(scores=[[0, -250]])],
)
def test_reset_refuses_what_check_state_would_reject(engine, kwargs):
    """Before: reset made these states and ``check_state`` (or the next hand end) found them broken."""
    with pytest.raises(EngineInputError):
        engine.reset(0, **kwargs)


def test_rules_without_bags_keep_no_bags_and_the_mercy_score_is_theirs():
    no_bags = SpadesEngine(dict(bags=False))
    with pytest.raises(EngineInputError, match="bags must be integers in 0..0"):
        no_bags.reset(0, bags=[1, 0])
    no_mercy = SpadesEngine(dict(lose_score=None))
    check_state(no_mercy, no_mercy.reset(0, scores=[-900, 499]))


def test_tied_scores_past_the_target_go_on(engine):
    state = engine.reset(0, scores=[520, 520], bags=[9, 0], hand_numbers=12)  # a tie at the top plays on
    check_state(engine, state)
    assert state.phase[0] in (BLIND, BID) and state.winner[0] == -1


def test_every_argument_is_checked_before_the_seeds_are_hashed_or_the_state_made(engine, monkeypatch):
    def expensive(*args, **kwargs):
        raise AssertionError("expensive work began before the arguments were checked")

    monkeypatch.setattr(dealing, "game_keys", expensive)
    monkeypatch.setattr(SpadesEngine, "_empty", expensive)
    seeds = np.arange(10**6)
    for kwargs in (dict(dealers=[0, 1]), dict(scores=[1, 2, 3]), dict(bags=[[0, 0]] * 3), dict(deals=[[[0]] * 4])):
        with pytest.raises(EngineInputError):
            engine.reset(seeds, **kwargs)
    with pytest.raises(EngineInputTypeError):
        engine.reset(np.arange(10**6, dtype=float))


@pytest.mark.parametrize(
    ("rules", "option", "allowed"),
    [
        ("hearts", "bags", "deals, dealers, scores, hand_numbers"),
        ("partnership", "bag", "deals, dealers, scores, hand_numbers, bags, piles, face_ups"),
    ],
)
def test_an_option_the_game_does_not_take_is_refused_naming_the_ones_it_does(rules, option, allowed):
    engine = SpadesEngine(rules)
    with pytest.raises(EngineInputTypeError, match=f"take no option '{option}'; its options: {allowed}$"):
        engine.reset(0, **{option: [0] * engine.n_sides})
    state = engine.reset(0)
    with pytest.raises(EngineInputTypeError, match=f"no option '{option}'"):
        engine.start_matches(state, np.array([0]), np.array([5], np.uint64), **{option: [0] * engine.n_sides})


def test_the_games_own_options_given_as_none_are_not_given():
    hearts = SpadesEngine("hearts")
    a, b = hearts.reset(3, bags=None, piles=None), hearts.reset(3)
    assert (a.hands == b.hands).all() and (a.dealer == b.dealer).all()


# --------------------------------------------------------------------------------- deals
def _suit_deal() -> list[list[int]]:
    return [whole_suit(s) for s in "CDHS"]


def _masks() -> np.ndarray:
    return np.array([[sum(1 << c for c in h) for h in _suit_deal()]], dtype=np.uint64)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_deals_as_masks_of_any_integer_dtype(engine, dtype):
    state = engine.reset(0, deals=_masks().astype(dtype))
    assert state.deal.tolist() == _masks().tolist()


def test_deals_of_card_names_are_parsed(engine):
    named = [[[card_name(c) for c in hand] for hand in _suit_deal()]]
    assert engine.reset(0, deals=named).deal.tolist() == _masks().tolist()
    named[0][0][0] = "ZZ"
    with pytest.raises(EngineInputError, match=r"deals\[0\]\[0\]: cannot parse card 'ZZ'"):
        engine.reset(0, deals=named)


@pytest.mark.parametrize(
    "deal, error, message",
    [
        ([[[float(c) for c in h] for h in _suit_deal()]], EngineInputTypeError, r"deals\[0\]\[0\]: a card is an"),
        ([["AS KS"] * 4], EngineInputTypeError, "must be a list of cards, got the string"),
        (np.full((1, 4), -1, np.int64), EngineInputError, "card masks and must be non-negative"),
        (np.ones((1, 4)), EngineInputTypeError, "got float values"),
        (7, EngineInputTypeError, "deals must be 1 game"),
    ],
)
def test_deals_that_are_not_cards_are_refused(engine, deal, error, message):
    with pytest.raises(error, match=message):
        engine.reset(0, deals=deal)


def test_piles_take_names_and_refuse_floats():
    engine = SpadesEngine("two-player")
    pile = [card_name(c) for c in range(52)]
    state = engine.reset(0, piles=[pile])
    assert state.pile.tolist() == [list(range(52))]
    with pytest.raises(EngineInputTypeError, match=r"piles\[0\]: a card is an integer id"):
        engine.reset(0, piles=[[float(c) for c in range(52)]])
    with pytest.raises(EngineInputError, match=r"piles\[0\] is not an ordering"):
        engine.reset(0, piles=[[0] * 52])


def test_the_layout_and_the_reference_game_refuse_non_integer_actions(engine):
    from spades_env.games.spades.reference import SpadesReferenceGame as ReferenceGame

    with pytest.raises(EngineInputTypeError, match="bid must be an integer, got float 1.5"):
        engine.layout.bid_action(1.5)
    game = ReferenceGame(engine.rules, _suit_deal(), dealer=0)
    legal = game.legal_actions()
    for bad in (float(legal[0]) + 0.7, str(legal[0]), True):
        with pytest.raises(TypeError, match="action must be an integer action id"):
            game.step(bad)
    game.step(np.int64(legal[0]))  # NumPy integers are action ids
    assert game.current_player() != 1


def test_a_deal_of_python_int_masks_is_refused_naming_the_hand_and_the_array_form():
    """Card masks as Python ints in nested lists (a uint64 array is the mask form): one clear
    line naming the hand, not a raw 'int object is not iterable'."""
    import numpy as np
    import pytest

    from spades_env import SpadesEngine
    from spades_env.engine import EngineInputError

    engine = SpadesEngine("partnership")
    masks = engine.reset(0).deal
    with pytest.raises(EngineInputError, match=r"deals\[0\]\[0\] must be a list of cards .* uint64 array"):
        engine.reset(0, deals=[[int(m) for m in masks[0]]])
    state = engine.reset(0, deals=np.asarray(masks, dtype=np.uint64))
    assert (state.deal == masks).all()


def test_face_ups_are_four_cards_of_each_given_hand_under_face_up_deal(engine):
    house = SpadesEngine("partnership-house")
    hands = _suit_deal()
    face_ups = [[[card_name(c) for c in hand[:4]] for hand in hands]]
    state = house.reset(0, deals=_masks(), face_ups=face_ups)
    assert state.face_up.tolist() == [[sum(1 << c for c in hand[:4]) for hand in hands]]
    check_state(house, state)
    with pytest.raises(EngineInputError, match="'face_ups' needs 'deals'"):
        house.reset(0, face_ups=face_ups)
    with pytest.raises(EngineInputError, match="'face_ups' is only for rules with face_up_deal"):
        engine.reset(0, deals=_masks(), face_ups=face_ups)
    for seat, cards in ((1, [card_name(c) for c in hands[1][:3]]), (2, [card_name(c) for c in hands[3][:4]])):
        bad = [list(f) for f in face_ups[0]]
        bad[seat] = cards
        with pytest.raises(EngineInputError, match=rf"face_ups\[0\]\[{seat}\] must be 4 cards of that seat's hand"):
            house.reset(0, deals=_masks(), face_ups=[bad])
