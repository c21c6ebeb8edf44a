"""A game state's arrays as one value inside compiled code, and card play on it.

The compiled rules take the ``GameState`` arrays as separate arguments (``state_arrays(state)``,
in ``FIELDS`` order: a Numba call costs about 0.07 µs an array, a tuple of them several times
more) and bundle them into a ``StateArrays`` inside the compiled code (``borrow``); a rule of
one game then reads ``s.hands[g, seat]``. ``FIELDS`` is ``GameState``'s fields in order
(tested). At small batches the engine's ``step`` passes one table of the arrays' addresses
instead, whose views (``core.packed.unpack_state``) the same ``borrow`` bundles. The core never
imports a game: the games' compiled loops call these pieces.

Numba counts the references of every array passed to a function, atomically, at each call:
for a bundle of 38 arrays that is ~0.5 µs a call, ten times a game's rule. ``borrow`` bundles
views that carry no reference count (``borrowed``), valid while the call that made them runs;
they are never returned or stored.
"""

from __future__ import annotations

from operator import attrgetter
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

from spades_env.core import deal as core_deal
from spades_env.core import trick_play
from spades_env.core.card_bits import bit_of
from spades_env.core.hashing import hand_key, splitmix64


class StateArrays(NamedTuple):
    """The arrays of a ``GameState`` (same names, shapes and meanings; see ``engine.state``)."""

    hands: np.ndarray
    deal: np.ndarray
    phase: np.ndarray
    to_move: np.ndarray
    dealer: np.ndarray
    leader: np.ndarray
    trick: np.ndarray
    n_in_trick: np.ndarray
    led_suit: np.ndarray
    n_tricks: np.ndarray
    tricks_won: np.ndarray
    trick_winners: np.ndarray
    bids: np.ndarray
    blind: np.ndarray
    looked: np.ndarray
    n_bids: np.ndarray
    spades_broken: np.ndarray
    voids: np.ndarray
    scores: np.ndarray
    bags: np.ndarray
    hand_number: np.ndarray
    winner: np.ndarray
    key: np.ndarray
    history: np.ndarray
    hand_start_scores: np.ndarray
    hand_start_bags: np.ndarray
    face_up: np.ndarray
    bemo: np.ndarray
    n_redeals: np.ndarray
    pile: np.ndarray
    pile_pos: np.ndarray
    shown: np.ndarray
    discards: np.ndarray
    seen: np.ndarray
    exchanged_out: np.ndarray
    exchanged_in: np.ndarray
    passed: np.ndarray
    points_taken: np.ndarray


FIELDS = StateArrays._fields
N_FIELDS = len(FIELDS)
#: The record arrays of the hands that end in a step that every game's compiled hand end fills
#: (row o: the o-th game that ended), in this order: its winner, ``keep_record``'s, the points
#: and scores after. The games' loops add their own (``RECORD``); ``engine.hand_cycle`` allocates them.
RECORD_FIELDS = (
    "winner", "deal", "dealer", "history", "bids", "blind", "tricks_won", "trick_winners", "start_scores",
    "start_bags", "bemo", "hand_number", "hand_key", "delta", "scores",
)  # fmt: skip
#: What a compiled ``step`` did to a game (its ``status``): nothing more to do, a hand ended
#: (``trick_play.play_range`` sets True), a weak-hand redeal (Spades).
GOES_ON, HAND_ENDED, REDEAL = 0, 1, 2


class DecisionArrays(NamedTuple):
    """The arrays the legal actions and the random draws read (a ``StateArrays`` subset: the
    same rules compile for either; one that read another field would not compile). Fewer
    arrays make ``random_actions`` and ``legal_action_mask`` cheaper to call at small batches."""

    phase: np.ndarray
    to_move: np.ndarray
    hands: np.ndarray
    bids: np.ndarray
    led_suit: np.ndarray
    n_tricks: np.ndarray
    exchanged_in: np.ndarray
    passed: np.ndarray


DECISION_FIELDS = DecisionArrays._fields
#: ``decision_arrays(state)``: the state's arrays in ``DECISION_FIELDS`` order.
decision_arrays = attrgetter(*DECISION_FIELDS)
#: ``state_arrays(state)``: the state's arrays in ``FIELDS`` order (one C call).
state_arrays = attrgetter(*FIELDS)


def borrowed(arr):
    """The array ``arr`` without its reference count: passing it to a function costs no atomic
    increment and decrement. Valid only while ``arr`` itself is alive (inside the call). In
    plain Python (``NUMBA_DISABLE_JIT=1``) it is ``arr`` itself."""
    return arr


