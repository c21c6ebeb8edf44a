"""The search bot's heuristic rollouts, compiled: one call plays every (decision, card, sample) triple.

For each triple the compiled loop copies the decision's game into a one-game scratch state
with the sampled hands (the cards already played stay in ``deal``; in two-player each seat's heuristic
reads its draw discards from the sample too, never the state's), plays the candidate card,
then lets the compiled heuristic (``agents.heuristic_spades_play`` / ``agents.heuristic_hearts_kernel``)
choose every later card of every seat, each played by the core's card play
(``core.trick_play.legal_cards`` and ``play_range``, what the games' compiled loops run),
to the hand's last trick; the hand is scored by the game's ``hand_score.finish_hand``, as
the engine scores it. The value of a triple is what ``SearchAgent`` maximizes (the Python
loop over ``engine.step`` it replaces, kept as ``SearchAgent``'s reference path, gives the same
values to the bit, tested on every preset):

- Spades: the seat's side's bag-adjusted points (``games.spades.scoring.bag_adjusted_points``:
  bag penalties put back, every bag charged ``bag_penalty / bag_limit``) minus the mean of the
  other sides' [RULES 3];
- Hearts: the other sides' mean points minus the seat's side's (points are penalties) [RULES 7].

Only card play happens in a rollout: the decisions are in PLAY, and a hand's end ends it. With ``threads`` > 1
the candidates are split into chunks played in parallel (``*_rollouts_threads``), each chunk on a scratch game of
its own: the same values to the bit.
Numba's cache keys a compiled function on its own file: after editing a function called from
here (the heuristic's play rules, ``core.trick_play``, the hand scoring), clear this file's
``__pycache__`` too, or the cached rollouts run the old code.
"""

from __future__ import annotations

import inspect

import numba
import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import overload

from agents import heuristic_hearts_kernel, heuristic_spades_play
from agents.heuristic import HeuristicAgent, spades_config
from spades_env import cards
from spades_env.core import state_arrays as sa
from spades_env.core import trick_play
from spades_env.core.trick_play import legal_cards
from spades_env.engine import PLAY, GameState, SpadesEngine
from spades_env.games.hearts import hand_score as hearts_score
from spades_env.games.spades import hand_score as spades_score


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
spades_play_choice = inlined(heuristic_spades_play.play_choice)
hearts_play_choice = inlined(heuristic_hearts_kernel.play_choice)

#: The one-game scratch arrays of ``_scratch``, by index (the ``GameState`` fields of the same names).
HANDS, TRICK, N_IN, LED, TO_MOVE, VOIDS, BROKEN, WON, TAKEN, WINNERS, HISTORY, N_TRICKS, LEADER, PHASE, DEAL = range(15)
#: ... the (1,) card to play and "the hand ended" flag ``play_range`` takes, and the legal-card flags
#: the heuristic reads.
ACTION, ENDED, ROW, FLAGGED = 15, 16, 17, 18


#: Legal-card flags of the scratch game's heuristic row: one per card id (54 at most, jokers included).
N_FLAGS = 64


@njit(cache=True)
def _scratch(n, n_tricks):
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
def _borrowed_scratch(own):
    """``own``'s arrays without reference counts (``core.state_arrays.borrowed``): a call that passes them
    costs no atomic counting; valid while ``own`` is alive (the caller keeps it)."""
    b = sa.borrowed
    return (
        b(own[0]), b(own[1]), b(own[2]), b(own[3]), b(own[4]), b(own[5]), b(own[6]), b(own[7]), b(own[8]),
        b(own[9]), b(own[10]), b(own[11]), b(own[12]), b(own[13]), b(own[14]), b(own[15]), b(own[16]),
        b(own[17]), b(own[18]),
    )  # fmt: skip


@njit(cache=True, inline="always")
def _load(s, g, hands, x):
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


_play = inlined(_play_card)


@njit(cache=True, inline="always")
def _legal_row(x, t, row):
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


@njit(cache=True)
def _spades_buffers(n_sides):
    """The hand-score outputs of ``hand_score.finish_hand`` for one game, and the bag-adjusted points."""
    delta = np.zeros((1, n_sides), np.int64)
    return (
        delta, np.zeros_like(delta), np.zeros((1, n_sides), np.bool_), np.zeros_like(delta), np.zeros_like(delta),
        np.zeros((1, n_sides), np.bool_), np.zeros_like(delta), np.zeros(n_sides),
    )  # fmt: skip


