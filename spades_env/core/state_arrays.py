"""Card play and the hand cycle on a game state's arrays inside compiled code: the core's pieces of every game.

The compiled rules take the ``GameState`` arrays as separate arguments (the game's ``state_arrays(state)``,
in its ``FIELDS`` order: a Numba call costs about 0.07 µs an array, a tuple of them several times
more) and bundle them into the game's ``StateArrays`` inside the compiled code (its ``borrow``); a rule
then reads ``s.hands[g, seat]``. Each game's ``StateArrays`` is the core's fields then its own, generated
from their declarations into the game's folder (``games/<game>/state_arrays.py``, by
``spades_env.games.generate_loops``). At small batches the engine's ``step`` passes one table of the
arrays' addresses instead, whose views (the game's ``unpack_state``) the same ``borrow`` bundles. The
core never imports a game: the games' compiled loops call these pieces, which take the bundle
duck-typed and read only the core's fields (``core.state_fields.CORE_FIELDS``).

Numba counts the references of every array passed to a function, atomically, at each call:
for a bundle of 36 arrays that is ~0.5 µs a call, ten times a game's rule. ``borrow`` bundles
views that carry no reference count (``borrowed``), valid while the call that made them runs;
they are never returned or stored.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

from spades_env.core import deal as core_deal
from spades_env.core import trick_play
from spades_env.core.card_bits import bit_of
from spades_env.core.hashing import hand_key, splitmix64

#: The record arrays of the hands that end in a step that every game's compiled hand end fills
#: (row o: the o-th game that ended), in this order: its winner, ``keep_record``'s, the points
#: and scores after. The games' loops add their own (``RECORD``); ``engine.hand_cycle`` allocates them.
RECORD_FIELDS = (
    "winner", "deal", "dealer", "history", "tricks_won", "trick_winners", "start_scores", "hand_number", "hand_key",
    "delta", "scores",
)  # fmt: skip
#: What a compiled ``step`` did to a game (its ``status``): nothing more to do, a hand ended
#: (``trick_play.play_range`` sets True), a weak-hand redeal (Spades).
GOES_ON, HAND_ENDED, REDEAL = 0, 1, 2


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
    """The core's fields every game starts a hand with, in game ``g`` (its cards, dealer and scores
    set): no trick, card, point or void yet, ``led_suit`` the lead state before the first lead,
    the scores kept for the record, dealer+1 to move and lead. (The game's own fields are its
    ``begin_hand``'s.)"""
    n = s.hands.shape[1]
    for k in range(n):
        s.trick[g, k] = -1
        s.tricks_won[g, k] = 0
        s.points_taken[g, k] = 0
    s.history[g] = -1
    s.trick_winners[g] = -1
    s.n_in_trick[g] = 0
    s.led_suit[g] = unbroken_lead
    s.n_tricks[g] = 0
    s.spades_broken[g] = False
    s.voids[g] = 0
    for k in range(s.scores.shape[1]):
        s.hand_start_scores[g, k] = s.scores[g, k]
    first = s.dealer[g] + 1 if s.dealer[g] + 1 < n else 0
    s.to_move[g] = first
    s.leader[g] = first


@njit(cache=True, inline="always")
def deal_hand(s, g, deck, seeded, n_redeals):
    """Deal hand ``hand_number[g]`` of game ``g`` after ``n_redeals`` weak-hand redeals (0 in a game
    without): the seeded deal of ``deck`` into ``hands`` and ``deal`` (``core.deal.deal``), or, not
    ``seeded``, the cards the caller wrote into them [RULES 1]."""
    if seeded:
        core_deal.deal(s.key[g], core_deal.deal_counter(s.hand_number[g], n_redeals), deck, s.hands[g])
        for k in range(s.hands.shape[1]):
            s.deal[g, k] = s.hands[g, k]


@njit(cache=True, inline="always")
def keep_record(s, g, o, deal, dealer, history, tricks_won, trick_winners, start_scores, hand_number, hand_keys):
    """Copy the finished hand of game ``g`` into row ``o`` of the record arrays (the ``FinishedHands``
    fields of the same names that every game keeps), before the next hand overwrites it. The hand is
    named by its ``hashing.hand_key``, never by the match key (which deals every later hand)."""
    n, n_sides = s.hands.shape[1], s.scores.shape[1]
    for k in range(n):
        deal[o, k] = s.deal[g, k]
        tricks_won[o, k] = s.tricks_won[g, k]
    for j in range(s.history.shape[1]):
        trick_winners[o, j] = s.trick_winners[g, j]
        for k in range(n):
            history[o, j, k] = s.history[g, j, k]
    for k in range(n_sides):
        start_scores[o, k] = s.hand_start_scores[g, k]
    dealer[o] = s.dealer[g]
    hand_number[o] = s.hand_number[g]
    hand_keys[o] = hand_key(s.key[g], s.hand_number[g])


@njit(cache=True, inline="always")
def next_hand_or_match(s, g, winner, auto_reset, over_phase):
    """After the hand of game ``g`` is scored (its ``scores`` set): the next hand of the match, by the
    next dealer; or, the match won by ``winner`` (>= 0), the next match with ``auto_reset`` (new key
    ``splitmix64`` of the old, its first dealer, 0 points, hand 0), else ``over_phase`` (OVER, the
    winner kept). Returns whether a hand is to be dealt (the game's ``next_hand`` sets its own fields
    for it first)."""
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
        s.hand_number[g] = 0
    else:
        s.dealer[g] = s.dealer[g] + 1 if s.dealer[g] + 1 < n else 0
    s.winner[g] = -1
    return True
