"""Spades over a batch, compiled: one call per ``step``, ``random_actions`` and ``legal_action_mask``.

Each loop runs the game's one-game rules (``games.spades.phases``) and the core's card play
(``core.state_arrays``) over the games, dispatching on each game's phase. The engine
(``engine.core.SpadesEngine``) picks these loops for a Spades rule set once, in ``__init__``,
and passes the rule set's ``params`` and card-play tables (``core.trick_play.TrickTables``) packed
in one array (``core.packed.pack_rules``), and the state's arrays (``core.state_arrays.state_arrays``),
or, at small batches, one table of them (``core.packed.state_table``: ``step_packed``).

Numba's cache keys a compiled function on its own file only: after editing a function these
loops call in another file (``games.spades.phases``, ``core.state_arrays``, ``core.trick_play``),
clear the ``__pycache__`` of this file too (or touch it), or the cached loops run the old code.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from spades_env import cards
from spades_env.core import packed
from spades_env.core import state_arrays as sa
from spades_env.core.card_bits import kth_card, popcount, write_bits
from spades_env.core.phases import OVER, PLAY
from spades_env.games.spades import hand_score
from spades_env.games.spades import phases as ph


def params(rules, layout) -> np.ndarray:
    """The int64 parameters ``p`` of a Spades rule set (indexed by ``phases.P_*``)."""
    p = np.zeros(ph.N_PARAMS, dtype=np.int64)
    ids = {
        ph.P_BLIND_NIL: layout.blind_nil,
        ph.P_LOOK: layout.look,
        ph.P_KEEP: layout.keep,
        ph.P_DISCARD: layout.discard,
        ph.P_EXCHANGE_DONE: layout.exchange_done,
        ph.P_NO_BEMO: layout.no_bemo,
        ph.P_BIG_BEMO: layout.big_bemo,
        ph.P_REDEAL: layout.redeal,
    }
    for at, action in ids.items():
        p[at] = -1 if action is None else action
    p[ph.P_N_PLAYERS] = rules.n_players
    p[ph.P_HAND_SIZE] = rules.hand_size
    p[ph.P_N_CARD_IDS] = layout.n_card_ids
    p[ph.P_BID_OFFSET] = layout.bid_offset
    p[ph.P_MIRROR] = rules.mirror
    p[ph.P_FOURTEEN] = rules.partnership and rules.fourteen
    p[ph.P_TEAM_BID] = rules.min_team_bid if rules.partnership else 0
    p[ph.P_TWO_PLAYER] = rules.two_player
    p[ph.P_BEMO] = rules.bemo
    p[ph.P_CLUB_LEADS] = rules.lowest_club_leads
    p[ph.P_LOWEST_CLUB] = min(c for c in rules.deck if cards.card_suit(c) == cards.CLUBS)
    p[ph.P_PILE_SIZE] = len(rules.deck) if rules.two_player else 0
    p[ph.P_BLIND_OPEN] = 0 if not rules.blind_nil else 1 if rules.blind_nil_requires_behind_by is None else 2
    p[ph.P_BEHIND_BY] = rules.blind_nil_requires_behind_by or 0
    for seat in range(rules.n_players):
        p[ph.P_SIDE_OF_SEAT + seat] = rules.side_of_seat(seat)
    p[ph.P_FACE_UP] = FACE_UP_CARDS if rules.face_up_deal else 0
    p[ph.P_DECK_SIZE] = len(rules.deck)
    p[ph.P_DECK : ph.P_DECK + len(rules.deck)] = rules.deck
    return p


def hand_end_tables(rules):
    """What ``end_hands`` takes after its own arguments: the rule set's ``ScoreTables``."""
    return hand_score.score_tables(rules)


#: Cards of each hand dealt face up under ``face_up_deal`` [RULES 6].
FACE_UP_CARDS = 4
#: The record arrays ``end_hands`` fills, in order (``core.state_arrays.RECORD_FIELDS``, then
#: Spades' own; ``boston`` is not a ``FinishedHands`` field).
RECORD = (*sa.RECORD_FIELDS, "bags", "made", "bags_added", "bag_penalties", "boston", "pile", "discards",
          "exchanged_out", "exchanged_in", "face_up")  # fmt: skip


GOES_ON, HAND_ENDED, REDEAL = sa.GOES_ON, sa.HAND_ENDED, sa.REDEAL
#: Games per task of the parallel loops (``*_threads``).
CHUNK = 256


