"""A game state's arrays, and a rule set's parameters and card-play tables, each as ONE int64 array.

A Numba call costs about 0.1 µs per array argument (each is unboxed and reference-counted), so
at small batches passing the 38 arrays of a ``GameState`` costs more than the step itself. The
engine passes instead:

- ``state_table(arrays)``: a (5 + 38,) int64 table of the batch's dimensions (B, N seats, S sides,
  T tricks, P the two-player pile) and the data address of each array (``FIELDS`` order), which
  ``unpack_state`` turns back into a tuple of views of the same memory inside compiled code.
  Only arrays that are C-contiguous, aligned, writeable and of their field's dtype and shape
  (``FIELD_LAYOUT``) are packed; the table is valid only while those very arrays are alive and
  are the state's fields (the engine keeps them with the table and compares them by identity
  before each use, ``engine.core``).
- ``pack_rules(p, tables)``: the game's int64 parameters ``p`` and its ``trick_play.TrickTables``
  in one array, which ``unpack_rules`` views back as ``(p, tables)`` of the same types.

The views made inside compiled code carry no reference count and have the types of the arrays
passed one by one, so the same compiled rules run on either and are compiled once. They are plain
tuples, which the games' loops bundle inside each loop (``state_arrays.borrow``): a bundle passed
from one compiled function to another made the large-batch step about 1.5x slower.
"""

from __future__ import annotations

import numpy as np
from numba import carray, literal_unroll, njit, types
from numba.extending import intrinsic

from spades_env.core import trick_play
from spades_env.core.state_arrays import FIELDS, N_FIELDS, borrowed

_U, _I, _B = np.dtype(np.uint64), np.dtype(np.int64), np.dtype(np.bool_)
#: Each ``GameState`` field's dtype and its dimensions after the batch (N seats, S sides, T tricks,
#: P the two-player pile), in ``FIELDS`` order: what ``unpack_state`` reads back (tested).
FIELD_LAYOUT = {
    "hands": (_U, "N"), "deal": (_U, "N"), "phase": (_I, ""), "to_move": (_I, ""), "dealer": (_I, ""),
    "leader": (_I, ""), "trick": (_I, "N"), "n_in_trick": (_I, ""), "led_suit": (_I, ""), "n_tricks": (_I, ""),
    "tricks_won": (_I, "N"), "trick_winners": (_I, "T"), "bids": (_I, "N"), "blind": (_B, "N"),
    "looked": (_B, "N"), "n_bids": (_I, ""), "spades_broken": (_B, ""), "voids": (_I, ""), "scores": (_I, "S"),
    "bags": (_I, "S"), "hand_number": (_I, ""), "winner": (_I, ""), "key": (_U, ""), "history": (_I, "TN"),
    "hand_start_scores": (_I, "S"), "hand_start_bags": (_I, "S"), "face_up": (_U, "N"), "bemo": (_I, "S"),
    "n_redeals": (_I, ""), "pile": (_I, "P"), "pile_pos": (_I, ""), "shown": (_I, ""), "discards": (_U, "N"),
    "seen": (_U, "N"), "exchanged_out": (_U, "N"), "exchanged_in": (_U, "N"), "passed": (_U, "N"),
    "points_taken": (_I, "N"),
}  # fmt: skip
#: The table's header: B, N, S, T, P; the addresses follow in ``FIELDS`` order.
HEADER = 5
_LAYOUT = tuple(FIELD_LAYOUT[name] for name in FIELDS)


def state_table(arrays: tuple[np.ndarray, ...]) -> np.ndarray | None:
    """The (HEADER + N_FIELDS,) int64 table of a state's arrays (``state_arrays(state)``), or None
    if one of them is not a C-contiguous, aligned, writeable array of its field's dtype and shape
    (those run through the arrays themselves)."""
    if len(arrays) != N_FIELDS or any(type(a) is not np.ndarray for a in arrays):
        return None
    by_name = dict(zip(FIELDS, arrays, strict=True))
    sized = by_name["phase"], by_name["hands"], by_name["scores"], by_name["trick_winners"], by_name["pile"]
    if tuple(a.ndim for a in sized) != (1, 2, 2, 2, 2):
        return None
    b = len(by_name["phase"])
    dims = {"N": sized[1].shape[1], "S": sized[2].shape[1], "T": sized[3].shape[1], "P": sized[4].shape[1]}
    for a, (dtype, letters) in zip(arrays, _LAYOUT, strict=True):
        flags = a.flags
        if not (flags.c_contiguous and flags.aligned and flags.writeable) or a.dtype != dtype:
            return None
        if a.shape != (b, *(dims[x] for x in letters)):
            return None
    table = np.empty(HEADER + N_FIELDS, np.int64)
    table[:HEADER] = b, dims["N"], dims["S"], dims["T"], dims["P"]
    _addresses(table[HEADER:], *arrays)
    return table


@njit(cache=True)
def _addresses(out, *arrays):
    """``out[k]``: the data address of ``arrays[k]``."""
    k = 0
    for a in literal_unroll(arrays):
        out[k] = a.ctypes.data
        k += 1


