"""The bidding of one Spades game, compiled: the legal bids, blind nil, the weak hand, and what follows
the last bid (Bemo or the first lead) [RULES 2, 6].

Functions of one game ``g`` of the state ``s`` and the rule set's parameters ``p`` (``params``),
inlined into the loops like the rest of ``phases``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spades_env import cards
from spades_env.core.card_bits import popcount
from spades_env.core.phases import LOWEST_CLUB_LEAD, PLAY
from spades_env.games.spades.params import (
    BEMO,
    BID,
    BLIND,
    P_BEHIND_BY,
    P_BEMO,
    P_BLIND_OPEN,
    P_CLUB_LEADS,
    P_FOURTEEN,
    P_HAND_SIZE,
    P_LOWEST_CLUB,
    P_MIRROR,
    P_N_PLAYERS,
    P_REDEAL,
    P_TEAM_BID,
    next_seat,
)

#: A weak hand (``misdeal_weak_hand``) holds none of these: trumps (jokers included), J, Q, K [RULES 6].
WEAK_HAND_MASK = np.uint64(
    int(cards.TRUMP_MASK) | cards.cards_to_mask(s * cards.N_RANKS + r for s in range(4) for r in (9, 10, 11))
)
_TRUMPS = cards.TRUMP_MASK


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
