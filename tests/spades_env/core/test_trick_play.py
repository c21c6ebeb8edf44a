"""The compiled card-play kernel (``spades_env.core.trick_play``) on hand-made positions."""

import numpy as np

from spades_env import cards
from spades_env.core.trick_play import legal_cards_to_move, play_cards, random_legal_cards, trick_tables
from spades_env.engine.state import FREE_LEAD, PLAY, RESTRICTED_LEAD
from spades_env.games.hearts.scoring import FIRST_TRICK_FORBIDDEN, card_points
from spades_env.games.spades.params import BID
from spades_env.rules import resolve_rules

SPADES = trick_tables(
    cards.N_STANDARD_CARDS,
    trump=cards.SPADES,
    broken_suit=cards.SPADES,
    broken_mask=cards.TRUMP_MASK,
    lowest_club=0,
    lead_after=(RESTRICTED_LEAD, FREE_LEAD),
)
HEARTS = trick_tables(
    cards.N_STANDARD_CARDS,
    trump=-1,
    broken_suit=cards.HEARTS,
    broken_mask=cards.SUIT_MASK[cards.HEARTS],
    lowest_club=0,
    lead_after=(RESTRICTED_LEAD, FREE_LEAD),
    points=card_points(resolve_rules("hearts")),
    first_trick_forbidden=int(FIRST_TRICK_FORBIDDEN),
)


def c(name: str) -> int:
    return cards.parse_card(name)


def position(hands, trick, to_move, led, n_tricks=1, broken=False, leader=None, hand_size=13):
    """One game's card-play arrays, in ``play_cards``' order. ``hands``: a string of card names per
    seat; ``trick``: the card name each seat played to the trick so far, or None."""
    n = len(hands)
    played = [t for t in trick if t is not None]
    return {
        "hands": np.array([[cards.cards_to_mask(c(x) for x in h.split()) for h in hands]], np.uint64),
        "trick": np.array([[-1 if t is None else c(t) for t in trick]], np.int64),
        "n_in_trick": np.array([len(played)], np.int64),
        "led_suit": np.array([led], np.int64),
        "to_move": np.array([to_move], np.int64),
        "voids": np.zeros(1, np.int64),
        "spades_broken": np.array([broken]),
        "tricks_won": np.zeros((1, n), np.int64),
        "points_taken": np.zeros((1, n), np.int64),
        "trick_winners": np.full((1, hand_size), -1, np.int64),
        "history": np.full((1, hand_size, n), -1, np.int64),
        "n_tricks": np.array([n_tricks], np.int64),
        "leader": np.array([to_move if leader is None else leader], np.int64),
    }


def stack(*games):
    return {k: np.concatenate([g[k] for g in games]) for k in games[0]}


def play(state, names, tables, phase=None, validate=True):
    actions = np.array([c(x) if isinstance(x, str) else x for x in names], np.int64)
    phase = np.full(len(actions), PLAY, np.int64) if phase is None else np.asarray(phase, np.int64)
    bad, ended = play_cards(actions, phase, PLAY, validate, *state.values(), *tables)
    return int(bad), list(ended)


def void_bit(seat, suit):
    return 1 << (4 * seat + suit)


def test_a_trump_takes_the_trick_and_breaks_spades():
    s = position(["5C", "7C", "2S 3D", "QH 4C"], ["AH", "KH", None, None], to_move=2, led=cards.HEARTS, leader=0)
    assert play(s, ["2S"], SPADES) == (-1, [])
    assert s["voids"][0] == void_bit(2, cards.HEARTS) and s["spades_broken"][0]
    assert s["to_move"][0] == 3 and s["n_in_trick"][0] == 3 and s["hands"][0, 2] == cards.cards_to_mask([c("3D")])
    assert play(s, ["QH"], SPADES) == (-1, [])
    assert s["tricks_won"][0].tolist() == [0, 0, 1, 0] and s["trick_winners"][0, 1] == 2
    assert s["history"][0, 1].tolist() == [c("AH"), c("KH"), c("2S"), c("QH")]
    assert s["trick"][0].tolist() == [-1] * 4 and s["n_in_trick"][0] == 0 and s["n_tricks"][0] == 2
    assert s["leader"][0] == 2 and s["to_move"][0] == 2
    assert s["led_suit"][0] == FREE_LEAD  # spades are broken: any card may be led
    assert s["points_taken"][0].tolist() == [0] * 4


