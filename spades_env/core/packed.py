"""A game state's arrays, and a rule set's parameters and card-play tables, each as ONE int64 array.

A Numba call costs about 0.1 µs per array argument (each is unboxed and reference-counted), so
at small batches passing the (Spades: 36) arrays of a ``GameState`` costs more than the step itself. The
engine passes instead:

- ``state_table(arrays, layout)``: a (5 + fields,) int64 table of the batch's dimensions (B, N seats, S sides,
  T tricks, P the two-player pile, 0 in a game without) and the data address of each array (the game's
  ``FIELDS`` order), which the game's ``unpack_state`` (its generated ``state_arrays.py``, with ``view_at``)
  turns back into a tuple of views of the same memory inside compiled code.
  Only arrays that are C-contiguous, aligned, writeable and of their field's dtype and shape
  (the game's ``LAYOUT``) are packed; the table is valid only while those very arrays are alive and
  are the state's fields (the engine keeps them with the table and compares them by identity
  before each use, ``engine.core``).
- ``pack_rules(p, tables)``: the game's int64 parameters ``p`` and its ``trick_play.TrickTables``
  in one array, which ``unpack_rules`` views back as ``(p, tables)`` of the same types.

The views made inside compiled code carry no reference count and have the types of the arrays
passed one by one, so the same compiled rules run on either and are compiled once. They are plain
tuples, which the games' loops bundle inside each loop (the game's ``state_arrays.borrow``): a bundle passed
from one compiled function to another made the large-batch step about 1.5x slower.
"""

from __future__ import annotations

import numpy as np
from numba import carray, literal_unroll, njit, types
from numba.extending import intrinsic

from spades_env.core import trick_play
from spades_env.core.state_arrays import borrowed

#: The table's header: B, N, S, T, P; the addresses follow in ``FIELDS`` order.
HEADER = 5
#: The symbolic sizes of the header after B, in order (``core.state_fields.DIMENSIONS``).
_SIZES = "NSTP"


def state_table(arrays: tuple[np.ndarray, ...], layout: tuple[tuple[type, str], ...]) -> np.ndarray | None:
    """The (HEADER + len(arrays),) int64 table of a state's arrays (a game's ``state_arrays(state)``), or None if
    one of them is not a C-contiguous, aligned, writeable array of its field's dtype and shape (those run through
    the arrays themselves); ``layout``: each field's dtype and dimensions after the batch (the game's ``LAYOUT``).
    A size no field has (P, the two-player pile, in every other game) is 0."""
    if len(arrays) != len(layout) or any(type(a) is not np.ndarray for a in arrays):
        return None
    b = len(arrays[0])
    dims = {}
    for a, (dtype, letters) in zip(arrays, layout, strict=True):
        flags = a.flags
        if not (flags.c_contiguous and flags.aligned and flags.writeable) or a.dtype != dtype:
            return None
        if a.ndim != 1 + len(letters) or a.shape[0] != b:
            return None
        for letter, size in zip(letters, a.shape[1:], strict=True):
            if dims.setdefault(letter, size) != size:
                return None
    table = np.empty(HEADER + len(arrays), np.int64)
    table[0] = b
    table[1:HEADER] = [dims.get(letter, 0) for letter in _SIZES]
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
def view_at(table, k, dtype, shape):
    """The array of field ``k`` of a ``state_table``: ``shape``, C order, no reference count (a game's
    ``unpack_state`` makes the state's views with it)."""
    return carray(_pointer(table[HEADER + k], dtype), shape)


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
