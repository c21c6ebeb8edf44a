"""Expand rows of bits straight into float32 0/1 rows, for the batched observation encoders.

An encoder describes the 0/1 part of its flat row (the first ``row_bits`` entries) as
*sources*: uint64 values of at most 64 bits, each placed at a fixed bit position of the
row (a card mask at the start of its block, a one-hot as ``1 << value`` at the start of its
block, ...). ``BitRows.expand`` ORs the sources of every row into one bit stream, joins the
rows end to end as the flat (G * width)-bit stream of the whole (G, width) output, and turns
each byte of it into 8 float32 with one ``np.take`` from a 256 x 8 table: the output is
written once, in order, with no staging buffer. Entries ``row_bits..width`` of each row come
out 0 (the caller writes them afterwards).
"""

from __future__ import annotations

import numpy as np

U64 = np.uint64
#: Bytes expanded per ``np.take`` (their intp index, 256 KiB, stays in cache).
_INDEX_CHUNK = 1 << 15
#: ``BYTE_FLOATS[b]`` is the 8 bits of byte b (lowest first) as float32 0/1.
BYTE_FLOATS = ((np.arange(256)[:, None] >> np.arange(8)) & 1).astype(np.float32)


class _Tables:
    """Gather plan and buffers for one batch size."""

    def __init__(self, g: int, width: int, n_words: int) -> None:
        self.rows = np.zeros((n_words, g + 1), U64)  # word-major row streams, a zero row G last
        total = g * width
        n_glob = -(-total // 64)
        start = np.arange(n_glob, dtype=np.int64) * 64
        row = start // width
        off = start - row * width  # bit of row ``row`` where the global word starts
        word, shift = off // 64, off % 64
        self.first = word * (g + 1) + row
        self.second = self.first + (g + 1)
        self.down = shift.astype(U64)
        self.up = (64 - shift).astype(U64)  # 64: shifts the value out (numpy gives 0)
        # Words where a row ends and the next begins take the next row's first bits too.
        r = np.arange(1, g, dtype=np.int64)
        at = r * width
        r, at = r[at % 64 != 0], at[at % 64 != 0]
        self.cross_word = at // 64
        self.cross_row = r  # word 0 of row r in the flat word-major ``rows``
        self.cross_shift = (at % 64).astype(U64)
        self.glob = np.empty(n_glob, U64)
        self.n_bytes = total // 8
        self.tail = total - 8 * self.n_bytes
        self.index = np.empty(min(self.n_bytes, _INDEX_CHUNK), np.intp)
        self.tmp = np.empty(n_glob, U64)


class BitRows:
    """Places sources (uint64, at most 64 bits each) at fixed bit positions of float32 rows."""

    def __init__(self, positions: list[int], widths: list[int], row_bits: int, width: int) -> None:
        """Source ``i`` holds bits ``positions[i] .. positions[i] + widths[i]`` of the row.

        Positions must be non-decreasing; sources may not overlap; ``row_bits <= width``.
        """
        pos = np.asarray(positions, dtype=np.int64)
        wid = np.asarray(widths, dtype=np.int64)
        if len(pos) == 0 or (np.diff(pos) < 0).any() or (wid > 64).any() or (wid < 1).any():
            raise ValueError("sources need non-decreasing positions and widths 1..64")
        if (pos[1:] < pos[:-1] + wid[:-1]).any() or pos[-1] + wid[-1] > row_bits or row_bits > width or width < 64:
            raise ValueError("sources overlap or do not fit the row")
        self.n_sources = len(pos)
        self.row_bits, self.width = row_bits, width
        self.n_words = (width - 1) // 64 + 2  # every word a row's bits can reach, plus a zero one
        word = pos // 64
        self._lo_shift = (pos % 64).astype(U64)[:, None]
        # Sources grouped by the word they start in (contiguous, positions being sorted), and
        # the sources that spill into the next word, with the shift that brings the rest down.
        starts = np.flatnonzero(np.r_[True, word[1:] != word[:-1]])
        ends = np.r_[starts[1:], len(pos)]
        self._groups = [(int(word[a]), int(a), int(b)) for a, b in zip(starts, ends, strict=True)]
        self._unset = sorted(set(range(self.n_words)) - {w for w, _, _ in self._groups})
        cross = np.flatnonzero((pos % 64) + wid > 64)
        self._spills = [(int(i), int(word[i]) + 1, U64(64 - pos[i] % 64)) for i in cross]
        self._tables: dict[int, _Tables] = {}

    def tables(self, g: int) -> _Tables:
        t = self._tables.get(g)
        if t is None:
            if len(self._tables) >= 8:
                self._tables.clear()
            t = self._tables[g] = _Tables(g, self.width, self.n_words)
        return t

    def expand(self, sources: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Write rows made of ``sources`` (n_sources, G) uint64 into ``out`` (G, width) float32.

        ``out`` must be C-contiguous. Entries ``row_bits..width`` of each row are set to 0.
        """
        g = sources.shape[1]
        t = self.tables(g)
        rows = t.rows[:, :g]
        lo = sources << self._lo_shift
        for w, a, b in self._groups:
            if b - a == 1:
                rows[w] = lo[a]
            else:
                np.bitwise_or(lo[a], lo[a + 1], out=rows[w])
                for i in range(a + 2, b):
                    rows[w] |= lo[i]
        for w in self._unset:
            rows[w] = 0
        for i, w, shift in self._spills:
            rows[w] |= sources[i] >> shift
        # Join the rows end to end: global word J holds bits of one row and maybe the next.
        flat = t.rows.reshape(-1)
        glob, tmp = t.glob, t.tmp
        np.take(flat, t.first, out=glob)
        glob >>= t.down
        np.take(flat, t.second, out=tmp)
        tmp <<= t.up
        glob |= tmp
        if len(t.cross_word):
            glob[t.cross_word] |= np.take(flat, t.cross_row) << t.cross_shift
        # Byte b of the stream becomes floats 8b..8b+8, a chunk at a time (the index stays in cache).
        data = glob.view(np.uint8)
        flat_out = out.reshape(-1)
        index, step = t.index, len(t.index)
        for lo in range(0, t.n_bytes, step):
            hi = min(lo + step, t.n_bytes)
            part = index[: hi - lo]
            np.copyto(part, data[lo:hi])
            np.take(BYTE_FLOATS, part, axis=0, out=flat_out[8 * lo : 8 * hi].reshape(-1, 8), mode="wrap")
        if t.tail:
            flat_out[8 * t.n_bytes :] = BYTE_FLOATS[data[t.n_bytes], : t.tail]
        return out