@intrinsic
def _pointer(typingctx, address, dtype):
    """The int64 ``address`` as a pointer to ``dtype`` (a NumPy scalar type) values."""
    pointer = types.CPointer(dtype.instance_type)

    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(pointer))

    return pointer(address, dtype), codegen


@njit(cache=True, inline="always")
def _at(table, k, dtype, shape):
    """The array of field ``k`` of a ``state_table``: ``shape``, C order, no reference count."""
    return carray(_pointer(table[HEADER + k], dtype), shape)


@njit(cache=True)
def unpack_state(table):
    """The state arrays a ``state_table`` describes, as a plain tuple in ``FIELDS`` order (views of
    the state's own memory, of the types the arrays passed one by one have, so that the same
    compiled rules take either; valid while the call that made them runs)."""
    b, n, s, t, p = table[0], table[1], table[2], table[3], table[4]
    u, i, f = np.uint64, np.int64, np.bool_
    return (
        _at(table, 0, u, (b, n)),  # hands
        _at(table, 1, u, (b, n)),  # deal
        _at(table, 2, i, (b,)),  # phase
        _at(table, 3, i, (b,)),  # to_move
        _at(table, 4, i, (b,)),  # dealer
        _at(table, 5, i, (b,)),  # leader
        _at(table, 6, i, (b, n)),  # trick
        _at(table, 7, i, (b,)),  # n_in_trick
        _at(table, 8, i, (b,)),  # led_suit
        _at(table, 9, i, (b,)),  # n_tricks
        _at(table, 10, i, (b, n)),  # tricks_won
        _at(table, 11, i, (b, t)),  # trick_winners
        _at(table, 12, i, (b, n)),  # bids
        _at(table, 13, f, (b, n)),  # blind
        _at(table, 14, f, (b, n)),  # looked
        _at(table, 15, i, (b,)),  # n_bids
        _at(table, 16, f, (b,)),  # spades_broken
        _at(table, 17, i, (b,)),  # voids
        _at(table, 18, i, (b, s)),  # scores
        _at(table, 19, i, (b, s)),  # bags
        _at(table, 20, i, (b,)),  # hand_number
        _at(table, 21, i, (b,)),  # winner
        _at(table, 22, u, (b,)),  # key
        _at(table, 23, i, (b, t, n)),  # history
        _at(table, 24, i, (b, s)),  # hand_start_scores
        _at(table, 25, i, (b, s)),  # hand_start_bags
        _at(table, 26, u, (b, n)),  # face_up
        _at(table, 27, i, (b, s)),  # bemo
        _at(table, 28, i, (b,)),  # n_redeals
        _at(table, 29, i, (b, p)),  # pile
        _at(table, 30, i, (b,)),  # pile_pos
        _at(table, 31, i, (b,)),  # shown
        _at(table, 32, u, (b, n)),  # discards
        _at(table, 33, u, (b, n)),  # seen
        _at(table, 34, u, (b, n)),  # exchanged_out
        _at(table, 35, u, (b, n)),  # exchanged_in
        _at(table, 36, u, (b, n)),  # passed
        _at(table, 37, i, (b, n)),  # points_taken
    )


def pack_rules(p: np.ndarray, tables: trick_play.TrickTables) -> np.ndarray:
    """The int64 parameters ``p`` and the card-play ``tables`` in one int64 array (``unpack_rules``):
    a header of the lengths (p, card ids, the power table's rows and columns, preferred, points),
    then p, card_bit, suit_of, power, preferred, first_trick_forbidden, points, broken_suit and
    lead_after (the uint64 entries bit for bit)."""
    t = tables
    rows, cols = t.power.shape
    header = [len(p), len(t.card_bit), rows, cols, len(t.preferred), len(t.points)]
    parts = [
        np.asarray(header, np.int64),
        np.asarray(p, np.int64),
        t.card_bit.view(np.int64),
        t.suit_of,
        t.power.reshape(-1),
        t.preferred.view(np.int64),
        np.array([t.first_trick_forbidden], np.uint64).view(np.int64),
        t.points,
        np.array([t.broken_suit], np.int64),
        t.lead_after,
    ]
    return np.ascontiguousarray(np.concatenate([np.asarray(x, np.int64) for x in parts]))


@njit(cache=True)
def unpack_rules(rules):
    """``(p, tables)`` of a ``pack_rules`` array, ``tables`` the ``TrickTables`` fields as a plain
    tuple: views without a reference count, of the types the separate arrays have (valid while
    the call that made them runs)."""
    r = borrowed(rules)
    n_p, c, rows, cols, n_preferred, n_points = r[0], r[1], r[2], r[3], r[4], r[5]
    o = 6
    p = r[o : o + n_p]
    o += n_p
    card_bit = r[o : o + c].view(np.uint64)
    o += c
    suit_of = r[o : o + c]
    o += c
    power = r[o : o + rows * cols].reshape((rows, cols))
    o += rows * cols
    preferred = r[o : o + n_preferred].view(np.uint64)
    o += n_preferred
    forbidden = np.uint64(r[o])
    points = r[o + 1 : o + 1 + n_points]
    o += 1 + n_points
    return p, (card_bit, suit_of, power, preferred, forbidden, points, r[o], r[o + 1 : o + 3])
