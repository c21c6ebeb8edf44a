"""Observation layouts and their compiled writers, shared by the games' encoders.

A game's encoder (``games/<game>/observation.py``) lays its flat float32 row out as named
blocks (``ObservationLayout``: shapes, slices, bounds, ``view``, ``describe``, and ``encode``,
which checks the arguments and hands them to the game's compiled kernel). The kernels write
every entry of each row once, straight from the state's bitmasks, with the compiled writers of
``spades_env.core.encode_bits``, for a batch of (game, seat) pairs and for one game alike.

Conventions both games follow: the observer is relative seat 0 and relative seat ``j`` sits
``j`` places to its left (clockwise); relative side ``j`` is the side of relative seat ``j``
(``j < S``); scores are divided by the target score and clipped to ``SCORE_CLIP``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from spades_env.core.errors import EngineInputError, EngineInputTypeError

if TYPE_CHECKING:
    from spades_env.engine.core import SpadesEngine
    from spades_env.engine.state import GameState

#: Scores are divided by the target score and clipped to this magnitude.
SCORE_CLIP = 4.0


def lay_out(blocks: list[tuple[str, tuple[int, ...]]]) -> tuple[dict[str, tuple[int, ...]], dict[str, slice], int]:
    """Shapes, consecutive slices and total size of a flat vector made of named blocks."""
    shapes: dict[str, tuple[int, ...]] = dict(blocks)
    slices: dict[str, slice] = {}
    at = 0
    for name, shape in blocks:
        size = int(np.prod(shape))
        slices[name] = slice(at, at + size)
        at += size
    return shapes, slices, at


class ObservationLayout:
    """A game's flat observation row: named blocks, their bounds, and the batched ``encode``.

    A game's encoder sets ``VERSION``, calls ``__init__`` with its blocks and implements
    ``_write(state, games, seats, out)``: its compiled kernel over the rows, returning -1, or
    the first row whose game or seat is outside the state. The 0/1 blocks come first and the
    real-valued blocks (from ``first_real`` on) last: the kernels gather the 0/1 entries as a
    bit stream and expand it into the row in one go (``encode_bits``).
    """

    VERSION = 0
    PHASES: tuple[int, ...] = ()
    """The engine phases of the ``phase`` block, in its order (one entry each, 1 in that phase)."""

    def __init__(self, engine: SpadesEngine, perfect_information: bool, blocks: list[tuple[str, tuple[int, ...]]]):
        self.engine = engine
        self.rules = engine.rules
        self.perfect_information = bool(perfect_information)
        self.n_players, self.n_sides = engine.n_players, engine.n_sides
        self.n_cards = engine.layout.n_card_ids
        self.shapes, self.slices, self.size = lay_out(blocks)
        # Bounds of every entry, for observation spaces (the games widen the real-valued ones).
        self.low = np.zeros(self.size, np.float32)
        self.high = np.ones(self.size, np.float32)
        self.low[self.slices["score"]] = -SCORE_CLIP
        self.high[self.slices["score"]] = SCORE_CLIP
        self.high[self.slices["target"]] = max(1.0, self.rules.target_score / 1000)
        self._side_of_seat = np.ascontiguousarray(engine.side_of_seat, dtype=np.int64)

    def bit_count(self, first_real: str) -> int:
        """The entries before block ``first_real``: the row's 0/1 part, which ``encode_bits.expand``
        writes (every block from ``first_real`` on is real-valued, and the encoder writes it)."""
        return self.slices[first_real].start

    @property
    def binary_size(self) -> int:
        """The entries at the row's start that are always 0 or 1 (``bit_count`` of the game's first real block)."""
        return self._bits

    def phase_column(self, phase: int) -> int:
        """The entry of the row that is 1 when the game is in ``phase`` (an engine phase code of ``PHASES``)."""
        if phase not in self.PHASES:
            raise ValueError(f"phase must be one of this layout's phases {list(self.PHASES)}, got {phase!r}")
        return self.slices["phase"].start + self.PHASES.index(phase)

    def offsets(self, names: tuple[str, ...]) -> np.ndarray:
        """(len(names),) int64: where each block starts in the row, -1 for a block this layout lacks."""
        return np.array([self.slices[n].start if n in self.slices else -1 for n in names], np.int64)

    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The block ``name`` of observations (..., size), reshaped to (..., *shape)."""
        return obs[..., self.slices[name]].reshape(obs.shape[:-1] + self.shapes[name])

    def describe(self) -> str:
        """The layout as text: one line per block (name, offset, shape)."""
        rows = (f"{name:14s} [{s.start:4d}:{s.stop:4d}) {self.shapes[name]}" for name, s in self.slices.items())
        return "\n".join(rows)

    def encode(
        self,
        state: GameState,
        games: np.ndarray,
        seats: np.ndarray,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """Observations of ``seats`` (G,) in ``games`` (G,) of ``state``: (G, size) float32.

        Any seat of any game, in any order, repeats too. ``out`` (G, size) float32, if given,
        is filled and returned (every entry is written).
        """
        games, seats = _index_array(games, "games"), _index_array(seats, "seats")
        if seats.shape != games.shape:
            raise EngineInputError(f"games and seats must have the same length, got {len(games)} and {len(seats)}")
        g = len(games)
        if out is None:
            out = np.empty((g, self.size), np.float32)
        elif not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (g, self.size):
            raise EngineInputTypeError(
                f"out must be a ({g}, {self.size}) float32 array, got {getattr(out, 'dtype', type(out).__name__)} "
                f"of shape {getattr(out, 'shape', None)}"
            )
        target = out if out.flags.c_contiguous else np.empty((g, self.size), np.float32)
        bad = self._write(state, games, seats, target)
        if bad >= 0:
            raise EngineInputError(
                f"games and seats: row {bad} asks for seat {seats[bad]} of game {games[bad]}; the state holds "
                f"games 0..{state.batch_size - 1} and seats 0..{self.n_players - 1}"
            )
        if target is not out:
            out[:] = target
        return out

    def _write(self, state: GameState, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> int:
        raise NotImplementedError


def _index_array(value, name: str) -> np.ndarray:
    """``value`` as a contiguous 1-d int64 array (as the kernels take it, with no copy when it is one)."""
    if type(value) is np.ndarray and value.dtype == np.int64 and value.ndim == 1 and value.flags.c_contiguous:
        return value
    a = np.asarray(value)
    if a.ndim != 1 or not (a.dtype.kind in "iu" or (a.size == 0 and a.dtype.kind == "f")):
        raise EngineInputTypeError(f"{name} must be a 1-d array of integers, got {a.dtype} of shape {a.shape}")
    return np.ascontiguousarray(a, dtype=np.int64)