@intrinsic
def _borrowed(typingctx, arr):
    """``borrowed`` in compiled code: a copy of the array's struct with a null meminfo."""

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        dst = context.make_array(sig.return_type)(context, builder)
        for name in ("parent", "nitems", "itemsize", "data", "shape", "strides"):
            setattr(dst, name, getattr(src, name))
        dst.meminfo = context.get_constant_null(types.MemInfoPointer(types.voidptr))
        return dst._getvalue()

    return arr(arr), codegen


@overload(borrowed, inline="always")
def _borrowed_compiled(arr):
    return lambda arr: _borrowed(arr)


@njit(cache=True)
def borrow(state):
    """``StateArrays`` of borrowed views of ``state`` (the ``N_FIELDS`` arrays in ``FIELDS`` order)."""
    return StateArrays(
        borrowed(state[0]),
        borrowed(state[1]),
        borrowed(state[2]),
        borrowed(state[3]),
        borrowed(state[4]),
        borrowed(state[5]),
        borrowed(state[6]),
        borrowed(state[7]),
        borrowed(state[8]),
        borrowed(state[9]),
        borrowed(state[10]),
        borrowed(state[11]),
        borrowed(state[12]),
        borrowed(state[13]),
        borrowed(state[14]),
        borrowed(state[15]),
        borrowed(state[16]),
        borrowed(state[17]),
        borrowed(state[18]),
        borrowed(state[19]),
        borrowed(state[20]),
        borrowed(state[21]),
        borrowed(state[22]),
        borrowed(state[23]),
        borrowed(state[24]),
        borrowed(state[25]),
        borrowed(state[26]),
        borrowed(state[27]),
        borrowed(state[28]),
        borrowed(state[29]),
        borrowed(state[30]),
        borrowed(state[31]),
        borrowed(state[32]),
        borrowed(state[33]),
        borrowed(state[34]),
        borrowed(state[35]),
        borrowed(state[36]),
        borrowed(state[37]),
    )


@njit(cache=True)
def borrow_decision(state):
    """``DecisionArrays`` of borrowed views of ``state`` (its arrays in ``DECISION_FIELDS`` order)."""
    return DecisionArrays(
        borrowed(state[0]),
        borrowed(state[1]),
        borrowed(state[2]),
        borrowed(state[3]),
        borrowed(state[4]),
        borrowed(state[5]),
        borrowed(state[6]),
        borrowed(state[7]),
    )


@njit(cache=True)
def borrow_tables(tables):
    """``TrickTables`` of borrowed views of ``tables`` (its fields in order)."""
    card_bit, suit_of, power, preferred, first_trick_forbidden, points, broken_suit, lead_after = tables
    return trick_play.TrickTables(
        borrowed(card_bit),
        borrowed(suit_of),
        borrowed(power),
        borrowed(preferred),
        first_trick_forbidden,
        borrowed(points),
        broken_suit,
        borrowed(lead_after),
    )


@njit(cache=True, inline="always")
def card_is_legal(s, t, g, card):
    """Whether ``card`` may be played by the player to move in game ``g`` (``t``: ``TrickTables``)."""
    return (legal_cards(s, t, g) & bit_of(card, len(t.card_bit))) != np.uint64(0)


@njit(cache=True, inline="always")
def legal_cards(s, t, g):
    """The cards the player to move in game ``g`` may play (uint64)."""
    hand = s.hands[g, s.to_move[g]]
    return trick_play.legal_cards(hand, s.led_suit[g], s.n_tricks[g], t.preferred, t.first_trick_forbidden)


@njit(cache=True)
def play_cards(s, t, lo, hi, actions, play_phase, ended):
    """Play the cards ``actions[g]`` (legal) of the games g of ``lo`` .. ``hi`` - 1 in ``play_phase``
    (``trick_play.play_range``); ``ended[g]`` True (or 1) where the hand's last trick is done."""
    trick_play.play_range(
        lo,
        hi,
        actions,
        s.phase,
        play_phase,
        ended,
        s.hands,
        s.trick,
        s.n_in_trick,
        s.led_suit,
        s.to_move,
        s.voids,
        s.spades_broken,
        s.tricks_won,
        s.points_taken,
        s.trick_winners,
        s.history,
        s.n_tricks,
        s.leader,
        t.card_bit,
        t.suit_of,
        t.power,
        t.points,
        t.broken_suit,
        t.lead_after,
    )


