"""The search bot's heuristic rollouts, compiled: one call plays every (decision, card, sample) triple.

For each triple the compiled loop copies the decision's game into a one-game scratch state
with the sampled hands (the cards already played stay in ``deal``; in two-player each seat's heuristic
reads its draw discards from the sample too, never the state's), plays the candidate card,
then lets the compiled heuristic of the game choose every later card of every seat, each played by
the core's card play (``core.trick_play.legal_cards`` and ``play_range``, what the games' compiled
loops run), to the hand's last trick; the hand is scored by the game's ``hand_score.finish_hand``,
as the engine scores it. The value of a triple is what ``SearchAgent`` maximizes (the Python
loop over ``engine.step`` it replaces, kept as ``SearchAgent``'s reference path, gives the same
values to the bit, tested on every preset): the seat's side's points as the game compares them
(``hand_values``: Spades' bag-adjusted points; Hearts' points negated, since they are penalties)
minus the mean of the other sides'.

The loop that plays and scores is each game's bot part ``rollouts`` (``agents.game_parts``:
``agents.spades.rollouts``, ``agents.hearts.rollouts``), on the one-game scratch and the helpers here
(``load_scratch``, ``legal_row``, ``play_card``, ``margin``). Only card play happens in a rollout: the decisions
are in PLAY, and a hand's end ends it. With ``threads`` > 1 the candidates are split into chunks played in
parallel (the games' ``*_rollouts_threads``), each chunk on a scratch game of its own: the same values to the bit.
Numba's cache keys a compiled function on its own file: after editing a function called from
the games' rollouts (``core.trick_play``, the helpers here), clear their ``__pycache__`` too, or the cached
rollouts run the old code.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

import numba
import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import overload

from agents.game_parts import bot_part
from spades_env.core import state_arrays as sa
from spades_env.core import trick_play
from spades_env.core.trick_play import legal_cards
from spades_env.engine import PLAY, FinishedHands, GameState, SpadesEngine

if TYPE_CHECKING:
    from agents.heuristic import HeuristicAgent


def inlined(function):
    """A stand-in for ``function`` (a compiled function, or plain Python) that compiled callers inline:
    its own Python source, typed and inlined where it is called, so the same code without a call per
    ply, whose dozens of array arguments cost more than a card's rules. Only callable from compiled code."""
    impl = getattr(function, "py_func", function)
    params = ", ".join(inspect.signature(impl).parameters)
    namespace: dict = {}
    source = f"def stub({params}):\n    raise NotImplementedError\ndef typer({params}):\n    return impl\n"
    exec(source, {"impl": impl}, namespace)  # a stub and its typer with the function's parameters
    overload(namespace["stub"], inline="always")(namespace["typer"])
    return namespace["stub"]


#: The one-game functions the rollouts run every ply, inlined (``inlined``).
play_range = inlined(trick_play.play_range)

#: The one-game scratch arrays of ``new_scratch``, by index (the ``GameState`` fields of the same names).
HANDS, TRICK, N_IN, LED, TO_MOVE, VOIDS, BROKEN, WON, TAKEN, WINNERS, HISTORY, N_TRICKS, LEADER, PHASE, DEAL = range(15)
#: ... the (1,) card to play and "the hand ended" flag ``play_range`` takes, and the legal-card flags
#: the heuristic reads.
ACTION, ENDED, ROW, FLAGGED = 15, 16, 17, 18


#: Legal-card flags of the scratch game's heuristic row: one per card id (54 at most, jokers included).
N_FLAGS = 64


@njit(cache=True)
def new_scratch(n, n_tricks):
    """One game's card-play arrays, each with a leading axis of 1 (the shape ``play_range`` indexes)."""
    return (
        np.zeros((1, n), np.uint64),  # hands
        np.zeros((1, n), np.int64),  # trick
        np.zeros(1, np.int64),  # n_in_trick
        np.zeros(1, np.int64),  # led_suit
        np.zeros(1, np.int64),  # to_move
        np.zeros(1, np.int64),  # voids
        np.zeros(1, np.bool_),  # spades_broken
        np.zeros((1, n), np.int64),  # tricks_won
        np.zeros((1, n), np.int64),  # points_taken
        np.zeros((1, n_tricks), np.int64),  # trick_winners
        np.zeros((1, n_tricks, n), np.int64),  # history
        np.zeros(1, np.int64),  # n_tricks
        np.zeros(1, np.int64),  # leader
        np.full(1, PLAY, np.int64),  # phase
        np.zeros((1, n), np.uint64),  # deal
        np.zeros(1, np.int64),  # action
        np.zeros(1, np.bool_),  # ended
        np.zeros(N_FLAGS, np.bool_),  # row
        np.zeros(1, np.uint64),  # flagged: the cards whose flags in row are set
    )


