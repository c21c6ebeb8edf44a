"""The hand cycle of the engine: the empty state, new matches, and the hands that end in a ``step``.

``HandCycle`` is the part of ``SpadesEngine`` that runs between decisions. The empty state is
allocated from the fields' declarations (``engine.state_schema``). A new match's first
hand is dealt and set up to its first decision in one compiled call (the game's
``loops.begin_hands``: the seeded deal of ``core.deal``, or the deals and piles given to
``reset``). The hands that end in a ``step`` are scored, recorded, and followed by the next
hand (or the next match with ``auto_reset``) in one compiled call too (the game's
``loops.end_hands``, which runs its ``hand_score.finish_hand``); it writes the finished hands'
record into arrays allocated here for exactly those games, which become the ``FinishedHands``
fields as they are.
"""

from __future__ import annotations

import numpy as np

from spades_env.core.state_arrays import RECORD_FIELDS
from spades_env.engine.results import StepResult
from spades_env.engine.state import GameState
from spades_env.engine.state_schema import empty_state, result_fields

I64 = np.int64


class HandCycle:
    """Dealing, hand set-up and hand scoring of ``SpadesEngine`` (which sets the attributes used)."""

    def _new_matches(self, state: GameState, g: np.ndarray, keys, dealer, scores, hand_numbers, own) -> None:
        """The match fields of new matches in games ``g`` (their first hand is dealt after); ``own``: the game's
        own overrides, checked (``GameSpec.new_matches``: Spades' bags)."""
        state.key[g] = keys
        state.dealer[g] = dealer
        sides = self._cells(g, self.n_sides, state.batch_size)
        state.scores.reshape(-1)[sides] = scores
        state.hand_number[g] = hand_numbers
        state.winner[g] = -1
        self.spec.new_matches(state, g, sides, own)

    def state_sizes(self, b: int) -> dict[str, int]:
        """The symbolic sizes of the declared fields (``core.state_fields.DIMENSIONS``) for a batch of ``b``."""
        return {"B": b, "N": self.n_players, "S": self.n_sides, "T": self.hand_size, "P": self.pile_size}

    def _empty(self, b: int) -> GameState:
        """A state of ``b`` games, every field at its declared neutral value (``engine.state_schema``)."""
        return empty_state(self.rules.game, self.state_sizes(b))

    def _start_hand(self, state: GameState, g: np.ndarray, deals: np.ndarray | None = None, own=None) -> None:
        """Deal and set up the first hand of new matches in games ``g`` (dealer, scores and the game's own match
        fields set): the seeded deal, or the given ``deals`` (G, N) masks, or the first hands the game's own
        overrides ``own`` give (``GameSpec.start_deals``: two-player's pile); then what those replace of the deal
        (``GameSpec.started_hands``: Spades' face-up cards)."""
        if len(g) == 0:
            return
        own = own or {}
        given = self.spec.start_deals(state, g, own, self.n_players) if own else None
        deals = given if given is not None else deals
        seeded = deals is None
        seats = self._cells(g, self.n_players, state.batch_size)  # flat (game, seat) cells
        if not seeded:
            state.hands.reshape(-1)[seats] = deals
            state.deal.reshape(-1)[seats] = deals
        self._loops.begin_hands(g, seeded, self._rules, *self._state_arrays(state))
        if own:
            self.spec.started_hands(state, seats, own)

    def _cells(self, g: np.ndarray, width: int, b: int) -> np.ndarray:
        """(G, width) flat indices of rows ``g`` of a C-contiguous (b, width...) array.

        NumPy's fancy row indexing (``a[g] = v`` on a 2-D array) of narrow rows is several
        times slower than a flat scatter or ``a.take(g, axis=0)``; the hot paths use these
        instead. The indices are rows of a kept ``arange`` table (taking rows is cheaper
        than broadcasting ``g * width`` against ``arange(width)``).
        """
        table = self._cell_tables.get(width)
        if table is None or len(table) < b:
            table = self._cell_tables[width] = np.arange(b * width, dtype=I64).reshape(b, width)
            table.flags.writeable = False
        return table.take(g, axis=0)

    def _rows(self, b: int) -> np.ndarray:
        """``arange(b)``, kept for the last few batch sizes (callers' batches may vary freely)."""
        rows = self._base.get(b)
        if rows is None:
            if len(self._base) >= 8:
                self._base.clear()
            rows = self._base[b] = np.arange(b, dtype=I64)
            rows.flags.writeable = False
        return rows

    def _record_fields(self) -> tuple[tuple[str, tuple[int, ...], type], ...]:
        """What ``_record`` allocates: each array's name, dimensions after the G games and dtype, those the
        game's ``loops.end_hands`` fills (its ``RECORD``), as declared (``engine.state_schema.result_fields``)."""
        sizes = self.state_sizes(0)
        declared = result_fields(self.rules.game)  # the core's and the game's (``state_fields.RESULT_FIELDS``)
        filled = self._loops.RECORD
        if tuple(declared) != tuple(filled):
            game = self.rules.game
            raise ValueError(f"game {game!r} fills the record arrays {list(filled)}, declares {list(declared)}")
        return tuple((f.name, tuple(sizes[d] for d in f.dims[1:]), f.dtype) for f in declared.values())

    def _record(self, n: int) -> dict[str, np.ndarray]:
        """The arrays the game's ``loops.end_hands`` fills for ``n`` finished hands (its ``RECORD``)."""
        empty = np.empty
        return {name: empty((n, *dims), dtype) for name, dims, dtype in self._record_layout}

    def _finish_hands(
        self, state: GameState, g: np.ndarray, result: StepResult, auto_reset: bool, table: np.ndarray | None = None
    ) -> None:
        """Score the hands that ended in games ``g``, record them in ``result`` and start what follows
        (``table``: the state's ``core.packed.state_table``, if the step ran on it)."""
        record = self._record(len(g))
        loops = self._loops
        args = (g, auto_reset, self._hand_end_tables, self._params, self._unbroken_lead)
        # Those of every game (``RECORD_FIELDS``), then the game's own: two tuples.
        shared = tuple(record[name] for name in RECORD_FIELDS)
        filled = (shared, tuple(record[name] for name in loops.RECORD[len(RECORD_FIELDS) :]))
        if table is not None:
            loops.end_hands_packed(*args, filled, table)
        else:
            loops.end_hands(*args, filled, *self._state_arrays(state))
        winner, delta = record["winner"], record["delta"]
        if len(g) == len(state.phase):  # every game's hand ended (always at B = 1): g is 0 .. B - 1
            result.hand_done = np.ones(len(g), bool)
            result.score_delta = delta.copy()
            result.match_done = winner >= 0
            result.winner = winner.copy()
        else:
            result.hand_done[g] = True
            result.score_delta[g] = delta
            result.match_done[g] = winner >= 0
            result.winner[g] = winner
        result.finished.append(self._finished_class(games=g, **record))
