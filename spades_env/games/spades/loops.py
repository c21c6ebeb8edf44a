# Generated from spades_env/games/loops_template.py.in by `python -m spades_env.games.generate_loops`; do not edit.
"""The game ``spades`` over a batch, compiled: one call per ``step``, ``random_actions`` and
``legal_action_mask``.

Each loop runs the game's one-game rules (``phases`` beside this file) and the core's card play
(``core.state_arrays``) over the games, dispatching on each game's phase. The engine
(``engine.core.SpadesEngine``) picks these loops for a rule set of the game once, in ``__init__``,
and passes the rule set's parameters (its spec's ``params``) and card-play tables
(``core.trick_play.TrickTables``) packed in one array (``core.packed.pack_rules``), and the
state's arrays (the game's ``state_arrays.state_arrays``: the core's fields, then the game's own,
generated beside this file from their declarations), or, at small batches, one table of them
(``core.packed.state_table``: ``step_packed``).

What the loops ask the game (every game folder has them): ``phases``: ``is_legal``, ``apply``
(returns True where a weak hand was shown: a redeal, its own fields already set for it),
``random_action``, ``legal_row``, ``deal``, ``begin_hand`` and ``next_hand`` (the game's own fields
before the next hand of a match, or of a new match) of a game ``g`` of the state, and ``P_N_CARD_IDS``;
``hand_score``: ``Tables`` (the rule set's scoring tables, which ``end_hands`` takes as a plain tuple), ``RECORD`` (the
game's own record arrays) and ``end_hand`` (a finished hand's own record fields, its score and
the match's winner).

This file is generated from the one template of every game's loops
(``spades_env/games/loops_template.py.in``, by ``python -m spades_env.games.generate_loops``): edit
the template and regenerate. Numba's cache keys a compiled function on its own file only: after
editing a function these loops call in another file (``phases`` and the files beside it that it
calls, ``hand_score``, ``state_arrays``, ``core.state_arrays``, ``core.trick_play``), clear the
``__pycache__`` of this file too (or touch it), or the cached loops run the old code (the generator
touches it when it rewrites the game's ``state_arrays.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from spades_env.core import packed
from spades_env.core import state_arrays as sa
from spades_env.core.card_bits import kth_card, popcount, write_bits
from spades_env.core.phases import OVER, PLAY

from . import hand_score
from . import phases as ph
from . import state_arrays as gs

#: The record arrays ``end_hands`` fills: those of every game (``core.state_arrays.RECORD_FIELDS``,
#: in order), then the game's own (``hand_score.RECORD``, filled by ``hand_score.end_hand``).
RECORD = (*sa.RECORD_FIELDS, *hand_score.RECORD)


GOES_ON, HAND_ENDED, REDEAL = sa.GOES_ON, sa.HAND_ENDED, sa.REDEAL
#: Games per task of the parallel loops (``*_threads``).
CHUNK = 256


# The loops over games ``lo`` .. ``hi`` - 1. ``tables``: ``TrickTables``' fields in order;
# ``state``: the state's arrays (the game's ``state_arrays.FIELDS``), the arrays passed or their views
# (its ``unpack_state``), of the same types: each loop is compiled once. Each bundles
# them itself (``borrow``): a bundle passed from one compiled call to another made the large
# batches about 1.5x slower. Card play, the usual decision, is dispatched here; the game's other
# phases are its ``phases`` functions.
@njit(cache=True)
def check_games(lo, hi, actions, p, tables, state):
    """The first game of ``lo`` .. ``hi`` - 1 whose action is not legal (or whose match is over), else -1."""
    s, t = gs.borrow(state), sa.borrow_tables(tables)
    for g in range(lo, hi):
        phase = s.phase[g]
        if phase == PLAY:
            if not sa.card_is_legal(s, t, g, actions[g]):
                return g
        elif phase == OVER or not ph.is_legal(s, p, g, actions[g]):
            return g
    return -1


@njit(cache=True)
def apply_games(lo, hi, actions, status, p, tables, state):
    """Apply ``actions[g]`` in games ``lo`` .. ``hi`` - 1 (not where the match is over); ``status[g]``:
    GOES_ON, HAND_ENDED or REDEAL. The cards first, in one loop (card play never changes a
    game's phase), then the other decisions."""
    s, t = gs.borrow(state), sa.borrow_tables(tables)
    status[lo:hi] = GOES_ON
    sa.play_cards(s, t, lo, hi, actions, PLAY, status)  # sets HAND_ENDED (1, True)
    for g in range(lo, hi):
        phase = s.phase[g]
        if phase != PLAY and phase != OVER and ph.apply(s, p, g, actions[g]):
            start_hand(s, p, g, True, t.lead_after[0])  # a weak hand was shown: a new deal, same dealer [RULES 6]
            status[g] = REDEAL


@njit(cache=True)
def draw_games(lo, hi, u, out, p, tables, state):
    """``out[g]``: legal action k of game g in id order, k = floor(u[g] * their number); 0 where
    the match is over."""
    s, t = gs.borrow_decision(state), sa.borrow_tables(tables)
    for g in range(lo, hi):
        phase = s.phase[g]
        if phase == PLAY:
            legal = sa.legal_cards(s, t, g)
            out[g] = kth_card(legal, np.int64(u[g] * popcount(legal))) if legal else -1
        elif phase == OVER:
            out[g] = 0
        else:
            out[g] = ph.random_action(s, p, g, u[g])


@njit(cache=True)
def mask_games(lo, hi, games, out, p, tables, state):
    """``out[i]``: the legal actions of the player to move in game ``games[i]``, i in ``lo`` .. ``hi`` - 1."""
    s, t = gs.borrow_decision(state), sa.borrow_tables(tables)
    for i in range(lo, hi):
        g = games[i]
        row = out[i]
        if s.phase[g] == PLAY:
            row[:] = False
            write_bits(sa.legal_cards(s, t, g), row, p[ph.P_N_CARD_IDS])
        else:
            ph.legal_row(s, p, g, row)


@njit(cache=True)
def _count(status, what):
    """How many games' ``status`` is ``what``."""
    n = 0
    for x in status:
        n += x == what
    return n


@njit(cache=True)
def step_games(actions, validate, status, p, tables, state):
    """Apply ``actions[g]`` in every game g (games whose match is over are left alone).

    Returns ``(bad, n_ended)``: with ``validate``, ``bad`` is the first game whose action is not
    legal (or whose match is over), and then no game has changed; else -1. ``status`` (B,) int8
    tells each game's outcome (``apply_games``): HAND_ENDED for the games whose hand's last trick
    was played (``n_ended`` of them, to be scored by ``end_hands``), REDEAL for the games where a
    weak hand was shown and the new deal was dealt [RULES 6].
    """
    b = len(actions)
    if validate:
        bad = check_games(0, b, actions, p, tables, state)
        if bad >= 0:
            return bad, 0
    apply_games(0, b, actions, status, p, tables, state)
    return -1, _count(status, HAND_ENDED)


# The engine's calls: one game at a time, or ``_threads`` over chunks of games in parallel
# (``prange``), with the same results. Each takes its own arguments, then the rule set's
# parameters and card-play tables in one array (``core.packed.pack_rules``), then the state:
# its arrays (``random_actions`` and ``legal_action_mask``: only the game's ``state_arrays.DECISION_FIELDS``),
# or, ``step_packed``, its ``core.packed.state_table``.
@njit(cache=True)
def step(actions, validate, status, rules, *state):
    """``step_games`` on the state's arrays."""
    p, tables = packed.unpack_rules(rules)
    return step_games(actions, validate, status, p, tables, state)


@njit(cache=True)
def step_packed(actions, validate, status, rules, table):
    """``step_games`` on the state of a ``core.packed.state_table``."""
    p, tables = packed.unpack_rules(rules)
    return step_games(actions, validate, status, p, tables, gs.unpack_state(table))


@njit(cache=True, parallel=True)
def step_threads(actions, validate, status, rules, *state):
    """``step_games`` over chunks of ``CHUNK`` games in parallel."""
    b = len(actions)
    n_chunks = (b + CHUNK - 1) // CHUNK
    if validate:
        bad = np.empty(n_chunks, np.int64)
        for c in prange(n_chunks):
            bad[c] = _check_chunk(c * CHUNK, min(b, (c + 1) * CHUNK), actions, rules, state)
        for c in range(n_chunks):
            if bad[c] >= 0:
                return bad[c], 0
    for c in prange(n_chunks):
        _apply_chunk(c * CHUNK, min(b, (c + 1) * CHUNK), actions, status, rules, state)
    return -1, _count(status, HAND_ENDED)


# A parallel loop's body takes the rules and the state as they came (Numba's ``prange`` does not
# carry the bundles made outside it) and bundles them itself.
@njit(cache=True)
def _check_chunk(lo, hi, actions, rules, state):
    p, tables = packed.unpack_rules(rules)
    return check_games(lo, hi, actions, p, tables, state)


@njit(cache=True)
def _apply_chunk(lo, hi, actions, status, rules, state):
    p, tables = packed.unpack_rules(rules)
    apply_games(lo, hi, actions, status, p, tables, state)


@njit(cache=True)
def _draw_chunk(lo, hi, u, out, rules, state):
    p, tables = packed.unpack_rules(rules)
    draw_games(lo, hi, u, out, p, tables, state)


@njit(cache=True)
def _mask_chunk(lo, hi, games, out, rules, state):
    p, tables = packed.unpack_rules(rules)
    mask_games(lo, hi, games, out, p, tables, state)


@njit(cache=True)
def random_actions(u, out, rules, *state):
    """``out`` (B,) int64: ``draw_games`` of every game, from ``u`` (B,) floats in [0, 1) (the caller
    allocates ``out``: NumPy makes an array faster than a Numba return boxes one)."""
    p, tables = packed.unpack_rules(rules)
    draw_games(0, len(u), u, out, p, tables, state)


@njit(cache=True, parallel=True)
def random_actions_threads(u, out, rules, *state):
    """``random_actions`` over chunks of games in parallel."""
    b = len(u)
    for c in prange((b + CHUNK - 1) // CHUNK):
        _draw_chunk(c * CHUNK, min(b, (c + 1) * CHUNK), u, out, rules, state)


@njit(cache=True)
def legal_action_mask(games, out, rules, *state):
    """Write the legal actions of the player to move in game ``games[i]`` into ``out[i]`` (bool)."""
    p, tables = packed.unpack_rules(rules)
    mask_games(0, len(games), games, out, p, tables, state)


@njit(cache=True, parallel=True)
def legal_action_mask_threads(games, out, rules, *state):
    """``legal_action_mask`` over chunks of games in parallel."""
    n = len(games)
    for c in prange((n + CHUNK - 1) // CHUNK):
        _mask_chunk(c * CHUNK, min(n, (c + 1) * CHUNK), games, out, rules, state)


@njit(cache=True, inline="always")
def start_hand(s, p, g, seeded, unbroken_lead):
    """Deal the hand of game ``g`` (its dealer, scores and hand number set; ``seeded``: the
    seeded deal, else the cards written in) and set it up to its first decision."""
    ph.deal(s, p, g, seeded)
    sa.clear_hand(s, g, unbroken_lead)
    ph.begin_hand(s, p, g)


@njit(cache=True)
def begin_hands(games, seeded, rules, *state):
    """``start_hand`` of each of ``games`` (a new match's first hand)."""
    p, tables = packed.unpack_rules(rules)
    s = gs.borrow(state)
    for g in games:
        start_hand(s, p, g, seeded, tables[7][0])  # lead_after[0]


@njit(cache=True)
def end_hands(games, auto_reset, tables, p, unbroken_lead, record, *state):
    """``finish_games`` on the state's arrays (``tables``: the ``hand_score.Tables`` as a plain tuple)."""
    t = hand_score.Tables(*tables)
    finish_games(games, auto_reset, t, p, unbroken_lead, record, state)


@njit(cache=True)
def end_hands_packed(games, auto_reset, tables, p, unbroken_lead, record, table):
    """``finish_games`` on the state of a ``core.packed.state_table``."""
    t = hand_score.Tables(*tables)
    finish_games(games, auto_reset, t, p, unbroken_lead, record, gs.unpack_state(table))


@njit(cache=True)
def finish_games(games, auto_reset, t, p, unbroken_lead, record, state):
    """Score the hand that ended in each of ``games`` (``hand_score.end_hand``, ``t`` its
    ``Tables``), keep it in row o of the ``record`` arrays (o: its place in ``games``; ``record``:
    the arrays of ``core.state_arrays.RECORD_FIELDS`` and those of ``hand_score.RECORD``, two
    tuples), and start the next hand (the game's own fields set by its ``next_hand``), the next
    match (``auto_reset``) or leave the match OVER."""
    s = gs.borrow(state)
    shared, own = record
    (winner, deal, dealer, history, tricks_won, trick_winners, start_scores, hand_number, hand_key, delta,
     scores) = shared  # fmt: skip
    for o in range(len(games)):
        g = games[o]
        sa.keep_record(s, g, o, deal, dealer, history, tricks_won, trick_winners, start_scores, hand_number, hand_key)
        w = hand_score.end_hand(s, g, t, o, delta, scores, own)
        winner[o] = w
        for k in range(s.scores.shape[1]):
            s.scores[g, k] = scores[o, k]
        if sa.next_hand_or_match(s, g, w, auto_reset, OVER):
            ph.next_hand(s, p, g, w >= 0)
            start_hand(s, p, g, True, unbroken_lead)