@njit(cache=True, inline="always")
def clear_hand(s, g, unbroken_lead):
    """The fields every game starts a hand with, in game ``g`` (its cards, dealer, scores and bags
    set): no trick, card, bid or void yet, ``led_suit`` the lead state before the first lead,
    the scores and bags kept for the record, dealer+1 to move and lead."""
    n = s.hands.shape[1]
    for k in range(n):
        s.trick[g, k] = -1
        s.tricks_won[g, k] = 0
        s.bids[g, k] = -1
        s.blind[g, k] = False
    s.history[g] = -1
    s.trick_winners[g] = -1
    s.n_in_trick[g] = 0
    s.led_suit[g] = unbroken_lead
    s.n_tricks[g] = 0
    s.n_bids[g] = 0
    s.spades_broken[g] = False
    s.voids[g] = 0
    for k in range(s.scores.shape[1]):
        s.hand_start_scores[g, k] = s.scores[g, k]
        s.hand_start_bags[g, k] = s.bags[g, k]
    first = s.dealer[g] + 1 if s.dealer[g] + 1 < n else 0
    s.to_move[g] = first
    s.leader[g] = first


@njit(cache=True, inline="always")
def deal_hand(s, g, deck, two_player, n_face_up, seeded):
    """Deal hand ``hand_number[g]`` of game ``g`` (after ``n_redeals[g]`` redeals): the seeded deal
    (``core.deal.deal_next_hand``), or, not ``seeded``, the cards the caller wrote into ``hands``,
    ``deal`` (and ``pile``) with their face-up cards [RULES 1, 4, 6]. Two-player: nothing drawn,
    discarded or exchanged yet."""
    if seeded:
        core_deal.deal_next_hand(
            g, s.key, s.hand_number, s.n_redeals, deck, two_player, n_face_up, s.hands, s.deal, s.pile, s.face_up
        )
    elif n_face_up > 0:
        counter = core_deal.deal_counter(s.hand_number[g], s.n_redeals[g])
        core_deal.pick_cards(s.key[g], counter, s.deal[g], n_face_up, s.face_up[g])
    if two_player:
        s.pile_pos[g] = 0
        for k in range(s.hands.shape[1]):
            s.discards[g, k] = 0
            s.seen[g, k] = 0
            s.exchanged_out[g, k] = 0
            s.exchanged_in[g, k] = 0


@njit(cache=True, inline="always")
def keep_record(s, g, o, deal, dealer, history, bids, blind, tricks_won, trick_winners, start_scores, start_bags, bemo,
                hand_number, hand_keys):  # fmt: skip
    """Copy the finished hand of game ``g`` into row ``o`` of the record arrays (the ``FinishedHands``
    fields of the same names that every game keeps), before the next hand overwrites it. The hand is
    named by its ``hashing.hand_key``, never by the match key (which deals every later hand)."""
    n, n_sides = s.hands.shape[1], s.scores.shape[1]
    for k in range(n):
        deal[o, k] = s.deal[g, k]
        bids[o, k] = s.bids[g, k]
        blind[o, k] = s.blind[g, k]
        tricks_won[o, k] = s.tricks_won[g, k]
    for j in range(s.history.shape[1]):
        trick_winners[o, j] = s.trick_winners[g, j]
        for k in range(n):
            history[o, j, k] = s.history[g, j, k]
    for k in range(n_sides):
        start_scores[o, k] = s.hand_start_scores[g, k]
        start_bags[o, k] = s.hand_start_bags[g, k]
        bemo[o, k] = s.bemo[g, k]
    dealer[o] = s.dealer[g]
    hand_number[o] = s.hand_number[g]
    hand_keys[o] = hand_key(s.key[g], s.hand_number[g])


@njit(cache=True, inline="always")
def next_hand_or_match(s, g, winner, auto_reset, over_phase):
    """After the hand of game ``g`` is scored (its ``scores`` and ``bags`` set): the next hand of
    the match, by the next dealer; or, the match won by ``winner`` (>= 0), the next match with
    ``auto_reset`` (new key ``splitmix64`` of the old, its first dealer, 0 points, hand 0), else
    ``over_phase`` (OVER, the winner kept). Returns whether a hand is to be dealt."""
    n = s.hands.shape[1]
    s.hand_number[g] += 1
    if winner >= 0 and not auto_reset:
        s.winner[g] = winner
        s.phase[g] = over_phase
        return False
    if winner >= 0:
        key = splitmix64(s.key[g])
        s.key[g] = key
        s.dealer[g] = core_deal.first_dealer(key, n)
        for k in range(s.scores.shape[1]):
            s.scores[g, k] = 0
            s.bags[g, k] = 0
        s.hand_number[g] = 0
    else:
        s.dealer[g] = s.dealer[g] + 1 if s.dealer[g] + 1 < n else 0
    s.winner[g] = -1
    s.n_redeals[g] = 0
    return True
