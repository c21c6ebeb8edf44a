"""The two-player deal of one Spades game, compiled: the draw from the pile and the blind-nil exchange
with the discards, then the bidding [RULES 4].

Functions of one game ``g`` of the state ``s`` and the rule set's parameters ``p`` (``params``),
inlined into the loops like the rest of ``phases``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spades_env.core import hashing
from spades_env.core.card_bits import bit_of, kth_card, popcount
from spades_env.games.spades.bidding import end_bidding
from spades_env.games.spades.params import (
    BID,
    DRAW,
    EXCHANGE,
    P_EXCHANGE_DONE,
    P_N_CARD_IDS,
    P_N_PLAYERS,
    P_PILE_SIZE,
    next_seat,
)

#: Cards a two-player blind-nil bidder may exchange with the discards [RULES 4].
MAX_EXCHANGE = 3
#: Salt of the exchange's draws from the discards (``core.hashing.stream``).
EXCHANGE_SALT = 29


@njit(cache=True, inline="always")
def exchange_cards(s, g):
    """Two-player exchange: the cards the player to move may give up (held, not just drawn)."""
    seat = s.to_move[g]
    return s.hands[g, seat] & ~s.exchanged_in[g, seat]


@njit(cache=True, inline="always")
def begin_draw(s, g):
    """Two-player: the dealer takes the first card off the pile [RULES 4]."""
    s.phase[g] = DRAW
    s.to_move[g] = s.dealer[g]
    s.shown[g] = s.pile[g, 0]


@njit(cache=True, inline="always")
def draw(s, p, g, keep):
    """Two-player draw: keep the shown card and discard the next, or the other way round; after
    the pile, blind-nil players exchange (non-dealer first), or the bidding starts [RULES 4]."""
    seat = s.to_move[g]
    pos = s.pile_pos[g]
    first = np.uint64(1) << np.uint64(s.pile[g, pos])
    second = np.uint64(1) << np.uint64(s.pile[g, pos + 1])
    s.hands[g, seat] |= first if keep else second
    s.discards[g, seat] |= second if keep else first
    s.seen[g, seat] |= first | second
    pos += 2
    s.pile_pos[g] = pos
    s.to_move[g] = next_seat(p, seat)
    if pos < p[P_PILE_SIZE]:
        s.shown[g] = s.pile[g, pos]
        return
    s.shown[g] = -1
    dealer = s.dealer[g]
    first_seat = next_seat(p, dealer)
    s.to_move[g] = first_seat if s.blind[g, first_seat] else dealer
    if s.blind[g, first_seat] or s.blind[g, dealer]:
        s.phase[g] = EXCHANGE
    else:
        begin_bidding(s, p, g)


@njit(cache=True)
def exchange_pool(discards, exchanged_out, exchanged_in, g, seat):
    """The cards ``seat``'s next blind-nil exchange draws from in game ``g`` (uint64): the discards and
    the cards given up, less those drawn and the seat's own given cards [RULES 4]."""
    pool = np.uint64(0)
    taken = np.uint64(0)
    for k in range(discards.shape[1]):
        pool |= discards[g, k] | exchanged_out[g, k]
        taken |= exchanged_in[g, k]
    return pool & ~taken & ~exchanged_out[g, seat]


@njit(cache=True)
def exchange_counter(hand_number, n_given, seat):
    """The ``stream`` counter of the draw of ``seat`` after it gave up ``n_given`` cards in hand ``hand_number``."""
    return hand_number * 16 + n_given + 4 * seat


@njit(cache=True, inline="always")
def exchange(s, p, g, a):
    """Two-player blind nil: give up card ``a`` and draw one at random from the discards (card
    ``stream(key, exchange_counter(...), EXCHANGE_SALT) % (cards in the pool)`` of ``exchange_pool``
    in id order), up to three, or stop; then the dealer's turn, or the bidding [RULES 4]."""
    seat = s.to_move[g]
    if a != p[P_EXCHANGE_DONE]:
        pool = exchange_pool(s.discards, s.exchanged_out, s.exchanged_in, g, seat)
        counter = exchange_counter(s.hand_number[g], popcount(s.exchanged_out[g, seat]), seat)
        drawn = hashing.stream(s.key[g], counter, EXCHANGE_SALT)
        new = np.uint64(1) << np.uint64(kth_card(pool, np.int64(drawn % np.uint64(popcount(pool)))))
        card = bit_of(a, p[P_N_CARD_IDS])
        s.hands[g, seat] = (s.hands[g, seat] & ~card) | new
        s.seen[g, seat] |= new
        s.exchanged_in[g, seat] |= new
        s.exchanged_out[g, seat] |= card
        if popcount(s.exchanged_out[g, seat]) < MAX_EXCHANGE:
            return
    dealer = s.dealer[g]
    dealer_next = seat != dealer and s.blind[g, dealer]
    s.to_move[g] = dealer
    if not dealer_next:
        begin_bidding(s, p, g)


@njit(cache=True, inline="always")
def begin_bidding(s, p, g):
    """Two-player: the kept hands become the hand's deal; the non-dealer bids first [RULES 4]."""
    for k in range(p[P_N_PLAYERS]):
        s.deal[g, k] = s.hands[g, k]
    s.phase[g] = BID
    first = next_seat(p, s.dealer[g])
    s.to_move[g] = s.dealer[g] if s.bids[g, first] >= 0 else first
    if s.n_bids[g] == p[P_N_PLAYERS]:
        end_bidding(s, p, g)
