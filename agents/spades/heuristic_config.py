"""How a rule set and the Spades heuristic's options reach its compiled kernels: two small arrays.

``config`` (int64, indexed by the ``C_*`` constants) holds the rule set, the action layout and
the integer options; an action the rule set does not have is -1 there. ``tuning`` (float64,
the ``T_*`` constants) holds the thresholds. ``agents.heuristic.HeuristicAgent`` builds both.
"""

from __future__ import annotations

# ``config`` entries: the rule set, the action layout, the bot's integer options.
C_PLAYERS, C_HAND_SIZE, C_CARD_IDS, C_MAX_BID, C_BID_OFFSET = 0, 1, 2, 3, 4
C_BLIND_NIL, C_LOOK, C_KEEP, C_DISCARD, C_EXCHANGE_DONE = 5, 6, 7, 8, 9
C_NO_BEMO, C_LITTLE_BEMO, C_REDEAL = 10, 11, 12
C_PARTNERSHIP, C_TWO_PLAYER, C_BAGS, C_BAG_LIMIT = 13, 14, 15, 16
C_TOP_TRUMP = 17  #: spade-lane rank of the highest trump: 14 (big joker) with jokers, else 12 (ace)
C_AVERAGE = 18  #: tricks of an average spade holding: round(13 / players)
C_SET_OPPONENTS = 19
N_CONFIG = 20
# ``tuning`` entries: the bot's thresholds, and 0.6 of the target score (the blind-nil alarm).
T_NIL, T_BID_BIAS, T_REDEAL, T_BEMO, T_TWO_PLAYER_BONUS, T_BLIND_ALARM = 0, 1, 2, 3, 4, 5
N_TUNING = 6