def test_the_led_suits_highest_card_takes_a_trick_without_trumps():
    s = position(["7D 2C", "5D", "KC", "9D"], [None] * 4, to_move=1, led=RESTRICTED_LEAD, leader=1)
    for card in ["5D", "KC", "9D", "7D"]:  # seats 1, 2 (shows out of diamonds), 3, 0
        assert play(s, [card], SPADES) == (-1, [])
    assert s["tricks_won"][0].tolist() == [0, 0, 0, 1] and s["to_move"][0] == 3
    assert s["voids"][0] == void_bit(2, cards.DIAMONDS)
    assert not s["spades_broken"][0] and s["led_suit"][0] == RESTRICTED_LEAD


def test_hearts_has_no_trump_and_the_winner_takes_the_points():
    s = position(["3C", "QS 2D", "AH 5S", "4C"], [None] * 4, to_move=0, led=RESTRICTED_LEAD)
    for card in ["3C", "QS", "AH", "4C"]:
        assert play(s, [card], HEARTS) == (-1, [])
    assert s["tricks_won"][0].tolist() == [0, 0, 0, 1]  # the four of clubs, not the queen of spades
    assert s["points_taken"][0].tolist() == [0, 0, 0, 14]  # the queen (13) and a heart
    assert s["spades_broken"][0]  # hearts are broken
    assert s["voids"][0] == void_bit(1, cards.CLUBS) | void_bit(2, cards.CLUBS)


def test_an_illegal_card_is_reported_and_no_game_changes():
    legal = position(["5C", "7C", "2S 3D", "QH 4C"], ["AH", "KH", None, None], to_move=2, led=cards.HEARTS)
    revoke = position(["5C", "7C", "2S 3H", "QH 4C"], ["AH", "KH", None, None], to_move=2, led=cards.HEARTS)
    s = stack(legal, revoke)
    before = {k: v.copy() for k, v in s.items()}
    assert play(s, ["2S", "2S"], SPADES)[0] == 1  # game 1 holds a heart: the spade is a revoke
    assert play(s, ["2S", 60], SPADES)[0] == 1  # no card at all
    assert play(s, ["4D", "3H"], SPADES)[0] == 0  # a card game 0's player does not hold
    for k, v in s.items():
        np.testing.assert_array_equal(v, before[k], err_msg=k)


def test_hearts_first_trick_refuses_points_unless_nothing_else():
    s = position(["2C", "AH 5D", "QH", "3C"], ["2C", None, None, None], to_move=1, led=cards.CLUBS, n_tricks=0)
    assert play(s, ["AH"], HEARTS)[0] == 0  # a diamond is held: no heart on the first trick
    assert play(s, ["5D"], HEARTS) == (-1, [])
    assert play(s, ["QH"], HEARTS) == (-1, [])  # only hearts left: a heart it is


def test_the_last_trick_ends_the_hand_and_other_phases_are_left_alone():
    last = position(["", "", "", "AS"], ["KS", "QS", "JS", None], to_move=3, led=cards.SPADES, n_tricks=12)
    bidding = position(["2C", "3C", "4C", "5C"], [None] * 4, to_move=0, led=RESTRICTED_LEAD, n_tricks=0)
    s = stack(bidding, last)
    before = {k: v[0].copy() for k, v in s.items()}
    assert play(s, [c("2C"), "AS"], SPADES, phase=[BID, PLAY]) == (-1, [1])
    assert s["trick_winners"][1, 12] == 3 and s["n_tricks"][1] == 13
    for k, v in s.items():
        np.testing.assert_array_equal(v[0], before[k], err_msg=k)


def test_a_random_legal_card_is_the_kth_legal_card_in_id_order():
    s = stack(
        position(["AH 2S", "7C 3H 9H QH", "KD", "4C"], ["AH", None, None, None], to_move=1, led=cards.HEARTS),
        position(["2C", "AH 5D", "QH", "3C"], ["2C", None, None, None], to_move=1, led=cards.CLUBS, n_tricks=0),
    )
    args = (s["hands"], s["to_move"], s["led_suit"], s["n_tricks"])
    legal = legal_cards_to_move(*args, HEARTS.preferred, HEARTS.first_trick_forbidden)
    assert cards.mask_to_cards(int(legal[0])) == [c("3H"), c("9H"), c("QH")]
    assert cards.mask_to_cards(int(legal[1])) == [c("5D")]  # no heart on the first trick
    for u, first in ((0.0, "3H"), (0.34, "9H"), (0.999, "QH")):
        drawn = random_legal_cards(*args, np.array([u, u]), HEARTS.preferred, HEARTS.first_trick_forbidden)
        assert drawn.tolist() == [c(first), c("5D")]
