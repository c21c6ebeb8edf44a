"""Spades decisions but card play, for one game, compiled: check, apply, legal row, random draw.

Each phase of a Spades hand [RULES 2, 4, 6] is a few small functions over one game ``g`` of
the state ``s`` (a ``core.state_arrays.StateArrays``) and the rule set's parameters ``p``
(an int64 array, indexed by the ``P_*`` constants; built by ``games.spades.spec``'s ``params``):
blind nil or look, the bids (``bid_range``: ``min_team_bid``, mirror, fourteen), the
two-player draw and blind-nil exchange, and Bemo. Card play is the core's
(``core.state_arrays.play_card``). The batch loops over games are in ``games.spades.loops``.

An action id of the layout (``engine.actions``): a special action the rules lack is -1 here.

The functions that take ``s`` are inlined into the loops (``inline="always"``): a call passes
the 38 arrays of ``s`` by value, which cost ~1 µs a decision (two-player B = 4096: 730 ns a
decision called, 160 inlined).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spades_env import cards
from spades_env.core import hashing
from spades_env.core import state_arrays as sa
from spades_env.core.card_bits import bit_of, kth_card, popcount, write_bits
from spades_env.core.phases import LOWEST_CLUB_LEAD, PLAY

# The phase codes of Spades' own decisions (``core.phases`` has the shared PLAY and OVER).
BLIND = 0  #: decide blind nil or look at the hand
BID = 1  #: bid 0 (nil) .. hand size
DRAW = 4  #: two-player: keep or discard the card shown from the pile [RULES 4]
EXCHANGE = 5  #: two-player blind nil: give up a card for a random discard, or stop [RULES 4]
BEMO = 6  #: before the first lead: a side declares no, little or big Bemo [RULES 6]
#: The phases of Spades: the width of the Spades observation's phase block (its layout is frozen).
N_SPADES_PHASES = 7
#: The names of Spades' own phase codes.
PHASE_NAMES = {BLIND: "blind", BID: "bid", DRAW: "draw", EXCHANGE: "exchange", BEMO: "bemo"}

# The parameters of a rule set: indices into ``p``.
P_N_PLAYERS = 0
P_HAND_SIZE = 1
P_N_CARD_IDS = 2
P_BID_OFFSET = 3
P_BLIND_NIL = 4  #: action ids of the special actions (-1: not in these rules)
P_LOOK = 5
P_KEEP = 6
P_DISCARD = 7
P_EXCHANGE_DONE = 8
P_NO_BEMO = 9
P_BIG_BEMO = 10
P_REDEAL = 11
P_MIRROR = 12  #: 1 under ``mirror``
P_FOURTEEN = 13  #: 1 under ``fourteen`` in a partnership game
P_TEAM_BID = 14  #: ``min_team_bid`` in a partnership game, else 0
P_TWO_PLAYER = 15
P_BEMO = 16
P_CLUB_LEADS = 17  #: 1 under ``lowest_club_leads``
P_LOWEST_CLUB = 18
P_PILE_SIZE = 19
P_BLIND_OPEN = 20  #: blind nil: 0 never, 1 always, 2 for a side behind by ``P_BEHIND_BY`` or more
P_BEHIND_BY = 21
P_SIDE_OF_SEAT = 22  #: then one entry per seat: its scoring side (room for six seats)
P_FACE_UP = 28  #: cards of each hand dealt face up (``face_up_deal``: 4), else 0
P_DECK_SIZE = 29
P_DECK = 30  #: then the deck's card ids in id order (``deck(p)``), at most 64
N_PARAMS = P_DECK + 64

#: Cards a two-player blind-nil bidder may exchange with the discards [RULES 4].
MAX_EXCHANGE = 3
#: Salt of the exchange's draws from the discards (``core.hashing.stream``).
EXCHANGE_SALT = 29
#: A weak hand (``misdeal_weak_hand``) holds none of these: trumps (jokers included), J, Q, K [RULES 6].
WEAK_HAND_MASK = np.uint64(
    int(cards.TRUMP_MASK) | cards.cards_to_mask(s * cards.N_RANKS + r for s in range(4) for r in (9, 10, 11))
)
_TRUMPS = cards.TRUMP_MASK


@njit(cache=True, inline="always")
def deck(p):
    """The card ids of the deck in play, in id order (int64, a view of ``p``)."""
    return p[P_DECK : P_DECK + p[P_DECK_SIZE]]


@njit(cache=True, inline="always")
def deal(s, p, g, seeded):
    """Deal the hand of game ``g`` (``core.state_arrays.deal_hand``): the two-player pile, the face-up cards."""
    sa.deal_hand(s, g, deck(p), p[P_TWO_PLAYER], p[P_FACE_UP], seeded)


@njit(cache=True)
def next_seat(p, seat):
    """The seat after ``seat`` (clockwise)."""
    return seat + 1 if seat + 1 < p[P_N_PLAYERS] else 0


@njit(cache=True, inline="always")
def bid_range(s, p, g):
    """(lowest, highest) legal bid of the player to move [RULES 2, 6]: mirror bids the spades held;
    fourteen bids 2..5, the second partner completing the team's 7; ``min_team_bid`` raises the
    second partner's lowest bid."""
    seat = s.to_move[g]
    hi = p[P_HAND_SIZE]
    if p[P_MIRROR]:
        spades = popcount(s.hands[g, seat] & _TRUMPS)
        return spades, spades
    if not (p[P_FOURTEEN] or p[P_TEAM_BID]):
        return 0, hi
    partner_bid = s.bids[g, (seat + 2) % p[P_N_PLAYERS]]
    if p[P_FOURTEEN]:
        if partner_bid >= 0:
            return 7 - partner_bid, 7 - partner_bid
        return 2, 5
    if partner_bid >= 0:
        return max(0, p[P_TEAM_BID] - partner_bid), hi
    return 0, hi


