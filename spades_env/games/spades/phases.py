"""Spades decisions but card play, for one game, compiled: check, apply, legal row, random draw.

Each phase of a Spades hand [RULES 2, 4, 6] is a few small functions over one game ``g`` of
the state ``s`` (a ``games.spades.state_arrays.StateArrays``) and the rule set's parameters ``p``
(an int64 array, indexed by the ``P_*`` constants; built by ``games.spades.spec``'s ``params``):
blind nil or look, the bids (``bid_range``: ``min_team_bid``, mirror, fourteen), the
two-player draw and blind-nil exchange, and Bemo. Card play is the core's
(``core.state_arrays.play_cards``). The batch loops over games are in ``games.spades.loops``.

This module is what the loops ask of the game: each decision dispatched on the game's phase.
The rules behind them are beside it: ``params`` (the phase codes and ``p``'s layout),
``bidding`` (the bids, blind nil, the weak hand, the first lead) and ``two_player`` (the draw
and the exchange).

An action id of the layout (``engine.actions``): a special action the rules lack is -1 here.

The functions that take ``s`` are inlined into the loops (``inline="always"``): a call passes
the 36 arrays of ``s`` by value, which cost ~1 µs a decision (two-player B = 4096: 730 ns a
decision called, 160 inlined).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spades_env.core import deal as core_deal
from spades_env.core.card_bits import bit_of, kth_card, popcount, write_bits
from spades_env.games.spades import params
from spades_env.games.spades.bidding import bid_range, blind_nil_open, next_bidder, start_play, weak_hand
from spades_env.games.spades.params import (
    BEMO,
    BID,
    BLIND,
    DRAW,
    EXCHANGE,
    P_BEMO,
    P_BID_OFFSET,
    P_BIG_BEMO,
    P_BLIND_NIL,
    P_BLIND_OPEN,
    P_DISCARD,
    P_EXCHANGE_DONE,
    P_FACE_UP,
    P_KEEP,
    P_LOOK,
    P_N_CARD_IDS,
    P_N_PLAYERS,
    P_NO_BEMO,
    P_REDEAL,
    P_SIDE_OF_SEAT,
    P_TWO_PLAYER,
    deck,
    next_seat,
)
from spades_env.games.spades.two_player import begin_draw, draw, exchange, exchange_cards

#: The names of Spades' own phase codes, and how many phases Spades has: the registry's ``phases`` part
#: holds them beside the codes (``engine.state`` reads them here).
PHASE_NAMES, N_SPADES_PHASES = params.PHASE_NAMES, params.N_SPADES_PHASES


@njit(cache=True, inline="always")
def deal(s, p, g, seeded):
    """Deal hand ``hand_number[g]`` of game ``g`` after ``n_redeals[g]`` redeals: the seeded deal
    (``core.deal.deal_next_hand``: two-player, the pile), or, not ``seeded``, the cards the caller wrote
    into ``hands``, ``deal`` (and ``pile``), with their face-up cards [RULES 1, 4, 6]. Two-player: nothing
    drawn, discarded or exchanged yet."""
    two_player, n_face_up = p[P_TWO_PLAYER], p[P_FACE_UP]
    if seeded:
        core_deal.deal_next_hand(
            g, s.key, s.hand_number, s.n_redeals, deck(p), two_player, n_face_up, s.hands, s.deal, s.pile, s.face_up
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
def next_hand(s, p, g, new_match):
    """Before the next hand of game ``g``'s match (``new_match``: the first of a new match): no redeal
    yet; a new match starts without bags."""
    s.n_redeals[g] = 0
    if new_match:
        for k in range(s.bags.shape[1]):
            s.bags[g, k] = 0


# ----------------------------------------------------------- hand start
@njit(cache=True, inline="always")
def begin_hand(s, p, g):
    """The first decision of a hand just dealt (``core.state_arrays.clear_hand`` done): no bid yet,
    the bags kept for the record; blind nil or the bids from dealer+1 on [RULES 2]; two-player: the
    blind-nil choices (non-dealer first), then the dealer draws [RULES 4]."""
    n = p[P_N_PLAYERS]
    for k in range(n):
        s.bids[g, k] = -1
        s.blind[g, k] = False
    s.n_bids[g] = 0
    for k in range(s.bags.shape[1]):
        s.hand_start_bags[g, k] = s.bags[g, k]
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
    redeal, which the caller deals (its count ``n_redeals`` up; nothing else of the game has changed)."""
    phase = s.phase[g]
    if phase == BID:
        if a == p[P_REDEAL]:
            s.n_redeals[g] += 1  # a new seeded deal by the same dealer [RULES 6]
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
