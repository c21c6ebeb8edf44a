"""What a ``step`` returns (``StepResult``, ``FinishedHands``) and the error of an illegal action."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from spades_env.engine.state import missing_field


class IllegalActionError(ValueError):
    """An action that is not legal for the player to move; names the legal ones."""


@dataclass
class FinishedHands:
    """What a record of each hand finished in a step needs (G finished games): the core's record arrays here, then
    the game's own (its ``state_fields.RESULT_FIELDS``: Spades' bids, bags, ...; Hearts' cards passed, ...) in the
    game's subclass (``engine.state_schema.finished_class``), which the engine's ``step`` returns."""

    games: np.ndarray
    """(G,) int64: batch indices of the games whose hand finished."""
    winner: np.ndarray
    """(G,) int64: side that won the match with this hand, -1 if the match goes on."""
    deal: np.ndarray
    """(G, N) uint64: the hands as dealt."""
    dealer: np.ndarray
    """(G,) int64: dealer of the finished hand."""
    history: np.ndarray
    """(G, T, N) int64: card each seat played to each trick."""
    tricks_won: np.ndarray
    """(G, N) int64: tricks taken per seat."""
    trick_winners: np.ndarray
    """(G, T) int64: winner of each trick."""
    start_scores: np.ndarray
    """(G, S) int64: scores before the hand."""
    hand_number: np.ndarray
    """(G,) int64: number of the finished hand in its match (0 = first; sets the Hearts pass)."""
    hand_key: np.ndarray
    """(G,) uint64: the hand's key, ``core.hashing.hand_key`` of the match key and ``hand_number``: it names
    the hand (whoever holds the match key can check it), and, unlike the match key, which deals every
    hand of the match, it gives away no other deal."""
    delta: np.ndarray
    """(G, S) int64: points scored in the hand."""
    scores: np.ndarray
    """(G, S) int64: scores after the hand."""

    #: The game whose hands these are (a class made by ``engine.state_schema.finished_class``).
    game = ""  # (no annotation: a class attribute, not a field)

    def __getattr__(self, name: str):
        """Only for a name that is none of the record's fields: an AttributeError naming the game and its fields."""
        raise missing_field(self, name, N_CORE_RESULT_FIELDS, "finished hand")

    def take(self, keep: np.ndarray) -> FinishedHands:
        """The hands ``keep`` selects (a bool mask or indices over G), copied."""
        return type(self)(**{f.name: getattr(self, f.name)[keep] for f in dataclasses.fields(self)})


N_CORE_RESULT_FIELDS = len(dataclasses.fields(FinishedHands))


class _NoEventArray:
    """A ``StepResult`` array kept in the slot ``slot``: made by ``make(result)`` (the no-event value) when
    first read and still None, else the array given or assigned."""

    def __init__(self, slot: str, make, doc: str) -> None:
        self.slot, self.make, self.__doc__ = slot, make, doc

    def __get__(self, result, owner=None):
        if result is None:
            return self
        value = getattr(result, self.slot)
        if value is None:
            value = self.make(result)
            setattr(result, self.slot, value)
        return value

    def __set__(self, result, value) -> None:
        setattr(result, self.slot, value)


class StepResult:
    """What one ``step`` did, per game.

    The per-game arrays are made when first read (or written): most steps end no hand, and
    then they are the zeros (and -1) of no event, which a caller that reads only ``finished``
    (empty) never pays for. Each result owns its arrays; reading one twice gives the same array.
    ``finished``: the details of the hands finished in this step (``FinishedHands``; empty most steps).
    """

    __slots__ = ("_b", "_n_sides", "_hand_done", "_match_done", "_score_delta", "_winner", "finished")

    def __init__(
        self,
        hand_done: np.ndarray | None = None,
        match_done: np.ndarray | None = None,
        score_delta: np.ndarray | None = None,
        finished: list[FinishedHands] | None = None,
        winner: np.ndarray | None = None,
        *,
        batch_size: int | None = None,
        n_sides: int | None = None,
    ) -> None:
        """The given arrays, or (None) the no-event ones for ``batch_size`` games of ``n_sides`` sides."""
        if batch_size is None:
            batch_size = len(hand_done if hand_done is not None else winner)
        if n_sides is None and score_delta is not None:
            n_sides = score_delta.shape[1]
        self._b, self._n_sides = batch_size, n_sides
        self._hand_done, self._match_done, self._score_delta, self._winner = hand_done, match_done, score_delta, winner
        self.finished: list[FinishedHands] = [] if finished is None else finished

    hand_done = _NoEventArray(
        "_hand_done", lambda r: np.zeros(r._b, bool), "(B,) bool: a hand was scored in this step."
    )
    match_done = _NoEventArray(
        "_match_done", lambda r: np.zeros(r._b, bool), "(B,) bool: the match ended in this step."
    )
    score_delta = _NoEventArray(
        "_score_delta",
        lambda r: np.zeros((r._b, r._n_sides), np.int64),
        "(B, S) int64: points each side scored in this step (non-zero only at hand ends).",
    )
    winner = _NoEventArray(
        "_winner",
        lambda r: np.full(r._b, -1, np.int64),
        "(B,) int64: the side that won a match ending in this step, else -1 (kept when ``auto_reset`` starts the "
        "next match at once).",
    )

    def __repr__(self) -> str:
        return (
            f"StepResult(hand_done={self.hand_done!r}, match_done={self.match_done!r}, "
            f"score_delta={self.score_delta!r}, finished={self.finished!r}, winner={self.winner!r})"
        )