@njit(cache=True)
def _spades_play_out(
    s, g, x, discards, done, t, row, side_of_seat, partner, deck, config, st, bag_cost, buf, mine, weight
):  # fmt: skip
    """Play the scratch game ``x`` (game ``g`` of ``s`` with its hands, ``discards`` (N,) each seat's two-player
    draw discards in the layout; ``done``: its hand is over) to the hand's end with the heuristic, score it, and
    return side ``mine``'s bag-adjusted points minus ``weight`` times the other sides' mean (``_margin``)."""
    while not done:
        seat = x[TO_MOVE][0]
        choice = _legal_row(x, t, row)
        if choice < 0:  # a forced card is what any legal policy plays
            choice = spades_play_choice(
                x[HANDS][0], x[DEAL][0], x[TRICK][0], x[N_IN][0], x[LED][0], x[N_TRICKS][0], x[WON][0],
                s.bids[g], s.blind[g], x[VOIDS][0], s.bags[g, side_of_seat[seat]], discards[seat], seat,
                row, side_of_seat, partner, deck, config,
            )  # fmt: skip
        done = _play(x, choice, t)
    delta, after, made, added, penalties, boston, after_scores, adjusted = buf
    spades_score.finish_hand(
        0, x[WON], s.bids[g : g + 1], s.blind[g : g + 1], x[WINNERS], s.bemo[g : g + 1], s.scores[g : g + 1],
        s.bags[g : g + 1], s.hand_number[g : g + 1], st, 0, delta, after, made, added, penalties, boston,
        after_scores,
    )  # fmt: skip
    for side in range(len(adjusted)):  # ``games.spades.scoring.bag_adjusted_points``
        adjusted[side] = (delta[0, side] + penalties[0, side] * st.bag_penalty) - added[0, side] * bag_cost
    return _margin(adjusted, mine, weight)


@njit(cache=True)
def spades_rollouts(
    games, seats, dec, card, sampled, discards, totals, weight, side_of_seat, partner, deck, config, st, bag_cost,
    tables, scratch, state,
):  # fmt: skip
    """Add to ``totals[dec[i], card[i]]`` the value of each sample's rollout of candidate i (Spades).

    ``games``, ``seats`` (D,): the decisions; ``dec``, ``card`` (P,): the candidates (a card of -1: none,
    the game plays on from its position, and its value goes to ``totals[dec[i], -1]``); ``sampled``
    (D, S, N) uint64: each decision's sampled hands; ``discards`` (D, S, N) uint64: each sample's two-player draw
    discards (the rollout heuristic of each seat reads its own; never the state's, which hold the hidden ones);
    ``weight``: of the other sides' mean (``_margin``);
    ``side_of_seat``, ``partner``, ``deck``, ``config``: the heuristic's tables
    (``agents.heuristic.spades_config``); ``st``: the rule set's ``ScoreTables``; ``bag_cost``: points
    charged per bag; ``tables``: ``TrickTables`` fields in order; ``scratch``: ``_scratch``'s arrays (the
    one game played; passed in, so that they outlive their borrowed views); ``state``: the state's arrays
    (``core.state_arrays.FIELDS``)."""
    s, t = sa.borrow(state), sa.borrow_tables(tables)
    x = _borrowed_scratch(scratch)
    row = x[ROW]
    buf = _spades_buffers(s.scores.shape[1])
    side_of_seat, partner, config = sa.borrowed(side_of_seat), sa.borrowed(partner), sa.borrowed(config)
    for i in range(len(dec)):
        d = dec[i]
        g, mine = games[d], side_of_seat[seats[d]]
        for j in range(sampled.shape[1]):
            _load(s, g, sampled[d, j], x)
            done = _play(x, card[i], t) if card[i] >= 0 else False
            totals[d, card[i]] += _spades_play_out(
                s, g, x, discards[d, j], done, t, row, side_of_seat, partner, deck, config, st, bag_cost, buf, mine,
                weight,
            )  # fmt: skip
    return totals