@njit(cache=True, inline="always")
def weak_hand(s, p, g):
    """The player to move may show a weak hand to force a redeal (``misdeal_weak_hand``) [RULES 6]."""
    return p[P_REDEAL] >= 0 and (s.hands[g, s.to_move[g]] & WEAK_HAND_MASK) == np.uint64(0)


@njit(cache=True, inline="always")
def exchange_cards(s, g):
    """Two-player exchange: the cards the player to move may give up (held, not just drawn)."""
    seat = s.to_move[g]
    return s.hands[g, seat] & ~s.exchanged_in[g, seat]


# ----------------------------------------------------------- hand start
@njit(cache=True, inline="always")
def begin_hand(s, p, g):
    """The first decision of a hand just dealt (``core.state_arrays.clear_hand`` done): blind nil
    or the bids from dealer+1 on [RULES 2]; two-player: the blind-nil choices (non-dealer first),
    then the dealer draws [RULES 4]."""
    n = p[P_N_PLAYERS]
    if p[P_BEMO]:
        s.bemo[g] = -1
    first = s.to_move[g]
    s.phase[g] = BID
    if p[P_BLIND_OPEN]:
        for k in range(n):
            s.looked[g, k] = not blind_nil_open(s, p, g, p[P_SIDE_OF_SEAT + k])
        if not s.looked[g, first]:
            s.phase[g] = BLIND
    if p[P_TWO_PLAYER]:
        s.shown[g] = -1
        dealer = s.dealer[g]
        if s.looked[g, first] and s.looked[g, dealer]:
            begin_draw(s, g)
        else:
            s.phase[g] = BLIND
            s.to_move[g] = dealer if s.looked[g, first] else first


@njit(cache=True, inline="always")
def blind_nil_open(s, p, g, side):
    """May the players of ``side`` bid blind nil this hand: always, or when the side is behind
    every other side's best score by ``blind_nil_requires_behind_by`` [RULES 2]."""
    if p[P_BLIND_OPEN] == 1:
        return True
    best = -(1 << 62)
    for k in range(s.scores.shape[1]):
        if k != side:
            best = max(best, s.scores[g, k])
    return s.scores[g, side] <= best - p[P_BEHIND_BY]


# ----------------------------------------------------------------- checks
@njit(cache=True, inline="always")
def is_legal(s, p, g, a):
    """Whether action ``a`` is legal for the player to move in game ``g`` (a phase but play)."""
    phase = s.phase[g]
    if phase == BID:
        lo, hi = bid_range(s, p, g)
        bid = a - p[P_BID_OFFSET]
        return (lo <= bid <= hi) or (a == p[P_REDEAL] and weak_hand(s, p, g))
    if phase == BLIND:  # blind nil where a bid of 0 is open, or look [RULES 2]
        return a == p[P_LOOK] or (a == p[P_BLIND_NIL] and bid_range(s, p, g)[0] == 0)
    if phase == DRAW:
        return a == p[P_KEEP] or a == p[P_DISCARD]
    if phase == EXCHANGE:
        return a == p[P_EXCHANGE_DONE] or (exchange_cards(s, g) & bit_of(a, p[P_N_CARD_IDS])) != np.uint64(0)
    if phase == BEMO:
        return p[P_NO_BEMO] <= a <= p[P_BIG_BEMO]
    return False


# ------------------------------------------------------------------ apply
@njit(cache=True, inline="always")
def apply(s, p, g, a):
    """Apply legal action ``a`` in game ``g`` (a phase but play). Returns True for a weak-hand
    redeal, which the caller deals (nothing else of the game has changed)."""
    phase = s.phase[g]
    if phase == BID:
        if a == p[P_REDEAL]:
            return True
        s.bids[g, s.to_move[g]] = a - p[P_BID_OFFSET]
        s.n_bids[g] += 1
        next_bidder(s, p, g)
    elif phase == BLIND:
        choose_blind(s, p, g, a == p[P_BLIND_NIL])
    elif phase == DRAW:
        draw(s, p, g, a == p[P_KEEP])
    elif phase == EXCHANGE:
        exchange(s, p, g, a)
    elif phase == BEMO:
        seat = s.to_move[g]
        s.bemo[g, p[P_SIDE_OF_SEAT + seat]] = a - p[P_NO_BEMO]
        s.to_move[g] = next_seat(p, seat)
        if np.all(s.bemo[g] >= 0):  # one decision per side, from the first leader on [RULES 6]
            start_play(s, p, g)
    return False


