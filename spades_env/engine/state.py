"""The batched game state: one dataclass of NumPy arrays with leading dimension B.

Shapes use B = games, N = players, S = scoring sides, T = hand size, P = the
two-player draw pile (52 cards, 0 in other games). Cards in a ``uint64`` are bitmasks (see ``spades_env.cards``);
a card in an int field is a card id, -1 for none. The engine mutates a state in
place; ``copy()`` gives an independent one.

Each game's state holds the core's fields (this class's, declared in ``core.state_fields.CORE_FIELDS``) then its
own, declared in its folder's ``state_fields.py`` (``games/spades/state_fields.py``: bids, blind nil, bags, the
face-up cards, Bemo, the two-player pile; ``games/hearts/state_fields.py``: the pass; named by its registry entry):
a subclass of ``GameState`` made from the declarations (``engine.state_schema.state_class(game)``, e.g.
``SpadesState``), which the engine allocates (``engine.state_schema.empty_state``). Reading a field the game
lacks (``bids`` of a Hearts state) raises an AttributeError naming the game and its fields.
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
    """The fields every game's state has, of B games (a game's own follow in its class,
    ``engine.state_schema.state_class``); every field's first dimension is the batch."""

    hands: np.ndarray
    """(B, N) uint64: cards each seat still holds."""
    deal: np.ndarray
    """(B, N) uint64: the hands as dealt at the start of this hand (Hearts: updated by the pass once
    every seat has passed)."""
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
    spades_broken: np.ndarray
    """(B,) bool: the game's ``broken_suit`` has been played this hand: in Spades a spade (or a
    joker), in Hearts a heart ("hearts are broken"); ``broken`` is its game-neutral name
    (the field keeps this name: the state's layout, the records and the golden files use it)."""
    voids: np.ndarray
    """(B,) int64: bit ``4 * seat + suit`` set when the seat has shown out of the suit this hand."""
    scores: np.ndarray
    """(B, S) int64: match score of each side."""
    hand_number: np.ndarray
    """(B,) int64: hands completed in this match (Hearts: it sets the pass direction)."""
    winner: np.ndarray
    """(B,) int64: side that won the match, -1 while it goes on."""
    key: np.ndarray
    """(B,) uint64: the game's random key; deals are a function of (key, hand_number)."""
    history: np.ndarray
    """(B, T, N) int64: card each seat played to each completed trick of this hand, -1 later."""
    hand_start_scores: np.ndarray
    """(B, S) int64: scores before this hand (for records)."""
    points_taken: np.ndarray
    """(B, N) int64: points in the tricks each seat has taken this hand: the card points of the game's
    ``TrickTables.points`` (Hearts: hearts 1, Q of spades 13, jack of diamonds -10 under ``jack_of_diamonds``;
    before any moon) [RULES 7]; 0 in a game whose cards score none (Spades)."""

    #: The game whose state this is (a class made by ``engine.state_schema.state_class``; "" for the core's alone).
    game = ""  # (no annotation: a class attribute, not a field)

    def __getattr__(self, name: str):
        """Only for a name that is none of the state's fields: an AttributeError naming the game and its fields."""
        raise missing_field(self, name, N_CORE_FIELDS, "state")

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
        """(B,) bool: a seat of the game has bid nil (blind nil included) in the current hand: never in a game
        without bidding (a game that bids says otherwise in its ``state_fields.StateMixin``: Spades')."""
        return np.zeros(self.batch_size, bool)

    @property
    def batch_size(self) -> int:
        """Number of games B."""
        return len(self.phase)

    def copy(self) -> GameState:
        """A deep copy (every array copied)."""
        return type(self)(**{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)})

    def take(self, games: np.ndarray | list[int]) -> GameState:
        """A new state holding only the given games (copied)."""
        idx = np.asarray(games, dtype=np.int64)
        return type(self)(**{f.name: np.take(getattr(self, f.name), idx, axis=0) for f in dataclasses.fields(self)})

    @staticmethod
    def concat(states: Sequence[GameState]) -> GameState:
        """One state holding the games of ``states`` (all of one game) in order (copied)."""
        kind = type(states[0])
        if any(type(s) is not kind for s in states):
            raise ValueError(f"states must all be of one game, got {sorted({s.game for s in states})}")
        return kind(**{f.name: np.concatenate([getattr(s, f.name) for s in states]) for f in dataclasses.fields(kind)})

    def put(self, games: np.ndarray | list[int], other: GameState) -> None:
        """Overwrite the given games with the games of ``other`` (same order)."""
        idx = np.asarray(games, dtype=np.int64)
        for f in dataclasses.fields(self):
            getattr(self, f.name)[idx] = getattr(other, f.name)


#: The core's fields come first in every game's state.
N_CORE_FIELDS = len(dataclasses.fields(GameState))


def missing_field(arrays, name: str, n_core: int, noun: str) -> AttributeError:
    """The error of reading ``name``, none of the fields of ``arrays`` (a game's ``GameState`` or ``FinishedHands``,
    whose first ``n_core`` fields are the core's): it names the game and its own fields (a dunder name: plainly)."""
    if name.startswith("__"):
        return AttributeError(name)
    own = [f.name for f in dataclasses.fields(arrays)][n_core:]
    return AttributeError(f"a {arrays.game or 'core'} {noun} has no field {name!r} (its own fields: {own})")


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
