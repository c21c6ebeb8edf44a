"""The parameters of a Spades rule set as the compiled rules read them, and Spades' own phase codes.

``p`` is an int64 array indexed by the ``P_*`` constants (built by ``games.spades.spec``'s
``params``); ``deck`` and ``next_seat`` are the two reads of it every phase makes. The rules
of each phase are in ``phases`` (the dispatch the loops call), ``bidding`` and ``two_player``.
"""

from __future__ import annotations

from numba import njit

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


@njit(cache=True, inline="always")
def deck(p):
    """The card ids of the deck in play, in id order (int64, a view of ``p``)."""
    return p[P_DECK : P_DECK + p[P_DECK_SIZE]]


@njit(cache=True)
def next_seat(p, seat):
    """The seat after ``seat`` (clockwise)."""
    return seat + 1 if seat + 1 < p[P_N_PLAYERS] else 0
