"""Spades' invariants of an engine state [RULES 2-6]: bidding in turn, blind nil, Bemo, bags, the
face-up cards and the two-player pile, discards and exchange, its own fields (``state_fields.py``), the
variants' fields neutral without the variant. ``check_state`` (in ``spades_env.engine.check``) runs them
through ``SpadesSpec.check_state``, after checking that every other game's field (Hearts' pass and points)
stays at its declared neutral value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from spades_env.core import bits
from spades_env.core.checks import card_mask, require, require_no_pile
from spades_env.core.phases import PLAY
from spades_env.games.spades.params import BEMO, BID, BLIND, DRAW
from spades_env.games.spades.two_player import MAX_EXCHANGE

if TYPE_CHECKING:
    from spades_env.core.table_facts import TableFacts
    from spades_env.facts.state import GameState


def check_spades(facts: TableFacts, state: GameState, drawing: np.ndarray) -> None:
    """Every Spades invariant of ``state``; ``drawing`` (B,) marks the games drawing their hands."""
    _check_variant_cards(facts, state, drawing)
    _check_bidding(facts, state, drawing, ~drawing)
    rules = facts.rules
    require(state.n_redeals >= 0, "n_redeals is negative")
    require(np.all(state.bags >= 0, axis=1), "negative bags")
    if rules.bags:
        fresh = state.hand_number > 0
        require(np.where(fresh, np.all(state.bags < rules.bag_limit, axis=1), True), "bags at or over bag_limit")


def _check_bidding(facts: TableFacts, state: GameState, drawing: np.ndarray, dealt: np.ndarray) -> None:
    """Spades: bidding in turn, blind nil, Bemo [RULES 2, 6]."""
    b, n, t = state.batch_size, facts.n_players, facts.hand_size
    rules, phase = facts.rules, state.phase
    n_tricks, n_in = state.n_tricks, state.n_in_trick
    bids = state.bids
    require(np.all((bids >= -1) & (bids <= t), axis=1), "a bid is out of range")
    require(np.sum(bids >= 0, axis=1) == state.n_bids, "n_bids != bids made")
    require(~np.any(state.blind & (bids != 0), axis=1), "a blind-nil seat has a non-zero bid")
    require(~np.any(state.blind & ~state.looked, axis=1), "a blind-nil seat is marked as not having looked")
    bidding = (phase == BLIND) | (phase == BID)
    before_play = bidding | drawing | (phase == BEMO)
    require(np.where(before_play, (n_tricks == 0) & (n_in == 0), True), "tricks played during bidding")
    require(np.where(bidding, np.all(state.hands == state.deal, axis=1), True), "cards played during bidding")
    rows = np.arange(b)
    mover_looked = state.looked[rows, state.to_move]
    mover_bid = bids[rows, state.to_move]
    require(np.where(phase == BLIND, ~mover_looked, True), "phase BLIND but the seat to move has looked")
    require(np.where(phase == BID, mover_looked & (mover_bid == -1), True), "phase BID for a seat that bid")
    # Bids go clockwise from dealer+1: the seats before the one to move have bid. In two-player a
    # blind-nil dealer has bid before the draw, so only the seats before the mover are pinned.
    first = (state.dealer + 1) % n
    by_order = np.take_along_axis(bids >= 0, (first[:, None] + np.arange(n)) % n, axis=1)
    before_mover = np.arange(n)[None] < ((state.to_move - first) % n)[:, None]
    in_turn = np.all(by_order | ~before_mover, axis=1) & (mover_bid == -1)
    if not rules.two_player:
        in_turn &= np.all(by_order == before_mover, axis=1)
    require(np.where(bidding & dealt, in_turn, True), "bidding out of turn")
    after_bids = (phase == PLAY) | (phase == BEMO)
    require(np.where(after_bids, state.n_bids == n, True), "phase PLAY or BEMO before every seat bid")
    require(np.where(phase == PLAY, state.to_move == (state.leader + n_in) % n, True), "play out of turn")
    require(np.where(n_tricks == 0, True, state.n_bids == n), "tricks played before bidding ended")

    # ---- Bemo [RULES 6]
    if rules.bemo:
        require(np.all((state.bemo >= -1) & (state.bemo <= 2), axis=1), "a Bemo declaration out of -1..2")
        mover_bemo = state.bemo[rows, facts.side_of_seat[state.to_move]]
        require(np.where(phase == BEMO, mover_bemo == -1, True), "phase BEMO for a side that declared")
        require(np.where(phase == PLAY, np.all(state.bemo >= 0, axis=1), True), "play began before every Bemo")
    else:
        require(np.all(state.bemo == -1, axis=1), "a Bemo declaration without the bemo rule")


def _check_variant_cards(facts: TableFacts, state: GameState, drawing: np.ndarray) -> None:
    """Face-up cards and the two-player pile, discards and exchange [RULES 4, 6]."""
    rules, b = facts.rules, state.batch_size
    if rules.face_up_deal:
        require(~np.any((state.face_up & ~state.deal) != 0, axis=1), "a face-up card was not dealt to its seat")
        require(np.all(bits.popcount(state.face_up) == min(4, facts.hand_size), axis=1), "not 4 face-up cards")
    else:
        require(np.all(state.face_up == 0, axis=1), "face-up cards without face_up_deal")
    if not rules.two_player:
        require_no_pile(state, "Spades with a deal")
        return
    deck = np.array(facts.deck)
    require(np.all(np.sort(state.pile, axis=1) == deck, axis=1), "the pile is not the deck")
    pos, p = state.pile_pos, facts.pile_size
    require((pos >= 0) & (pos <= p) & (pos % 2 == 0), "pile_pos is not an even position in the pile")
    phase = state.phase
    in_draw = phase == DRAW
    require(np.where(in_draw, pos < p, np.isin(phase, (BLIND,)) | (pos == p)), "pile_pos disagrees with the phase")
    top = state.pile[np.arange(b), np.minimum(pos, p - 1)]
    require(state.shown == np.where(in_draw, top, -1), "shown is not the top card of the pile during the draw")
    drawn = card_mask(np.where(np.arange(p)[None] < pos[:, None], state.pile, -1))
    held = np.bitwise_or.reduce(state.hands | state.discards, axis=1)
    before_exchange = np.isin(phase, (BLIND, DRAW))
    require(np.where(before_exchange, held == drawn, True), "hands + discards != the cards drawn off the pile")
    counts = bits.popcount(state.hands) + bits.popcount(state.discards)
    require(np.where(before_exchange, counts.sum(axis=1) == pos, True), "a drawn card is held twice")
    require(~np.any((state.hands | state.discards) & ~state.seen != 0, axis=1) | ~before_exchange, "unseen card held")
    n_out = bits.popcount(state.exchanged_out)
    require(np.all(n_out <= MAX_EXCHANGE, axis=1), f"more than {MAX_EXCHANGE} cards exchanged")
    require(np.all((n_out == 0) | state.blind, axis=1), "a card exchanged by a seat without blind nil")
    require(np.all(bits.popcount(state.exchanged_in) == n_out, axis=1), "exchanged_in and exchanged_out differ")
    require(~np.any((state.exchanged_out & state.hands) != 0, axis=1) | ~drawing, "an exchanged card is still held")