@njit(cache=True)
def hearts_rollouts(games, seats, dec, card, sampled, totals, side_of_seat, partnership, ht, tables, scratch, state):
    """``spades_rollouts`` for Hearts (a card of -1 plays on from the position too): the heuristic is the
    Hearts one (``partnership``: the rule set's),
    ``ht`` the rule set's ``HeartsTables``; a triple's value is the others' mean points minus its side's."""
    s, t = sa.borrow(state), sa.borrow_tables(tables)
    n, n_sides = s.hands.shape[1], s.scores.shape[1]
    x = _borrowed_scratch(scratch)
    row = x[ROW]
    side_of_seat = sa.borrowed(side_of_seat)
    taken = np.zeros((1, n), np.uint64)
    points, seat_delta = np.zeros((1, n), np.int64), np.zeros((1, n), np.int64)
    moon = np.zeros((1, n), np.bool_)
    delta, after_scores = np.zeros((1, n_sides), np.int64), np.zeros((1, n_sides), np.int64)
    penalty = np.zeros(n_sides)
    for i in range(len(dec)):
        d = dec[i]
        g, mine = games[d], side_of_seat[seats[d]]
        for j in range(sampled.shape[1]):
            _load(s, g, sampled[d, j], x)
            done = _play(x, card[i], t) if card[i] >= 0 else False
            while not done:
                seat = x[TO_MOVE][0]
                choice = _legal_row(x, t, row)
                if choice < 0:  # a forced card is what any legal policy plays
                    choice = hearts_play_choice(
                        x[HANDS][0], x[DEAL][0], x[TRICK][0], x[N_IN][0], x[LED][0], x[TAKEN][0], seat, row,
                        side_of_seat, partnership, t.points,
                    )  # fmt: skip
                done = _play(x, choice, t)
            hearts_score.finish_hand(
                0,
                x[HISTORY],
                x[WINNERS],
                s.scores[g : g + 1],
                s.hand_number[g : g + 1],
                ht,
                0,
                taken,
                points,
                moon,
                seat_delta,
                delta,
                after_scores,
            )
            for side in range(n_sides):
                penalty[side] = delta[0, side]
            totals[d, card[i]] -= _margin(penalty, mine, 1.0)
    return totals


@njit(cache=True, parallel=True)
def spades_rollouts_threads(
    games, seats, dec, card, sampled, discards, totals, weight, side_of_seat, partner, deck, config, st, bag_cost,
    tables, n_chunks, n, n_tricks, state,
):  # fmt: skip
    """``spades_rollouts`` over ``n_chunks`` chunks of the candidates in parallel (``prange``), each with a scratch
    game of its own (``_scratch(n, n_tricks)``): the same values to the bit (a candidate's samples add up in order
    on one thread, and no two candidates share a ``totals`` entry)."""
    p = len(dec)
    for c in prange(n_chunks):
        lo, hi = c * p // n_chunks, (c + 1) * p // n_chunks
        spades_rollouts(
            games, seats, dec[lo:hi], card[lo:hi], sampled, discards, totals, weight, side_of_seat, partner, deck,
            config, st, bag_cost, tables, _scratch(n, n_tricks), state,
        )  # fmt: skip
    return totals


@njit(cache=True, parallel=True)
def hearts_rollouts_threads(
    games, seats, dec, card, sampled, totals, side_of_seat, partnership, ht, tables, n_chunks, n, n_tricks, state
):  # fmt: skip
    """``hearts_rollouts`` over ``n_chunks`` chunks of the candidates in parallel (``spades_rollouts_threads``)."""
    p = len(dec)
    for c in prange(n_chunks):
        lo, hi = c * p // n_chunks, (c + 1) * p // n_chunks
        hearts_rollouts(
            games, seats, dec[lo:hi], card[lo:hi], sampled, totals, side_of_seat, partnership, ht, tables,
            _scratch(n, n_tricks), state,
        )  # fmt: skip
    return totals


@njit(cache=True, inline="always")
def _margin(values, mine, weight):
    """``values[mine]`` minus ``weight`` times the mean of the other sides' values (summed in order, as
    NumPy sums a row; ``weight`` 1 gives the same bits as no weight)."""
    total = values[0]
    for k in range(1, len(values)):
        total += values[k]
    return values[mine] - weight * (total - values[mine]) / (len(values) - 1)


