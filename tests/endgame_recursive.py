"""The endgame solver as it was before the iterative search: recursive, so compiled at each use (``cache=False``).

A verbatim copy of ``agents/endgame.py``'s search at commit f89a744 (``solve_positions`` renamed
``recursive_solve_positions``, the ``NO_CACHE`` comments reworded), kept as the reference the
iterative solver (``agents.endgame_search``) must equal. The tests do not import it (compiling its
recursion takes ~30 s a process): they compare with the values it gave on the positions of
``tests.endgame_pinned``, pinned in ``tests/golden/endgame_recursive_values.npz`` by
``python -m tests.endgame_recursive`` (``pin_values``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from agents.endgame import NO_VALUE, endgame_tables
from spades_env.core.trick_play import legal_cards
from spades_env.engine import SpadesEngine
from spades_env.engine.state import GameState
from spades_env.games.spades.hand_score import score_side
from spades_env.rules import resolve_rules
from tests.endgame_pinned import PINNED, PINNED_CASES, SOLVER_FIELDS, SPADES_PRESETS
from tests.endgame_positions import endgame_states


def recursive_solve_positions(
    engine: SpadesEngine, state: GameState, games: np.ndarray, hands: np.ndarray, adjust_bags: bool = True
) -> np.ndarray:
    """``agents.endgame.solve_positions`` by the recursive search."""
    tables = endgame_tables(engine, adjust_bags)
    games = np.ascontiguousarray(games, dtype=np.int64)
    hands = np.ascontiguousarray(hands, dtype=np.uint64)
    if hands.ndim != 2 or hands.shape != (len(games), engine.n_players):
        raise ValueError(f"hands must be (len(games), {engine.n_players}) uint64 masks, got shape {hands.shape}")
    out = np.full((len(games), engine.layout.n_card_ids), NO_VALUE)
    s = state
    solve_each(
        games, hands, s.trick, s.n_in_trick, s.led_suit, s.to_move, s.spades_broken, s.tricks_won, s.n_tricks,
        s.trick_winners, s.bids, s.blind, s.bags, s.bemo, tables.trick, tables.score, tables.bag_cost,
        tables.adjust_bags, out,
    )  # fmt: skip
    return out


@njit(cache=False)  # recursive: Numba 0.68 hangs loading it cached
def solve_each(
    games, hands, trick, n_in_trick, led_suit, to_move, broken, tricks_won, n_tricks, trick_winners,
    bids, blind, bags, bemo, k, t, cost, adjust, out,
):  # fmt: skip
    """``root_values`` of position r (game ``games[r]`` of the state arrays, hands ``hands[r]``)
    into row r of ``out`` (R, C)."""
    for r in range(len(games)):
        g = games[r]
        root_values(
            hands[r].copy(), trick[g].copy(), tricks_won[g : g + 1].copy(), trick_winners[g : g + 1].copy(),
            bids[g : g + 1], blind[g : g + 1], bags[g : g + 1], bemo[g : g + 1],
            np.int64(n_in_trick[g]), np.int64(led_suit[g]), np.int64(to_move[g]), bool(broken[g]),
            np.int64(n_tricks[g]), k, t, cost, adjust, out[r],
        )  # fmt: skip


@njit(cache=False)  # recursive: Numba 0.68 hangs loading it cached
def root_values(h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, k, t, cost, adjust, out):
    """Write the value of each legal card of ``mover`` into ``out`` (C,), for its side.

    ``h`` (N,) uint64 hands, ``tr`` (N,) the trick's cards by seat, ``tw`` (1, N) tricks won,
    ``wn`` (1, T) trick winners, ``bids`` .. ``bemo`` row 0 of the state's arrays; the scalars as
    in ``GameState`` (``led``: ``led_suit``). ``h``, ``tr``, ``tw``, ``wn`` are changed during the
    search and restored."""
    n, n_sides = len(h), t.n_sides
    side = mover % n_sides
    scratch = np.zeros((n * (t.hand_size - n_tr) + 2, n_sides))
    legal = legal_cards(h[mover], led, n_tr, k.preferred, k.first_trick_forbidden)
    live = _live_cards(h, tr, mover, n_in, n) & ~h[mover]
    prev, prev_value = -1, 0.0
    rest = legal
    while rest:
        c = np.int64(trailing_zeros(rest))
        rest &= rest - np.uint64(1)
        if prev >= 0 and _equivalent(prev, c, live, k):
            out[c] = prev_value
            prev = c
            continue
        if n_sides == 2:
            v = _play_minimax(c, h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr,
                              -np.inf, np.inf, k, t, cost, adjust)  # fmt: skip
            value = v if side == 0 else -v
        else:
            _play_maxn(c, h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, 1, scratch,
                       k, t, cost, adjust)  # fmt: skip
            value = _side_value(scratch[1], side)
        out[c] = value
        prev, prev_value = c, value


@njit(cache=True, inline="always")
def _live_cards(h, tr, mover, n_in, n):
    """Every card still in a hand or in the trick in progress (played by the ``n_in`` seats before ``mover``)."""
    live = np.uint64(0)
    for s in range(n):
        live |= h[s]
    for j in range(1, n_in + 1):
        live |= np.uint64(1) << np.uint64(tr[(mover - j) % n])
    return live


@njit(cache=True, inline="always")
def _equivalent(low, high, others, k):
    """Cards ``low`` < ``high`` of one hand are interchangeable: same suit, and no card of ``others``
    (live cards not in that hand) ranks between them (card ids run by rank within a suit, the
    jokers right above the spades)."""
    if k.suit_of[low] != k.suit_of[high]:
        return False
    between = ((np.uint64(1) << np.uint64(high)) - np.uint64(1)) & ~((np.uint64(2) << np.uint64(low)) - np.uint64(1))
    return (others & between) == np.uint64(0)


@njit(cache=True, inline="always")
def _side_value(adjusted, side):
    """A side's value: its score minus the others' mean."""
    total = adjusted.sum()
    return adjusted[side] - (total - adjusted[side]) / (len(adjusted) - 1)


@njit(cache=True, inline="always")
def _adjusted_score(side, tw, wn, bids, blind, bags, bemo, t, cost, adjust):
    """A side's score of the finished hand: bag-adjusted (``adjust``: points with penalties put back,
    minus ``cost`` per bag taken) or the hand's own points [RULES 3]."""
    points, _, _, added, penalties, _ = score_side(0, side, bids, blind, tw, bags, wn, bemo, t)
    if adjust:
        return points + penalties * t.bag_penalty - added * cost
    return float(points)