# The loops over games ``lo`` .. ``hi`` - 1. ``tables``: ``TrickTables``' fields in order;
# ``state``: the state's arrays (``core.state_arrays.FIELDS``), the arrays passed or their views
# (``core.packed.unpack_state``), of the same types: each loop is compiled once. Each bundles
# them itself (``borrow``): a bundle passed from one compiled call to another made the large
# batches about 1.5x slower. Card play, the usual decision, is dispatched here; the game's other
# phases are its ``phases`` functions.
@njit(cache=True)
def check_games(lo, hi, actions, p, tables, state):
    """The first game of ``lo`` .. ``hi`` - 1 whose action is not legal (or whose match is over), else -1."""
    s, t = sa.borrow(state), sa.borrow_tables(tables)
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
    s, t = sa.borrow(state), sa.borrow_tables(tables)
    status[lo:hi] = GOES_ON
    sa.play_cards(s, t, lo, hi, actions, PLAY, status)  # sets HAND_ENDED (1, True)
    for g in range(lo, hi):
        phase = s.phase[g]
        if phase != PLAY and phase != OVER and ph.apply(s, p, g, actions[g]):
            s.n_redeals[g] += 1  # a weak hand was shown: a new seeded deal by the same dealer [RULES 6]
            start_hand(s, p, g, True, t.lead_after[0])
            status[g] = REDEAL


@njit(cache=True)
def draw_games(lo, hi, u, out, p, tables, state):
    """``out[g]``: legal action k of game g in id order, k = floor(u[g] * their number); 0 where
    the match is over."""
    s, t = sa.borrow_decision(state), sa.borrow_tables(tables)
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
    s, t = sa.borrow_decision(state), sa.borrow_tables(tables)
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
# its arrays (``random_actions`` and ``legal_action_mask``: only ``core.state_arrays.DECISION_FIELDS``),
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
    return step_games(actions, validate, status, p, tables, packed.unpack_state(table))


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
    """Deal the hand of game ``g`` (its dealer, scores, bags and hand number set; ``seeded``: the
    seeded deal, else the cards written in) and set it up to its first decision."""
    sa.deal_hand(s, g, ph.deck(p), p[ph.P_TWO_PLAYER], p[ph.P_FACE_UP], seeded)
    sa.clear_hand(s, g, unbroken_lead)
    ph.begin_hand(s, p, g)


@njit(cache=True)
def begin_hands(games, seeded, rules, *state):
    """``start_hand`` of each of ``games`` (a new match's first hand)."""
    p, tables = packed.unpack_rules(rules)
    s = sa.borrow(state)
    for g in games:
        start_hand(s, p, g, seeded, tables[7][0])  # lead_after[0]


@njit(cache=True)
def end_hands(games, auto_reset, tables, p, unbroken_lead, record, *state):
    """``finish_games`` on the state's arrays (``tables``: the ``hand_score.ScoreTables`` as a plain tuple)."""
    t = hand_score.ScoreTables(*tables)
    finish_games(games, auto_reset, t, p, unbroken_lead, record, state)


@njit(cache=True)
def end_hands_packed(games, auto_reset, tables, p, unbroken_lead, record, table):
    """``finish_games`` on the state of a ``core.packed.state_table``."""
    t = hand_score.ScoreTables(*tables)
    finish_games(games, auto_reset, t, p, unbroken_lead, record, packed.unpack_state(table))


@njit(cache=True)
def finish_games(games, auto_reset, t, p, unbroken_lead, record, state):
    """Score the hand that ended in each of ``games`` (``hand_score.finish_hand``, ``t`` its
    ``ScoreTables``), keep it in row o of the ``record`` arrays (``RECORD``, o: its place in
    ``games``), and start the next hand, the next match (``auto_reset``) or leave the match OVER."""
    s = sa.borrow(state)
    (winner, deal, dealer, history, bids, blind, tricks_won, trick_winners, start_scores, start_bags, bemo,
     hand_number, hand_key, delta, scores, bags, made, bags_added, bag_penalties, boston, pile, discards,
     exchanged_out, exchanged_in, face_up) = record  # fmt: skip
    for o in range(len(games)):
        g = games[o]
        sa.keep_record(s, g, o, deal, dealer, history, bids, blind, tricks_won, trick_winners, start_scores,
                       start_bags, bemo, hand_number, hand_key)  # fmt: skip
        for k in range(pile.shape[1]):
            pile[o, k] = s.pile[g, k]
        for k in range(s.hands.shape[1]):
            discards[o, k] = s.discards[g, k]
            exchanged_out[o, k] = s.exchanged_out[g, k]
            exchanged_in[o, k] = s.exchanged_in[g, k]
            face_up[o, k] = s.face_up[g, k]
        w = hand_score.finish_hand(
            g, s.tricks_won, s.bids, s.blind, s.trick_winners, s.bemo, s.scores, s.bags, s.hand_number, t,
            o, delta, bags, made, bags_added, bag_penalties, boston, scores,
        )  # fmt: skip
        winner[o] = w
        for k in range(s.scores.shape[1]):
            s.scores[g, k] = scores[o, k]
            s.bags[g, k] = bags[o, k]
        if sa.next_hand_or_match(s, g, w, auto_reset, OVER):
            start_hand(s, p, g, True, unbroken_lead)
