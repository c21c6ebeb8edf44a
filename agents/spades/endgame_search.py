"""The endgame solver's search, compiled and iterative: alpha-beta (two sides) and max^n (more sides).

``agents.spades.endgame`` values each legal card at the root with these; see its docstring for what is
valued [RULES 3, 5, 6]. Both searches walk the game tree depth first with an explicit stack of
frames (``SearchStack``), one frame per position on the current line of play, instead of
recursion: Numba can cache iterative functions, while a cached self-recursive one hangs when
loaded (Numba 0.68), so recursion meant compiling the solver again in every process.

A frame holds its position's scalars (``n_in``, ``led``, ``mover``, ``broken``, ``n_tr``), the
cards still to try (``rest``), the live cards of the other hands (``live``, for ``equivalent``),
the last card tried (``prev``) and the card in play below it with what ``undo_card`` needs; the
hands, the trick and the tricks won are one shared position changed and restored in place. The
first frame is the position given, with only the cards given to try (the solver's root: one card,
searched from the full window), so the hand's end is scored in one place per search.
Cards are tried lowest id first and a card equivalent to the one before it is skipped, so the
search (and max^n's tie rule, the lowest card id among equal side values) is that of the
recursive solver it replaces (``tests/endgame_pinned.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from spades_env.core.trick_play import legal_cards
from spades_env.games.spades.hand_score import score_side

# Columns of ``SearchStack.frames``.
N_IN, LED, MOVER, BROKEN, N_TR, PREV, CARD, OLD, WINNER = range(9)
N_FRAME_FIELDS = 9


class SearchStack(NamedTuple):
    """Preallocated frames for a search along lines of at most ``depth`` positions with a card to play."""

    frames: np.ndarray
    """(depth, 9) int64: each frame's position scalars, last card tried, and the card in play with its undo data."""
    masks: np.ndarray
    """(depth, 2) uint64: each frame's cards still to try and the live cards of the other hands."""
    bounds: np.ndarray
    """(depth, 3) float64: each frame's best value so far and its alpha-beta window (two sides)."""
    scores: np.ndarray
    """(depth + 1, n_sides) float64: max^n, each frame's best line's adjusted scores (row d + 1: its child's)."""


@njit(cache=True)
def search_stack(n_players, tricks_left, n_sides):
    """A ``SearchStack`` deep enough for ``tricks_left`` tricks of ``n_players``: a frame per card left, and one."""
    depth = n_players * tricks_left + 1
    return SearchStack(
        np.zeros((depth, N_FRAME_FIELDS), np.int64),
        np.zeros((depth, 2), np.uint64),
        np.zeros((depth, 3)),
        np.zeros((depth + 1, n_sides)),
    )


@njit(cache=True, inline="always")
def live_cards(h, tr, mover, n_in, n):
    """Every card still in a hand or in the trick in progress (played by the ``n_in`` seats before ``mover``)."""
    live = np.uint64(0)
    for s in range(n):
        live |= h[s]
    for j in range(1, n_in + 1):
        live |= np.uint64(1) << np.uint64(tr[(mover - j) % n])
    return live


@njit(cache=True, inline="always")
def equivalent(low, high, others, k):
    """Cards ``low`` < ``high`` of one hand are interchangeable: same suit, and no card of ``others``
    (live cards not in that hand) ranks between them (card ids run by rank within a suit, the
    jokers right above the spades)."""
    if k.suit_of[low] != k.suit_of[high]:
        return False
    between = ((np.uint64(1) << np.uint64(high)) - np.uint64(1)) & ~((np.uint64(2) << np.uint64(low)) - np.uint64(1))
    return (others & between) == np.uint64(0)


@njit(cache=True, inline="always")
def side_value(adjusted, side):
    """A side's value: its score minus the others' mean."""
    total = adjusted.sum()
    return adjusted[side] - (total - adjusted[side]) / (len(adjusted) - 1)


@njit(cache=True, inline="always")
def adjusted_score(side, tw, wn, bids, blind, bags, bemo, t, cost, adjust):
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
def apply_card(c, h, tr, tw, wn, n_in, led, mover, broken, n_tr, k):
    """``mover`` plays card ``c``: returns the card ``tr`` held for the seat before (for ``undo_card``),
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
def undo_card(c, old, winner, h, tr, tw, wn, mover, n_tr):
    """Take back ``apply_card``'s card ``c`` of ``mover`` (``n_tr``: the tricks done before it)."""
    if winner >= 0:
        tw[0, winner] -= 1
        wn[0, n_tr] = -1
    tr[mover] = old
    h[mover] |= np.uint64(1) << np.uint64(c)


@njit(cache=True, inline="always")
def _next_card(rest, prev, live, k):
    """The next card of ``rest`` to search (lowest id first, skipping one equivalent to the card
    before it), or -1: returns (card, ``rest`` without the cards passed, the new ``prev``)."""
    while rest:
        c = np.int64(trailing_zeros(rest))
        rest &= rest - np.uint64(1)
        if prev >= 0 and equivalent(prev, c, live, k):
            prev = c
            continue
        return c, rest, c
    return np.int64(-1), rest, prev


@njit(cache=True, inline="always")
def _push(f, m, d, n_in, led, mover, broken, n_tr, prev, c, old, winner, rest, live):
    """Save frame ``d`` before descending into card ``c``: its position, last card tried, ``c`` with its
    undo data (``apply_card``'s ``old``, ``winner``), its cards still to try and the live cards."""
    fd = f[d]
    fd[N_IN], fd[LED], fd[MOVER], fd[BROKEN], fd[N_TR] = n_in, led, mover, broken, n_tr
    fd[PREV], fd[CARD], fd[OLD], fd[WINNER] = prev, c, old, winner
    m[d, 0], m[d, 1] = rest, live