@njit(cache=True, inline="always")
def _trick_winner(tr, led, power, n):
    """The seat whose card of the complete trick ``tr`` has the most power in the led suit."""
    best = -(1 << 40)
    for s in range(n):
        best = max(best, power[led, tr[s]] * 8 + s)
    return best & 7


@njit(cache=True, inline="always")
def _apply(c, h, tr, tw, wn, n_in, led, mover, broken, n_tr, k):
    """``mover`` plays card ``c``: returns the card ``tr`` held for the seat before (for ``_undo``),
    the trick's winner (-1 while the trick goes on) and the next position's
    (``n_in``, ``led``, ``mover``, ``broken``, ``n_tr``), as ``trick_play.play_cards`` plays it."""
    n = len(h)
    suit = k.suit_of[c]
    old = tr[mover]
    h[mover] &= ~(np.uint64(1) << np.uint64(c))
    tr[mover] = c
    led_now = suit if n_in == 0 else led
    broken_now = broken or suit == k.broken_suit
    if n_in + 1 < n:
        return old, -1, n_in + 1, led_now, (mover + 1) % n, broken_now, n_tr
    winner = _trick_winner(tr, led_now, k.power, n)
    tw[0, winner] += 1
    wn[0, n_tr] = winner
    lead = k.lead_after[1] if broken_now else k.lead_after[0]
    return old, winner, 0, lead, winner, broken_now, n_tr + 1


@njit(cache=True, inline="always")
def _undo(c, old, winner, h, tr, tw, wn, mover, n_tr):
    """Take back ``_apply``'s card ``c`` of ``mover`` (``n_tr``: the tricks done before it)."""
    if winner >= 0:
        tw[0, winner] -= 1
        wn[0, n_tr] = -1
    tr[mover] = old
    h[mover] |= np.uint64(1) << np.uint64(c)


@njit(cache=False)  # recursive: Numba 0.68 hangs loading it cached
def _play_minimax(c, h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, alpha, beta,
                  k, t, cost, adjust):  # fmt: skip
    """``_minimax`` after ``mover`` plays card ``c`` (the position is restored before returning)."""
    old, winner, n_in2, led2, mover2, broken2, n_tr2 = _apply(c, h, tr, tw, wn, n_in, led, mover, broken, n_tr, k)
    v = _minimax(h, tr, tw, wn, bids, blind, bags, bemo, n_in2, led2, mover2, broken2, n_tr2, alpha, beta,
                 k, t, cost, adjust)  # fmt: skip
    _undo(c, old, winner, h, tr, tw, wn, mover, n_tr)
    return v


