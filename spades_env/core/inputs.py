"""Checks of what callers hand the engine: seeds, actions, per-game and per-side integers, deals of cards.

Each check is a few whole-array tests (dtype kind, shape, min and max), so that it costs
next to nothing on the hot path; the per-element work (card names, nested lists) runs
only for the optional deal overrides of a reset (and a game's own, ``GameSpec.check_starts``). A refused input raises
``EngineInputError`` (a ``ValueError``; ``TypeError`` for the wrong kind of value, as
``EngineInputTypeError``), with a one-line message naming the argument and what is allowed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spades_env import cards
from spades_env.core.errors import EngineInputError, EngineInputTypeError

I64 = np.int64
#: Seeds are integers in 0 .. SEED_MAX (the 64-bit range of a game's key).
SEED_MAX = 2**64 - 1
_INTEGER_KINDS = "iu"


_KIND_NAMES = {"b": "bool", "f": "float", "c": "complex", "U": "string", "S": "bytes", "O": "object"}


def _kind(arr: np.ndarray) -> str:
    """The kind of an array's values, in words (``float``, ``string``, ...)."""
    return _KIND_NAMES.get(arr.dtype.kind, str(arr.dtype))


def _describe(arr: np.ndarray) -> str:
    """A short text of a refused value for a message."""
    if arr.ndim == 0:
        return repr(arr.item())
    text = np.array2string(arr.reshape(-1)[:6], separator=", ", threshold=6)
    return f"{text[:-1]}, ...]" if arr.size > 6 else text


def _integer_array(values: Any, name: str, allowed: str) -> np.ndarray:
    """``values`` as an ndarray of an integer dtype (bools, floats, strings and None refused)."""
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    if arr.dtype.kind in _INTEGER_KINDS:
        return arr
    if arr.dtype.kind == "O" and arr.size and all(isinstance(v, int) and not isinstance(v, bool) for v in arr.flat):
        return arr  # Python ints beyond 64 bits: the range check names them
    kind = _kind(arr)
    if arr.size == 0:
        raise EngineInputError(f"{name} must hold integers {allowed}, got an empty {type(values).__name__}")
    raise EngineInputTypeError(f"{name} must be integers {allowed}, got {kind} {_describe(arr)}")


def seed_array(seeds: Any) -> np.ndarray:
    """(B,) uint64 seeds from an int (one game) or a 1-D sequence of ints in 0 .. 2**64 - 1."""
    if seeds is None:
        raise EngineInputTypeError("seeds must be an integer in 0..2**64 - 1 or a list of them, got None")
    arr = _integer_array(seeds, "seeds", "in 0..2**64 - 1")
    if arr.ndim > 1:
        raise EngineInputError(f"seeds must be one integer or a 1-D sequence of them, got shape {arr.shape}")
    arr = arr.reshape(-1)
    if arr.size == 0:
        raise EngineInputError("seeds must hold at least one seed, got an empty sequence")
    if arr.dtype.kind == "O" or (arr.dtype.kind == "i" and arr.min() < 0):
        bad = [int(v) for v in arr.tolist() if not 0 <= int(v) <= SEED_MAX]
        if bad:
            raise EngineInputError(f"seeds must be integers in 0..2**64 - 1, got {bad[0]}")
    return arr.astype(np.uint64)


def action_array(actions: Any, b: int) -> np.ndarray:
    """(B,) int64 action ids: an integer array of shape (B,) (or one integer when B is 1)."""
    arr = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
    if arr.dtype.kind not in _INTEGER_KINDS:
        kind = _kind(arr)
        raise EngineInputTypeError(f"actions must be integer action ids, got {kind} {_describe(arr)}")
    if arr.shape != (b,):
        if arr.ndim == 0 and b == 1:
            arr = arr.reshape(1)
        else:
            raise EngineInputError(f"actions must have shape ({b},) (one action id per game), got shape {arr.shape}")
    return arr if arr.dtype == I64 else arr.astype(I64)


def per_game(values: Any, n: int, name: str, lo: int, hi: int | None = None) -> np.ndarray:
    """(n,) int64 from one integer (every game) or n integers, each in lo..hi."""
    arr = _integer_array(values, name, _bounds(lo, hi))
    if arr.ndim > 1 or (arr.ndim == 1 and len(arr) != n):
        raise EngineInputError(f"{name} must be one integer or {n} (one per game), got shape {arr.shape}")
    _check_range(arr, name, lo, hi)
    return np.broadcast_to(arr.astype(I64), (n,)).copy()