@njit(cache=True, inline="always")
def borrowed_scratch(own):
    """``own``'s arrays without reference counts (``core.state_arrays.borrowed``): a call that passes them
    costs no atomic counting; valid while ``own`` is alive (the caller keeps it)."""
    b = sa.borrowed
    return (
        b(own[0]), b(own[1]), b(own[2]), b(own[3]), b(own[4]), b(own[5]), b(own[6]), b(own[7]), b(own[8]),
        b(own[9]), b(own[10]), b(own[11]), b(own[12]), b(own[13]), b(own[14]), b(own[15]), b(own[16]),
        b(own[17]), b(own[18]),
    )  # fmt: skip


@njit(cache=True, inline="always")
def load_scratch(s, g, hands, x):
    """Copy game ``g`` of the state ``s`` into the scratch ``x``, its hands replaced by ``hands`` (N,)
    (the cards already played are kept in the deal)."""
    n = s.hands.shape[1]
    for k in range(n):
        x[HANDS][0, k] = hands[k]
        x[DEAL][0, k] = hands[k] | (s.deal[g, k] & ~s.hands[g, k])
        x[TRICK][0, k] = s.trick[g, k]
        x[WON][0, k] = s.tricks_won[g, k]
        x[TAKEN][0, k] = s.points_taken[g, k]
    for j in range(s.history.shape[1]):
        x[WINNERS][0, j] = s.trick_winners[g, j]
        for k in range(n):
            x[HISTORY][0, j, k] = s.history[g, j, k]
    x[N_IN][0] = s.n_in_trick[g]
    x[LED][0] = s.led_suit[g]
    x[TO_MOVE][0] = s.to_move[g]
    x[VOIDS][0] = s.voids[g]
    x[BROKEN][0] = s.spades_broken[g]
    x[N_TRICKS][0] = s.n_tricks[g]
    x[LEADER][0] = s.leader[g]


def _play_card(x, card, t):
    """Play ``card`` for the seat to move in the scratch game (``play_range``); whether the hand ended."""
    action, ended = x[ACTION], x[ENDED]
    action[0] = card
    ended[0] = False
    play_range(
        0, 1, action, x[PHASE], PLAY, ended, x[HANDS], x[TRICK], x[N_IN], x[LED], x[TO_MOVE], x[VOIDS],
        x[BROKEN], x[WON], x[TAKEN], x[WINNERS], x[HISTORY], x[N_TRICKS], x[LEADER],
        t.card_bit, t.suit_of, t.power, t.points, t.broken_suit, t.lead_after,
    )  # fmt: skip
    return ended[0]


play_card = inlined(_play_card)


@njit(cache=True, inline="always")
def legal_row(x, t, row):
    """The legal cards of the seat to move in the scratch game, as flags in ``row`` (the heuristic's mask);
    returns the only legal card, or -1 when there are several (then the heuristic chooses). Only the
    flags that change are written (``x[FLAGGED]`` keeps which are set)."""
    legal = legal_cards(x[HANDS][0, x[TO_MOVE][0]], x[LED][0], x[N_TRICKS][0], t.preferred, t.first_trick_forbidden)
    if legal & (legal - np.uint64(1)) == np.uint64(0):
        return trailing_zeros(legal)
    flagged = x[FLAGGED]
    change = flagged[0] ^ legal
    while change != np.uint64(0):
        c = trailing_zeros(change)
        row[c] = not row[c]
        change &= change - np.uint64(1)
    flagged[0] = legal
    return -1


@njit(cache=True, inline="always")
def margin(values, mine, weight):
    """``values[mine]`` minus ``weight`` times the mean of the other sides' values (summed in order, as
    NumPy sums a row; ``weight`` 1 gives the same bits as no weight)."""
    total = values[0]
    for k in range(1, len(values)):
        total += values[k]
    return values[mine] - weight * (total - values[mine]) / (len(values) - 1)


def side_margin(points: np.ndarray, side: np.ndarray, weight: float = 1.0) -> np.ndarray:
    """(G,) ``margin`` of G games at once: side ``side`` (G,)'s ``points`` (G, n_sides) minus ``weight`` times the
    mean of the other sides' (what a duplicate tournament compares; pass penalty points negated: ``hand_values``)."""
    mine = points[np.arange(len(side)), side]
    return mine - weight * (points.sum(axis=1) - mine) / (points.shape[1] - 1)