@njit(cache=False)  # recursive: Numba 0.68 hangs loading it cached
def _minimax(h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, alpha, beta, k, t, cost, adjust):
    """Side 0's value (its bag-adjusted score minus side 1's) under best play from this position, two
    sides, by alpha-beta in the window (``alpha``, ``beta``)."""
    if n_tr == t.hand_size:
        return _adjusted_score(0, tw, wn, bids, blind, bags, bemo, t, cost, adjust) - _adjusted_score(
            1, tw, wn, bids, blind, bags, bemo, t, cost, adjust
        )
    n = len(h)
    maximize = mover % 2 == 0
    best = -np.inf if maximize else np.inf
    legal = legal_cards(h[mover], led, n_tr, k.preferred, k.first_trick_forbidden)
    live = _live_cards(h, tr, mover, n_in, n) & ~h[mover]
    prev = -1
    rest = legal
    while rest:
        c = np.int64(trailing_zeros(rest))
        rest &= rest - np.uint64(1)
        if prev >= 0 and _equivalent(prev, c, live, k):
            prev = c
            continue
        prev = c
        old, winner, n_in2, led2, mover2, broken2, n_tr2 = _apply(c, h, tr, tw, wn, n_in, led, mover, broken, n_tr, k)
        v = _minimax(h, tr, tw, wn, bids, blind, bags, bemo, n_in2, led2, mover2, broken2, n_tr2, alpha, beta,
                     k, t, cost, adjust)  # fmt: skip
        _undo(c, old, winner, h, tr, tw, wn, mover, n_tr)
        if maximize:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


@njit(cache=False)  # recursive: Numba 0.68 hangs loading it cached
def _play_maxn(c, h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, depth, scratch,
               k, t, cost, adjust):  # fmt: skip
    """``_maxn`` into ``scratch[depth]`` after ``mover`` plays card ``c`` (the position is restored)."""
    old, winner, n_in2, led2, mover2, broken2, n_tr2 = _apply(c, h, tr, tw, wn, n_in, led, mover, broken, n_tr, k)
    _maxn(h, tr, tw, wn, bids, blind, bags, bemo, n_in2, led2, mover2, broken2, n_tr2, depth, scratch,
          k, t, cost, adjust)  # fmt: skip
    _undo(c, old, winner, h, tr, tw, wn, mover, n_tr)


@njit(cache=False)  # recursive: Numba 0.68 hangs loading it cached
def _maxn(h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, depth, scratch, k, t, cost, adjust):
    """Write into ``scratch[depth]`` every side's adjusted score under max^n play from this position:
    each seat plays the card that maximizes its side value, the lowest card id among equals."""
    n, n_sides = len(h), t.n_sides
    out = scratch[depth]
    if n_tr == t.hand_size:
        for s in range(n_sides):
            out[s] = _adjusted_score(s, tw, wn, bids, blind, bags, bemo, t, cost, adjust)
        return
    side = mover % n_sides
    best = -np.inf
    legal = legal_cards(h[mover], led, n_tr, k.preferred, k.first_trick_forbidden)
    live = _live_cards(h, tr, mover, n_in, n) & ~h[mover]
    prev = -1
    rest = legal
    child = scratch[depth + 1]
    while rest:
        c = np.int64(trailing_zeros(rest))
        rest &= rest - np.uint64(1)
        if prev >= 0 and _equivalent(prev, c, live, k):
            prev = c
            continue
        prev = c
        old, winner, n_in2, led2, mover2, broken2, n_tr2 = _apply(c, h, tr, tw, wn, n_in, led, mover, broken, n_tr, k)
        _maxn(h, tr, tw, wn, bids, blind, bags, bemo, n_in2, led2, mover2, broken2, n_tr2, depth + 1, scratch,
              k, t, cost, adjust)  # fmt: skip
        _undo(c, old, winner, h, tr, tw, wn, mover, n_tr)
        v = _side_value(child, side)
        if v > best:
            best = v
            out[:] = child


def pin_values(path: Path = PINNED) -> None:
    """Write, per preset, the ``SOLVER_FIELDS`` of its ``PINNED_CASES`` positions, their ``adjust_bags``
    and the recursive solver's values of them to ``path`` (.npz; keys ``preset/name``)."""
    arrays = {}
    for preset in SPADES_PRESETS:
        engine = SpadesEngine(resolve_rules(preset))
        parts = {name: [] for name in (*SOLVER_FIELDS, "adjust_bags", "values")}
        for _, tricks_left, count, seed, adjust_bags in (case for case in PINNED_CASES if case[0] == preset):
            state = endgame_states(engine, tricks_left, count, seed)
            for name in SOLVER_FIELDS:
                parts[name].append(getattr(state, name))
            parts["adjust_bags"].append(np.full(state.batch_size, adjust_bags))
            games = np.arange(state.batch_size)
            parts["values"].append(recursive_solve_positions(engine, state, games, state.hands, adjust_bags))
        arrays.update({f"{preset}/{name}": np.concatenate(part) for name, part in parts.items()})
    np.savez_compressed(path, **arrays)


if __name__ == "__main__":
    pin_values()
