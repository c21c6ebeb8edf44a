"""The batched game state: one dataclass of NumPy arrays with leading dimension B.

Shapes use B = games, N = players, S = scoring sides, T = hand size, P = the
two-player draw pile (52 cards, 0 in other games). Cards in a ``uint64`` are bitmasks (see ``spades_env.cards``);
a card in an int field is a card id, -1 for none. The engine mutates a state in
place; ``copy()`` gives an independent one.

One layout serves every game: each field's docstring says which game uses it ("Both" unless
it says otherwise). The fields are declared (dtype, dimensions, neutral value) where they belong:
those of every game in ``core.state_fields.CORE_FIELDS``, each game's own in its folder's
``state_fields.py`` (``games/spades/state_fields.py``, ``games/hearts/state_fields.py``, named by
its registry entry); the engine allocates an empty state from them (``engine.state_schema``), and
``engine.check.check_state`` checks that a field of another game stays at its declared neutral value
(a game's own fields, a variant's included, are checked by the game's invariants).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spades_env import games
from spades_env.core.phases import FREE_LEAD, LOWEST_CLUB_LEAD, OVER, PLAY, RESTRICTED_LEAD, SHARED_PHASE_NAMES

# Phases of a hand. Every phase is a decision of the player to move: the shared codes (``core.phases``: PLAY, OVER)
# and each game's own (its folder's ``phases`` part, e.g. the bids, the pass), by code. Each game's codes are read
# through the registry (the engine names no game); a caller that needs one game's code imports it from that game's
# folder, and a caller above the games asks the game's spec (``GameSpec.bid_phase``, ``pass_phase``, ...).
_NAMES = dict(SHARED_PHASE_NAMES)
for _game in games.GAMES:
    _NAMES.update(games.part(_game, "phases").PHASE_NAMES)
#: Every phase's name, by code (the shared phases and every registered game's).
PHASE_NAMES = tuple(_NAMES[code] for code in range(len(_NAMES)))
N_PHASES = len(PHASE_NAMES)


@dataclass
class GameState:
    """All state of B games; every field's first dimension is the batch."""

    hands: np.ndarray
    """(B, N) uint64: cards each seat still holds. Both games."""
    deal: np.ndarray
    """(B, N) uint64: the hands as dealt at the start of this hand (Hearts: updated by the pass once
    every seat has passed). Both games."""
    phase: np.ndarray
    """(B,) int64: one of the phases above (``PHASE_NAMES``: the shared PLAY and OVER, and the game's own)."""
    to_move: np.ndarray
    """(B,) int64: seat whose decision it is (meaningless when OVER)."""
    dealer: np.ndarray
    """(B,) int64: dealer of this hand; dealer+1 bids and leads first."""
    leader: np.ndarray
    """(B,) int64: seat that led the trick in progress."""
    trick: np.ndarray
    """(B, N) int64: card id each seat played to the trick in progress, -1 if none yet."""
    n_in_trick: np.ndarray
    """(B,) int64: cards in the trick in progress."""
    led_suit: np.ndarray
    """(B,) int64: suit led to the trick in progress; before the lead FREE_LEAD (-1, any
    card may be led), RESTRICTED_LEAD (-2, spades unbroken: lead a non-spade if held; Hearts:
    hearts unbroken, lead a non-heart if held) or LOWEST_CLUB_LEAD (-3, first trick under
    ``lowest_club_leads``, and always in Hearts: the two of clubs)."""
    n_tricks: np.ndarray
    """(B,) int64: tricks completed this hand."""
    tricks_won: np.ndarray
    """(B, N) int64: tricks each seat has taken this hand."""
    trick_winners: np.ndarray
    """(B, T) int64: winner of each completed trick of this hand, -1 for later tricks."""
    bids: np.ndarray
    """(B, N) int64: Spades: each seat's bid (0 = nil), -1 before the seat has bid. Hearts: always -1."""
    blind: np.ndarray
    """(B, N) bool: Spades: the seat declared blind nil. Hearts: always False."""
    looked: np.ndarray
    """(B, N) bool: Spades: the seat has seen its hand (False only while blind nil is still open).
    Hearts: always True."""
    n_bids: np.ndarray
    """(B,) int64: Spades: bids made this hand. Hearts: always 0."""
    spades_broken: np.ndarray
    """(B,) bool: the game's ``broken_suit`` has been played this hand: in Spades a spade (or a
    joker), in Hearts a heart ("hearts are broken"). Both games; ``broken`` is its game-neutral name
    (the field keeps this name: the state's layout, the records and the golden files use it)."""
    voids: np.ndarray
    """(B,) int64: bit ``4 * seat + suit`` set when the seat has shown out of the suit this hand."""
    scores: np.ndarray
    """(B, S) int64: match score of each side."""
    bags: np.ndarray
    """(B, S) int64: Spades: accumulated bags of each side (0 without ``bags``). Hearts: always 0."""
    hand_number: np.ndarray
    """(B,) int64: hands completed in this match. Both games (Hearts: it sets the pass direction)."""
    winner: np.ndarray
    """(B,) int64: side that won the match, -1 while it goes on."""
    key: np.ndarray
    """(B,) uint64: the game's random key; deals are a function of (key, hand_number)."""
    history: np.ndarray
    """(B, T, N) int64: card each seat played to each completed trick of this hand, -1 later."""
    hand_start_scores: np.ndarray
    """(B, S) int64: scores before this hand (for records)."""
    hand_start_bags: np.ndarray
    """(B, S) int64: bags before this hand (for records)."""
    face_up: np.ndarray
    """(B, N) uint64: Spades ``face_up_deal``: the four cards of each hand dealt face up (visible to
    all while still held: ``face_up & hands``); 0 otherwise, and in Hearts [RULES 6]."""
    bemo: np.ndarray
    """(B, S) int64: Spades ``bemo``: Bemo declared by each side: -1 not yet decided, 0 none, 1 little,
    2 big; -1 otherwise, and in Hearts [RULES 6]."""
    n_redeals: np.ndarray
    """(B,) int64: Spades ``misdeal_weak_hand``: redeals in this hand (the deal is a function of key,
    hand, redeals); 0 otherwise, and in Hearts."""
    pile: np.ndarray
    """(B, P) int64: two-player Spades: the draw pile, top card first (card ids) [RULES 4]; P = 0 in
    every other game (Hearts included). The fields from ``pile`` to ``exchanged_in`` are two-player
    Spades only: 0 (``shown``: -1) in every other game."""
    pile_pos: np.ndarray
    """(B,) int64: index in ``pile`` of the next card to be shown (P when the draw is over)."""
    shown: np.ndarray
    """(B,) int64: card shown to the drawer in DRAW (``pile[pile_pos]``), -1 otherwise."""
    discards: np.ndarray
    """(B, N) uint64: cards each player discarded in the draw (known only to that player)."""
    seen: np.ndarray
    """(B, N) uint64: every card each player has seen come off the pile or out of the discards."""
    exchanged_out: np.ndarray
    """(B, N) uint64: cards a blind-nil player gave up in the exchange (at most 3)."""
    exchanged_in: np.ndarray
    """(B, N) uint64: cards a blind-nil player drew at random from the discards in exchange."""
    passed: np.ndarray
    """(B, N) uint64: Hearts: the cards each seat chose to pass this hand (known to it, and to its
    receiver once every seat has chosen; see ``SpadesEngine.pass_offset``) [RULES 7]; 0 otherwise."""
    points_taken: np.ndarray
    """(B, N) int64: Hearts: points in the tricks each seat has taken this hand (hearts 1, Q of
    spades 13, jack of diamonds -10 under ``jack_of_diamonds``; before any moon) [RULES 7]; 0 otherwise."""

    @property
    def broken(self) -> np.ndarray:
        """(B,) bool: the game's ``broken_suit`` has been played this hand (spades in Spades, hearts in
        Hearts): the field ``spades_broken`` under a game-neutral name (the same array, so writes to
        ``state.broken[g]`` change the state)."""
        return self.spades_broken

    @property
    def played(self) -> np.ndarray:
        """(B, N) uint64: cards each seat has played this hand."""
        return self.deal & ~self.hands

    def void_suits(self) -> np.ndarray:
        """(B, N, 4) bool: seat n has shown out of suit s this hand."""
        n = self.hands.shape[1]
        return ((self.voids[:, None] >> np.arange(4 * n)) & 1).astype(bool).reshape(-1, n, 4)

    @property
    def nil_bid(self) -> np.ndarray:
        """(B,) bool: a seat of the game has bid nil (blind nil included) in the current hand (Hearts: never)."""
        return (self.bids == 0).any(axis=1)

    @property
    def batch_size(self) -> int:
        """Number of games B."""
        return len(self.phase)

    def copy(self) -> GameState:
        """A deep copy (every array copied)."""
        return GameState(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def take(self, games: np.ndarray | list[int]) -> GameState:
        """A new state holding only the given games (copied)."""
        idx = np.asarray(games, dtype=np.int64)
        return GameState(**{f.name: np.take(getattr(self, f.name), idx, axis=0) for f in dataclasses.fields(self)})

    @staticmethod
    def concat(states: Sequence[GameState]) -> GameState:
        """One state holding the games of ``states`` in order (copied)."""
        return GameState(
            **{f.name: np.concatenate([getattr(s, f.name) for s in states]) for f in dataclasses.fields(GameState)}
        )

    def put(self, games: np.ndarray | list[int], other: GameState) -> None:
        """Overwrite the given games with the games of ``other`` (same order)."""
        idx = np.asarray(games, dtype=np.int64)
        for f in dataclasses.fields(self):
            getattr(self, f.name)[idx] = getattr(other, f.name)


#: The phase codes, gathered here for every caller (``from spades_env.engine import PLAY``).
__all__ = [
    "FREE_LEAD",
    "LOWEST_CLUB_LEAD",
    "N_PHASES",
    "OVER",
    "PHASE_NAMES",
    "PLAY",
    "RESTRICTED_LEAD",
    "GameState",
]