def hand_values(engine: SpadesEngine, f: FinishedHands, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
    """(G, n_sides) float64: each side's points of the finished hands ``f`` (its rows ``rows``) as a search
    maximizes them: the game's points as tournaments compare them (``spec.adjusted_points``: Spades' bag-adjusted
    points), negated where points are penalties (``rules.points_are_penalties``: fewer is better)."""
    rules = engine.rules
    points = engine.spec.adjusted_points(rules, f, rows)
    return -points if rules.points_are_penalties else points


def rollout_totals(
    engine: SpadesEngine,
    state: GameState,
    games: np.ndarray,
    seats: np.ndarray,
    candidates: np.ndarray,
    sampled: np.ndarray,
    totals: np.ndarray,
    policy: HeuristicAgent,
    threads: int | None = None,
    discards: np.ndarray | None = None,
) -> np.ndarray:
    """Add to ``totals`` (D, C) float64 the summed rollout values over the samples of each candidate card.

    ``games``, ``seats`` (D,): the decisions (in PLAY) of ``state``; ``candidates`` (D, C) bool: the
    cards to roll out; ``sampled`` (D, S, N) uint64: each decision's sampled hands; ``policy``: the
    heuristic whose options (``set_opponents``) the rollouts play with; ``threads``: how many threads play
    the candidates (None: the engine's ``threads``; the same values on any number); ``discards`` (D, S, N)
    uint64: each sample's two-player draw discards (``agents.search_sampling.sample_layouts``; None: the
    state's own, for callers whose "samples" are the real hands). Changes nothing in ``state``.
    """
    dec, card = (np.ascontiguousarray(a, dtype=np.int64) for a in np.nonzero(candidates))  # one compiled signature
    games = np.ascontiguousarray(games, dtype=np.int64)
    seats = np.ascontiguousarray(seats, dtype=np.int64)
    sampled = np.ascontiguousarray(sampled, dtype=np.uint64)
    if discards is None:
        discards = np.broadcast_to(draw_discards(engine, state, games)[:, None, :], sampled.shape)
    discards = np.ascontiguousarray(discards, dtype=np.uint64)
    return _rollouts(engine, state, policy, games, seats, dec, card, sampled, discards, totals, 1.0, threads)


def draw_discards(engine: SpadesEngine, state: GameState, games: np.ndarray) -> np.ndarray:
    """(G, N) uint64: each seat's two-player draw discards in games ``games`` of ``state`` (none in another game)."""
    if engine.rules.two_player:
        return state.discards[games]
    return np.zeros((len(games), engine.n_players), np.uint64)


def play_out_values(
    engine: SpadesEngine,
    roll: GameState,
    seats: np.ndarray,
    policy: HeuristicAgent,
    opponents_weight: float = 1.0,
    threads: int | None = None,
) -> np.ndarray:
    """(B,) the value of finishing each game of ``roll`` (every one in PLAY) with the heuristic ``policy``: the
    side of ``seats``' points (``hand_values``) minus ``opponents_weight`` times the others' mean, as
    ``agents.search_bidding.rollout_values`` scores its engine rollouts. ``threads``: as ``rollout_totals``.
    ``roll`` is not changed."""
    if not (roll.phase == PLAY).all():
        raise ValueError("play_out_values needs games that are all in the PLAY phase")
    b = roll.batch_size
    games = np.arange(b, dtype=np.int64)
    own_hands = np.ascontiguousarray(roll.hands[:, None, :])  # one "sample" per game: its own hands
    own_discards = np.ascontiguousarray(draw_discards(engine, roll, games)[:, None, :])
    seats = np.ascontiguousarray(seats, dtype=np.int64)
    no_card = np.full(b, -1, np.int64)
    totals = _rollouts(
        engine, roll, policy, games, seats, games, no_card, own_hands, own_discards, np.zeros((b, 1)),
        opponents_weight, threads,
    )  # fmt: skip
    return totals[:, 0]


#: Candidates a chunk holds at least: fewer run on one thread (a few rollouts do not pay for starting the others).
MIN_PER_CHUNK = 8


def _rollouts(engine, state, policy, games, seats, dec, card, sampled, discards, totals, weight, threads) -> np.ndarray:
    """The compiled rollouts of the game (its bot part ``rollouts``; ``discards``: where the game draws) of
    candidates ``dec``, ``card`` into ``totals``, on one thread or, with ``threads`` > 1 (None: the engine's),
    their ``_threads`` twins over chunks of the candidates (four a thread, for balance): the same values."""
    add_rollouts = bot_part(engine.rules.game, "rollouts", "the search's compiled rollouts")
    arrays, tables = engine._state_arrays(state), tuple(engine.trick_tables)
    threads = engine.threads if threads is None else threads
    chunks = min(4 * threads, len(dec) // MIN_PER_CHUNK) if threads > 1 else 1
    if chunks > 1:
        numba.set_num_threads(min(threads, chunks))  # per calling thread, as the engine's loops set it
        tail = (chunks, *scratch_shape(state), arrays)
    else:
        tail = (scratch_for(state), arrays)
    args = (games, seats, dec, card, sampled, discards, totals, weight, tables)
    return add_rollouts(engine, policy, *args, chunks > 1, tail)


def scratch_shape(state: GameState) -> tuple[int, int]:
    """The (players, tricks) of a one-game scratch for games shaped like ``state``'s."""
    return state.hands.shape[1], state.history.shape[1]


def scratch_for(state: GameState) -> tuple:
    """The one-game scratch arrays for games shaped like ``state``'s."""
    return new_scratch(*scratch_shape(state))