@njit(cache=True, inline="always")
def _pop(f, m, d, h, tr, tw, wn):
    """Return to frame ``d`` (its card taken back): (``n_in``, ``led``, ``mover``, ``broken``, ``n_tr``,
    ``prev``, cards still to try, live cards)."""
    fd = f[d]
    n_in, led, mover, broken, n_tr = fd[N_IN], fd[LED], fd[MOVER], fd[BROKEN] != 0, fd[N_TR]
    undo_card(fd[CARD], fd[OLD], fd[WINNER], h, tr, tw, wn, mover, n_tr)
    return n_in, led, mover, broken, n_tr, fd[PREV], m[d, 0], m[d, 1]


@njit(cache=True)
def minimax(h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, cards, k, t, cost, adjust, stack):
    """Side 0's value (its bag-adjusted score minus side 1's) when ``mover`` plays the best of ``cards``
    (uint64, legal cards of its hand) and best play follows, two sides, by alpha-beta from the full
    window: each child is searched in its parent's current window, a cut once ``alpha >= beta``."""
    n, f, m, b = len(h), stack.frames, stack.masks, stack.bounds
    d = 0
    rest = cards
    live = live_cards(h, tr, mover, n_in, n) & ~h[mover]
    prev = np.int64(-1)
    best = -np.inf if mover % 2 == 0 else np.inf
    alpha, beta = -np.inf, np.inf
    while True:
        c, rest, prev = _next_card(rest, prev, live, k)
        if c >= 0:
            old, winner, n_in2, led2, mover2, broken2, n_tr2 = apply_card(
                c, h, tr, tw, wn, n_in, led, mover, broken, n_tr, k
            )
            if n_tr2 == t.hand_size:
                v = adjusted_score(0, tw, wn, bids, blind, bags, bemo, t, cost, adjust) - adjusted_score(
                    1, tw, wn, bids, blind, bags, bemo, t, cost, adjust
                )
                undo_card(c, old, winner, h, tr, tw, wn, mover, n_tr)
            else:  # descend: this frame waits for the child's value
                _push(f, m, d, n_in, led, mover, broken, n_tr, prev, c, old, winner, rest, live)
                b[d, 0], b[d, 1], b[d, 2] = best, alpha, beta
                d += 1
                n_in, led, mover, broken, n_tr = n_in2, led2, mover2, broken2, n_tr2
                rest = legal_cards(h[mover], led, n_tr, k.preferred, k.first_trick_forbidden)
                live = live_cards(h, tr, mover, n_in, n) & ~h[mover]
                prev = np.int64(-1)
                best = -np.inf if mover % 2 == 0 else np.inf
                continue
        else:  # every card tried: the frame's value goes to its parent
            if d == 0:
                return best
            v = best
            d -= 1
            n_in, led, mover, broken, n_tr, prev, rest, live = _pop(f, m, d, h, tr, tw, wn)
            best, alpha, beta = b[d, 0], b[d, 1], b[d, 2]
        if mover % 2 == 0:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            rest = np.uint64(0)


@njit(cache=True)
def maxn(h, tr, tw, wn, bids, blind, bags, bemo, n_in, led, mover, broken, n_tr, cards, k, t, cost, adjust, stack):
    """Write into ``stack.scores[0]`` every side's adjusted score when ``mover`` plays the best of
    ``cards`` (uint64, legal cards of its hand) and max^n play follows: each seat plays the card
    that maximizes its side value, the lowest card id among equals."""
    n, n_sides, f, m, b, scores = len(h), t.n_sides, stack.frames, stack.masks, stack.bounds, stack.scores
    d = 0
    rest = cards
    live = live_cards(h, tr, mover, n_in, n) & ~h[mover]
    prev = np.int64(-1)
    best = -np.inf
    while True:
        c, rest, prev = _next_card(rest, prev, live, k)
        if c >= 0:
            old, winner, n_in2, led2, mover2, broken2, n_tr2 = apply_card(
                c, h, tr, tw, wn, n_in, led, mover, broken, n_tr, k
            )
            if n_tr2 == t.hand_size:
                for s in range(n_sides):
                    scores[d + 1, s] = adjusted_score(s, tw, wn, bids, blind, bags, bemo, t, cost, adjust)
                undo_card(c, old, winner, h, tr, tw, wn, mover, n_tr)
            else:  # descend: the child writes its line's scores into row d + 1
                _push(f, m, d, n_in, led, mover, broken, n_tr, prev, c, old, winner, rest, live)
                b[d, 0] = best
                d += 1
                n_in, led, mover, broken, n_tr = n_in2, led2, mover2, broken2, n_tr2
                rest = legal_cards(h[mover], led, n_tr, k.preferred, k.first_trick_forbidden)
                live = live_cards(h, tr, mover, n_in, n) & ~h[mover]
                prev = np.int64(-1)
                best = -np.inf
                continue
        else:  # every card tried: row d holds the frame's line, row d + 1 of its parent's child
            if d == 0:
                return
            d -= 1
            n_in, led, mover, broken, n_tr, prev, rest, live = _pop(f, m, d, h, tr, tw, wn)
            best = b[d, 0]
        v = side_value(scores[d + 1], mover % n_sides)
        if v > best:
            best = v
            scores[d] = scores[d + 1]