@njit(cache=True, inline="always")
def choose_blind(s, p, g, declared):
    """Blind nil (a bid of 0) or look; then this seat bids, unless it declared [RULES 2]. In
    two-player both choices come before the draw, the non-dealer's first [RULES 4]."""
    seat = s.to_move[g]
    s.looked[g, seat] = True
    s.blind[g, seat] = declared
    s.bids[g, seat] = 0 if declared else -1
    if declared:
        s.n_bids[g] += 1
    if p[P_TWO_PLAYER]:
        dealer = s.dealer[g]
        dealer_next = seat != dealer and not s.looked[g, dealer]
        s.to_move[g] = dealer
        if not dealer_next:
            begin_draw(s, g)
        return
    s.phase[g] = BID
    if declared:
        next_bidder(s, p, g)


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


@njit(cache=True, inline="always")
def next_bidder(s, p, g):
    """After a bid: the next seat bids (or first chooses blind nil), or the bidding ends."""
    if s.n_bids[g] == p[P_N_PLAYERS]:
        end_bidding(s, p, g)
        return
    nxt = next_seat(p, s.to_move[g])
    s.to_move[g] = nxt
    s.phase[g] = BID if s.looked[g, nxt] else BLIND


@njit(cache=True, inline="always")
def end_bidding(s, p, g):
    """After the last bid: the Bemo declarations from the first leader on, or the first lead."""
    if p[P_BEMO]:
        s.phase[g] = BEMO
        s.to_move[g] = first_leader(s, p, g)
    else:
        start_play(s, p, g)


@njit(cache=True, inline="always")
def first_leader(s, p, g):
    """Dealer+1, or the holder of the lowest club under ``lowest_club_leads`` [RULES 1, 6]."""
    if p[P_CLUB_LEADS]:
        club = np.uint64(1) << np.uint64(p[P_LOWEST_CLUB])
        for k in range(p[P_N_PLAYERS]):
            if s.hands[g, k] & club:
                return k
        return 0
    return next_seat(p, s.dealer[g])


@njit(cache=True, inline="always")
def start_play(s, p, g):
    """The first lead: the first leader leads (the lowest club, under ``lowest_club_leads``)."""
    first = first_leader(s, p, g)
    s.phase[g] = PLAY
    s.leader[g] = first
    s.to_move[g] = first
    if p[P_CLUB_LEADS]:
        s.led_suit[g] = LOWEST_CLUB_LEAD


# ------------------------------------------------------- legal row, random
@njit(cache=True, inline="always")
def legal_row(s, p, g, row):
    """Write the legal actions of game ``g`` (a phase but play) into the bool ``row`` (all of it)."""
    row[:] = False
    phase = s.phase[g]
    if phase == BID:
        lo, hi = bid_range(s, p, g)
        row[p[P_BID_OFFSET] + lo : p[P_BID_OFFSET] + hi + 1] = True
        if weak_hand(s, p, g):
            row[p[P_REDEAL]] = True
    elif phase == BLIND:
        row[p[P_LOOK]] = True
        row[p[P_BLIND_NIL]] = bid_range(s, p, g)[0] == 0
    elif phase == DRAW:
        row[p[P_KEEP]] = True
        row[p[P_DISCARD]] = True
    elif phase == EXCHANGE:
        write_bits(exchange_cards(s, g), row, p[P_N_CARD_IDS])
        row[p[P_EXCHANGE_DONE]] = True
    elif phase == BEMO:
        row[p[P_NO_BEMO] : p[P_BIG_BEMO] + 1] = True


@njit(cache=True, inline="always")
def random_action(s, p, g, u):
    """Legal action k of game ``g`` (a phase but play) in id order, k = floor(u * their number):
    the draw of ``sampling.sample_legal`` on ``legal_row``; -1 in a phase without actions."""
    phase = s.phase[g]
    if phase == BID:  # the bids in order, then the redeal (the last id)
        lo, hi = bid_range(s, p, g)
        n_bids = hi - lo + 1
        k = np.int64(u * (n_bids + (1 if weak_hand(s, p, g) else 0)))
        return p[P_BID_OFFSET] + lo + k if k < n_bids else p[P_REDEAL]
    if phase == BLIND:  # blind nil (the lower id) where a bid of 0 is open, and look
        open_ = bid_range(s, p, g)[0] == 0
        k = np.int64(u * (2 if open_ else 1))
        return p[P_BLIND_NIL] if k == 0 and open_ else p[P_LOOK]
    if phase == DRAW:  # keep, then discard
        return p[P_KEEP] + np.int64(u * 2) * (p[P_DISCARD] - p[P_KEEP])
    if phase == EXCHANGE:  # the cards, then done
        held = exchange_cards(s, g)
        k = np.int64(u * (popcount(held) + 1))
        return kth_card(held, k) if k < popcount(held) else p[P_EXCHANGE_DONE]
    if phase == BEMO:  # no, little or big Bemo
        return p[P_NO_BEMO] + np.int64(u * (p[P_BIG_BEMO] - p[P_NO_BEMO] + 1))
    return -1