def per_side(values: Any, n: int, n_sides: int, name: str, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    """(n, n_sides) int64 from n_sides integers (every game) or (n, n_sides) of them, each in lo..hi."""
    arr = _integer_array(values, name, _bounds(lo, hi))
    if arr.shape == (n_sides,):
        arr = np.broadcast_to(arr, (n, n_sides))
    if arr.shape != (n, n_sides):
        raise EngineInputError(f"{name} must have shape ({n}, {n_sides}) (games, sides), got {arr.shape}")
    _check_range(arr, name, lo, hi)
    return arr.astype(I64)


_I64_MIN, _I64_MAX = int(np.iinfo(I64).min), int(np.iinfo(I64).max)


def _bounds(lo: int | None, hi: int | None) -> str:
    return f"in {'-inf' if lo is None else lo}..{'inf' if hi is None else hi}"


def _check_range(arr: np.ndarray, name: str, lo: int | None, hi: int | None) -> None:
    """Refuse any value outside lo..hi (or outside int64), naming the first."""
    if arr.size == 0:
        return
    low = _I64_MIN if lo is None else lo
    high = _I64_MAX if hi is None else hi
    if arr.dtype.kind == "O" or arr.min() < low or arr.max() > high:
        bad = next((int(v) for v in arr.reshape(-1).tolist() if not low <= v <= high), None)
        if bad is not None:
            raise EngineInputError(f"{name} must be integers {_bounds(lo, hi)}, got {bad}")


def card_id(value: Any, where: str) -> int:
    """A card id from an integer id or a card name (``"AS"``, ``"10h"``, ``"LJ"``)."""
    if isinstance(value, str):
        try:
            return cards.parse_card(value)
        except ValueError as err:
            raise EngineInputError(f"{where}: {err}") from None
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return int(value)
    raise EngineInputTypeError(
        f"{where}: a card is an integer id (0..{cards.N_CARD_IDS - 1}) or a name such as 'AS', got {value!r}"
    )


def deal_masks(deals: Any, n: int, n_players: int, deck: tuple[int, ...], name: str = "deals") -> np.ndarray:
    """(n, n_players) uint64 card masks from masks (any integer dtype) or nested card ids or names
    (``name``: the argument, in errors).

    Card ids must be cards of ``deck``; ``check_deal`` then checks that the masks are a deal of it.
    """
    if isinstance(deals, np.ndarray) and deals.dtype.kind in _INTEGER_KINDS and deals.ndim == 2:
        if deals.dtype.kind == "i" and deals.size and deals.min() < 0:
            raise EngineInputError(f"{name} given as an integer array are card masks and must be non-negative")
        masks = deals.astype(np.uint64)
    else:
        if isinstance(deals, np.ndarray) and deals.dtype.kind not in _INTEGER_KINDS + "OU":
            raise EngineInputTypeError(
                f"{name} must be card masks (an integer array of shape ({n}, {n_players})) or lists of card "
                f"ids or names, got {_kind(deals)} values"
            )
        try:
            games = list(deals)
            sizes = [len(game) for game in games]
        except TypeError:
            raise EngineInputTypeError(
                f"{name} must be {n} game(s) of {n_players} hands (lists of card ids or names), "
                f"got {type(deals).__name__}"
            ) from None
        if len(games) != n or any(s != n_players for s in sizes):
            raise EngineInputError(
                f"{name} must hold {n} game(s) of {n_players} hands each, got {sizes} hands per game"
            )
        masks = np.zeros((n, n_players), np.uint64)
        in_deck = set(deck)
        for i, game in enumerate(games):
            for seat, hand in enumerate(game):
                where = f"{name}[{i}][{seat}]"
                if isinstance(hand, str):
                    raise EngineInputTypeError(f"{where} must be a list of cards, got the string {hand!r}")
                if not hasattr(hand, "__iter__"):
                    raise EngineInputTypeError(
                        f"{where} must be a list of cards (card ids or names), got {type(hand).__name__} {hand!r}; "
                        "give card masks as a (games, seats) uint64 array"
                    )
                ids = [card_id(c, where) for c in hand]
                bad = [c for c in ids if c not in in_deck]
                if bad:
                    raise EngineInputError(
                        f"{name}[{i}][{seat}] holds card id(s) {bad} that are not in the deck "
                        f"of these rules ({len(deck)} cards)"
                    )
                masks[i, seat] = cards.cards_to_mask(ids)
    if masks.shape != (n, n_players):
        raise EngineInputError(f"{name} must have shape ({n}, {n_players}) (games, seats), got {masks.shape}")
    return masks


def check_deal(masks: np.ndarray, deck: tuple[int, ...], hand_size: int) -> None:
    """Refuse masks that are not a deal of ``deck``: every hand ``hand_size`` distinct cards of it."""
    from spades_env.core import bits

    deck_mask = np.uint64(cards.cards_to_mask(deck))
    counts = bits.popcount(masks)
    union = np.bitwise_or.reduce(masks, axis=1)
    bad = np.flatnonzero(np.any(counts != hand_size, axis=1) | (union != deck_mask) | (counts.sum(axis=1) != len(deck)))
    if len(bad):
        g = int(bad[0])
        raise EngineInputError(
            f"deal for game {g} is not a legal deal: each of the {masks.shape[1]} hands needs "
            f"{hand_size} distinct cards of the deck, got sizes {counts[g].tolist()} "
            f"({int(bits.popcount(union[g : g + 1])[0])} distinct cards of {len(deck)})"
        )


def integer(value: Any, name: str) -> int:
    """One integer (a Python or NumPy int, not a bool, float or string) as a Python int."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise EngineInputTypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    return int(value)
