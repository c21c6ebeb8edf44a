"""The phase codes every game shares (card play and the match's end) and the trick's lead restrictions.

Each game adds its own decisions' codes in its folder (``games/spades/params.py``: blind nil, bids, the two-player
draw and exchange, Bemo; ``games/hearts/phases.py``: the pass); ``spades_env.engine.state`` gathers them all, with
their names. Codes are distinct across games: a state's ``phase`` is one of them.
"""

PLAY = 2  #: play a card to the trick
OVER = 3  #: the match is over; no player moves
#: The shared codes' names (each game adds its own, in its folder).
SHARED_PHASE_NAMES = {PLAY: "play", OVER: "over"}

FREE_LEAD = -1
RESTRICTED_LEAD = -2
LOWEST_CLUB_LEAD = -3  #: first trick under ``lowest_club_leads``: the lowest club must be led