def side_margin(points: np.ndarray, side: np.ndarray, weight: float = 1.0) -> np.ndarray:
    """(G,) ``_margin`` of G games at once: side ``side`` (G,)'s ``points`` (G, n_sides) minus ``weight`` times the
    mean of the other sides' (what a duplicate tournament compares; pass Hearts points negated)."""
    mine = points[np.arange(len(side)), side]
    return mine - weight * (points.sum(axis=1) - mine) / (points.shape[1] - 1)


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
        discards = np.broadcast_to(state.discards[games][:, None, :], sampled.shape)
    discards = np.ascontiguousarray(discards, dtype=np.uint64)
    return _rollouts(engine, state, policy, games, seats, dec, card, sampled, discards, totals, 1.0, threads)


def play_out_values(
    engine: SpadesEngine,
    roll: GameState,
    seats: np.ndarray,
    policy: HeuristicAgent,
    opponents_weight: float = 1.0,
    threads: int | None = None,
) -> np.ndarray:
    """(B,) the value of finishing each game of ``roll`` (every one in PLAY) with the heuristic ``policy``:
    Spades, the side of ``seats``' bag-adjusted points minus ``opponents_weight`` times the others' mean, as
    ``agents.search_bidding.rollout_values`` scores its engine rollouts; Hearts, the others' mean points
    minus the side's (``hearts_rollouts``; ``opponents_weight`` must be 1). ``threads``: as ``rollout_totals``.
    ``roll`` is not changed."""
    if not (roll.phase == PLAY).all() or (engine.rules.hearts and opponents_weight != 1.0):
        raise ValueError("play_out_values needs games that are all in the PLAY phase (Hearts: opponents_weight 1)")
    b = roll.batch_size
    games = np.arange(b, dtype=np.int64)
    own_hands = np.ascontiguousarray(roll.hands[:, None, :])  # one "sample" per game: its own hands
    own_discards = np.ascontiguousarray(roll.discards[:, None, :])
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
    """The compiled rollouts of the game (``spades_rollouts`` or ``hearts_rollouts``; ``discards``: Spades only)
    of candidates ``dec``, ``card`` into ``totals``, on one thread or, with ``threads`` > 1 (None: the engine's),
    their ``_threads`` twins over chunks of the candidates (four a thread, for balance): the same values."""
    rules, arrays, tables = engine.rules, sa.state_arrays(state), tuple(engine.trick_tables)
    threads = engine.threads if threads is None else threads
    chunks = min(4 * threads, len(dec) // MIN_PER_CHUNK) if threads > 1 else 1
    if chunks > 1:
        numba.set_num_threads(min(threads, chunks))  # per calling thread, as the engine's loops set it
        tail = (chunks, *_scratch_shape(state), arrays)
    else:
        tail = (_scratch_for(state), arrays)
    if rules.hearts:
        kernel = hearts_rollouts_threads if chunks > 1 else hearts_rollouts
        ht = hearts_score.hearts_tables(rules)
        args = (games, seats, dec, card, sampled, totals, engine.side_of_seat, bool(rules.partnership), ht, tables)
        return kernel(*args, *tail)
    kernel = spades_rollouts_threads if chunks > 1 else spades_rollouts
    config, partner, deck = _heuristic_tables(engine, policy)
    bag_cost = rules.bag_penalty / rules.bag_limit if rules.bags else 0.0
    st = spades_score.score_tables(rules)
    args = (games, seats, dec, card, sampled, discards, totals, float(weight), engine.side_of_seat, partner, deck)
    return kernel(*args, config, st, bag_cost, tables, *tail)


def _scratch_shape(state: GameState) -> tuple[int, int]:
    """The (players, tricks) of a one-game scratch for games shaped like ``state``'s."""
    return state.hands.shape[1], state.history.shape[1]


def _scratch_for(state: GameState) -> tuple:
    """The one-game scratch arrays for games shaped like ``state``'s."""
    return _scratch(*_scratch_shape(state))


_TABLES: dict = {}


def _heuristic_tables(engine: SpadesEngine, policy: HeuristicAgent) -> tuple[np.ndarray, np.ndarray, np.uint64]:
    """The heuristic's (config, partner of each seat, deck mask) for an engine's rules and the policy's
    ``set_opponents`` (what ``HeuristicAgent`` plays with), kept per (rules, option)."""
    key = (engine.rules, bool(policy.set_opponents))
    if key not in _TABLES:
        n = engine.n_players
        partner = np.arange(n, dtype=np.int64) if engine.partner is None else engine.partner.astype(np.int64)
        _TABLES[key] = (spades_config(engine, key[1]), partner, np.uint64(cards.cards_to_mask(engine.deck)))
    return _TABLES[key]
