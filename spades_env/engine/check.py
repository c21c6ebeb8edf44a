"""An invariant checker for engine states (in the spirit of PGX's ``api_test``).

``check_state(engine, state)`` validates any ``GameState`` of a ``SpadesEngine``:
the dtype and shape of every field, card conservation, trick bookkeeping, bidding
bookkeeping, phase values and a non-empty legal-action mask for every live game.
It raises ``AssertionError`` naming the game and the broken invariant. Tests call it
after every step; it is cheap enough for that, but it is not meant for the hot path.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from spades_env import cards
from spades_env.engine import bits
from spades_env.engine.core import SpadesEngine
from spades_env.engine.state import (
    BEMO,
    BID,
    BLIND,
    DRAW,
    EXCHANGE,
    FREE_LEAD,
    LOWEST_CLUB_LEAD,
    N_PHASES,
    OVER,
    PASS,
    PLAY,
    RESTRICTED_LEAD,
    GameState,
)
from spades_env.games.hearts.phases import PASS_CARDS
from spades_env.games.hearts.scoring import cards_taken
from spades_env.games.spades.phases import MAX_EXCHANGE

I64 = np.int64
U64 = np.uint64


def _field_specs(engine: SpadesEngine, b: int) -> dict[str, tuple[type, tuple[int, ...]]]:
    """Expected (dtype, shape) of every GameState field."""
    n, s, t = engine.n_players, engine.n_sides, engine.hand_size
    return {
        "hands": (U64, (b, n)),
        "deal": (U64, (b, n)),
        "phase": (I64, (b,)),
        "to_move": (I64, (b,)),
        "dealer": (I64, (b,)),
        "leader": (I64, (b,)),
        "trick": (I64, (b, n)),
        "n_in_trick": (I64, (b,)),
        "led_suit": (I64, (b,)),
        "n_tricks": (I64, (b,)),
        "tricks_won": (I64, (b, n)),
        "trick_winners": (I64, (b, t)),
        "bids": (I64, (b, n)),
        "blind": (np.bool_, (b, n)),
        "looked": (np.bool_, (b, n)),
        "n_bids": (I64, (b,)),
        "spades_broken": (np.bool_, (b,)),
        "voids": (I64, (b,)),
        "scores": (I64, (b, s)),
        "bags": (I64, (b, s)),
        "hand_number": (I64, (b,)),
        "winner": (I64, (b,)),
        "key": (U64, (b,)),
        "history": (I64, (b, t, n)),
        "hand_start_scores": (I64, (b, s)),
        "hand_start_bags": (I64, (b, s)),
        "face_up": (U64, (b, n)),
        "bemo": (I64, (b, s)),
        "n_redeals": (I64, (b,)),
        "pile": (I64, (b, engine.pile_size)),
        "pile_pos": (I64, (b,)),
        "shown": (I64, (b,)),
        "discards": (U64, (b, n)),
        "seen": (U64, (b, n)),
        "exchanged_out": (U64, (b, n)),
        "exchanged_in": (U64, (b, n)),
        "passed": (U64, (b, n)),
        "points_taken": (I64, (b, n)),
    }


def _require(ok: np.ndarray | bool, what: str) -> None:
    """Raise naming the first game where ``ok`` (B,) is False."""
    ok = np.asarray(ok)
    if ok.all():
        return
    if ok.ndim == 0:
        raise AssertionError(what)
    bad = np.flatnonzero(~ok)
    raise AssertionError(f"game {int(bad[0])}: {what} (games failing: {bad[:8].tolist()})")


def _card_mask(card_ids: np.ndarray) -> np.ndarray:
    """uint64 masks of int card ids along the last axis, ignoring -1 entries."""
    safe = np.where(card_ids >= 0, card_ids, 0)
    return np.bitwise_or.reduce(np.where(card_ids >= 0, bits.BIT[safe], U64(0)), axis=-1)


def check_state(engine: SpadesEngine, state: GameState) -> None:
    """Check every invariant of ``state``; raise AssertionError naming the first violation."""
    b = state.batch_size
    n, t = engine.n_players, engine.hand_size
    rules = engine.rules

    # ---- dtypes and shapes
    specs = _field_specs(engine, b)
    names = {f.name for f in dataclasses.fields(state)}
    _require(names == set(specs), f"GameState fields {sorted(names)} differ from the checked set {sorted(specs)}")
    for name, (dtype, shape) in specs.items():
        arr = getattr(state, name)
        if not (isinstance(arr, np.ndarray) and arr.dtype == dtype and arr.shape == shape):
            got = (type(arr).__name__, getattr(arr, "dtype", None), getattr(arr, "shape", None))
            raise AssertionError(f"field {name!r} is {got}, expected ndarray of {np.dtype(dtype)} {shape}")

    phase = state.phase
    live = phase != OVER
    _require((phase >= 0) & (phase < N_PHASES), "phase out of range")
    reachable = [PASS, PLAY, OVER] if rules.hearts else [BID, PLAY, OVER]
    reachable += [BLIND] * rules.blind_nil + [BEMO] * rules.bemo
    reachable += [DRAW] + [EXCHANGE] * rules.blind_nil if rules.two_player else []
    _require(np.isin(phase, reachable), f"a phase these rules never reach (reachable: {sorted(reachable)})")
    for name in ("to_move", "dealer", "leader"):
        v = getattr(state, name)
        _require((v >= 0) & (v < n), f"{name} is not a seat in 0..{n - 1}")
    # Two-player games draw their hands before the bidding: no deal exists yet [RULES 4].
    drawing = np.isin(phase, (BLIND, DRAW, EXCHANGE)) if rules.two_player else np.zeros(b, bool)
    dealt = ~drawing

    # ---- card conservation: the deal is the deck, hands shrink only by played cards
    deck = U64(cards.cards_to_mask(engine.deck))
    deal_counts = bits.popcount(state.deal)
    _require(~dealt | np.all(deal_counts == t, axis=1), f"a dealt hand does not hold {t} cards")
    union = np.bitwise_or.reduce(state.deal, axis=1)
    if rules.two_player:  # the kept half of the deck; the rest lies in the discards
        _require(~dealt | ((union & ~deck) == 0) & (bits.popcount(union) == n * t), "the hands are not 26 cards")
    else:
        _require(~dealt | (union == deck), "the deal is not the deck of these rules")
    _require(
        ~np.any((state.hands & ~state.deal) != 0, axis=1) | drawing, "a hand holds a card that was not dealt to it"
    )
    played = state.deal & ~state.hands
    in_trick = _card_mask(state.trick[:, :, None])
    in_history = _card_mask(np.swapaxes(state.history, 1, 2))
    _require(~np.any((in_trick & in_history) != 0, axis=1), "a card is both in the trick and in the history")
    _require(np.all(played == (in_trick | in_history), axis=1), "played cards != trick + history cards")
    _check_variant_cards(engine, state, drawing)

    # ---- trick bookkeeping
    n_tricks, n_in = state.n_tricks, state.n_in_trick
    _require((n_tricks >= 0) & (n_tricks <= t), "n_tricks out of range")
    _require((n_in >= 0) & (n_in < n), "n_in_trick out of range")
    _require(np.sum(state.trick >= 0, axis=1) == n_in, "n_in_trick != cards in the trick")
    done_rows = np.arange(t)[None, :] < n_tricks[:, None]
    _require(np.all((state.trick_winners >= 0) == done_rows, axis=1), "trick_winners filled != n_tricks")
    _require(np.all(np.all(state.history >= 0, axis=2) == done_rows, axis=1), "history rows filled != n_tricks")
    _require(np.all((state.history >= 0) | ~done_rows[:, :, None], axis=(1, 2)), "a completed trick misses a card")
    _require(state.tricks_won.sum(axis=1) == n_tricks, "tricks_won does not sum to n_tricks")
    counted = (state.trick_winners[:, :, None] == np.arange(n)).sum(axis=1)
    _require(np.all(counted == state.tricks_won, axis=1), "tricks_won disagrees with trick_winners")
    in_trick_seat = (state.trick >= 0).astype(I64)
    _require(
        drawing | np.all(bits.popcount(state.hands) == t - n_tricks[:, None] - in_trick_seat, axis=1),
        "hand sizes disagree with tricks played",
    )
    order = (state.leader[:, None] + np.arange(n)) % n  # seats from the leader on
    played_in_order = np.take_along_axis(state.trick >= 0, order, axis=1)
    _require(np.all(played_in_order == (np.arange(n)[None] < n_in[:, None]), axis=1), "trick not played in turn")
    lead_card = state.trick[np.arange(b), state.leader]
    lead_suit = np.where(lead_card >= 0, engine.trick_tables.suit_of[np.maximum(lead_card, 0)], -9)
    _require(np.where(n_in > 0, state.led_suit == lead_suit, True), "led_suit is not the suit of the lead card")
    before_lead = np.isin(state.led_suit, (FREE_LEAD, RESTRICTED_LEAD, LOWEST_CLUB_LEAD))
    _require(np.where(n_in == 0, before_lead, True), "led_suit before a lead is not FREE/RESTRICTED/LOWEST_CLUB_LEAD")
    broken_played = np.any((played & engine.broken_mask) != 0, axis=1)
    _require(state.spades_broken == broken_played, "spades_broken != a spade (Hearts: heart) was played this hand")
    if rules.spades_lead_anytime:
        expect = np.full(b, FREE_LEAD)
    else:
        expect = np.where(state.spades_broken, FREE_LEAD, RESTRICTED_LEAD)
    if engine.club_leads:
        # The first lead of a hand is the lowest club, from its holder [RULES 6].
        first_lead = (phase == PLAY) & (n_tricks == 0)
        expect = np.where(first_lead, LOWEST_CLUB_LEAD, expect)
        holder = (state.deal[np.arange(b), state.leader] >> U64(engine.lowest_club)) & U64(1)
        _require(~first_lead | (holder == 1), "lowest_club_leads, but the first leader was not dealt the lowest club")
    lead_name = "spades_lead_anytime / spades broken / lowest club"
    _require(np.where(n_in == 0, state.led_suit == expect, True), f"lead restriction disagrees with {lead_name}")
    void = state.void_suits()  # (B, N, 4)
    holds = bits.lanes(state.hands, 4) != 0
    holds[:, :, cards.SPADES] |= (state.hands & cards.JOKER_MASK) != 0  # the jokers are spades
    _require(~np.any(void & holds, axis=(1, 2)), "a seat marked void in a suit still holds that suit")

    if rules.hearts:
        _check_hearts(engine, state)
    else:
        _check_bidding(engine, state, drawing, dealt)

    # ---- match bookkeeping
    _require(np.where(live, state.winner == -1, (state.winner >= 0) & (state.winner < engine.n_sides)), "winner")
    _require(state.hand_number >= 0, "hand_number is negative")
    _require(state.n_redeals >= 0, "n_redeals is negative")
    _require(np.all(state.bags >= 0, axis=1), "negative bags")
    if rules.bags:
        fresh = state.hand_number > 0
        _require(np.where(fresh, np.all(state.bags < rules.bag_limit, axis=1), True), "bags at or over bag_limit")
    _require(np.where(live, np.all(state.scores == state.hand_start_scores, axis=1), True), "scores moved mid-hand")

    # ---- the legal-action mask
    mask = engine.legal_action_mask(state)
    _require(mask.shape == (b, engine.layout.n_actions) and mask.dtype == np.bool_, "mask shape or dtype")
    _require(np.where(live, mask.any(axis=1), ~mask.any(axis=1)), "legal mask empty in a live game (or set when over)")


def _check_hearts(engine: SpadesEngine, state: GameState) -> None:
    """Hearts: no bidding; the pass in turn, three cards each, exchanged all at once; points taken [RULES 7]."""
    b, n = state.batch_size, engine.n_players
    phase = state.phase
    _require(np.all(state.bids == -1, axis=1) & (state.n_bids == 0), "a bid in Hearts")
    _require(~np.any(state.blind, axis=1) & np.all(state.looked, axis=1), "blind nil in Hearts")
    passing = phase == PASS
    offset = engine.pass_offset(state.hand_number)
    _require(~passing | (offset != 0), "a pass phase on a no-pass hand")
    n_passed = bits.popcount(state.passed)
    _require(np.all(n_passed <= PASS_CARDS, axis=1), f"a seat passes more than {PASS_CARDS} cards")
    _require(np.where(passing, (state.n_tricks == 0) & (state.n_in_trick == 0), True), "tricks played while passing")
    _require(np.where(passing, np.all(state.hands == state.deal, axis=1), True), "hands changed while passing")
    _require(~passing | ~np.any((state.passed & ~state.hands) != 0, axis=1), "a passed card is not in the hand")
    # Seats choose clockwise from dealer+1: those before the mover have chosen 3, those after none.
    first = (state.dealer + 1) % n
    by_order = np.take_along_axis(n_passed, (first[:, None] + np.arange(n)) % n, axis=1)
    pos = ((state.to_move - first) % n)[:, None]
    k = np.arange(n)[None]
    in_turn = np.all(np.where(k < pos, by_order == PASS_CARDS, np.where(k > pos, by_order == 0, by_order < 3)), axis=1)
    _require(~passing | in_turn, "passing out of turn")
    # In play: everyone passed 3 (0 on a no-pass hand) and holds what its giver passed.
    started = ~passing & (phase != OVER)
    want = np.where(offset == 0, 0, PASS_CARDS)
    _require(~started | np.all(n_passed == want[:, None], axis=1), "play began before every seat passed")
    giver = (np.arange(n)[None, :] - offset[:, None]) % n
    received = np.take_along_axis(state.passed, giver, axis=1)
    moved = offset[:, None] != 0
    ok = ((received & ~state.deal) == 0) & (~moved | ((state.passed & state.deal) == 0))
    _require(~started | np.all(ok, axis=1), "the passed cards did not change hands")
    taken = cards_taken(state.history, state.trick_winners, n)
    points = engine.trick_tables.points
    expect = np.zeros((b, n), np.int64)
    for c in np.flatnonzero(points):
        expect += ((taken >> U64(c)) & U64(1)).astype(np.int64) * points[c]
    _require(np.all(state.points_taken == expect, axis=1), "points_taken disagrees with the tricks taken")


def _check_bidding(engine: SpadesEngine, state: GameState, drawing: np.ndarray, dealt: np.ndarray) -> None:
    """Spades: bidding in turn, blind nil, Bemo [RULES 2, 6]."""
    b, n, t = state.batch_size, engine.n_players, engine.hand_size
    rules, phase = engine.rules, state.phase
    n_tricks, n_in = state.n_tricks, state.n_in_trick
    _require(np.all(state.passed == 0, axis=1) & np.all(state.points_taken == 0, axis=1), "Hearts fields in Spades")
    bids = state.bids
    _require(np.all((bids >= -1) & (bids <= t), axis=1), "a bid is out of range")
    _require(np.sum(bids >= 0, axis=1) == state.n_bids, "n_bids != bids made")
    _require(~np.any(state.blind & (bids != 0), axis=1), "a blind-nil seat has a non-zero bid")
    _require(~np.any(state.blind & ~state.looked, axis=1), "a blind-nil seat is marked as not having looked")
    bidding = (phase == BLIND) | (phase == BID)
    before_play = bidding | drawing | (phase == BEMO)
    _require(np.where(before_play, (n_tricks == 0) & (n_in == 0), True), "tricks played during bidding")
    _require(np.where(bidding, np.all(state.hands == state.deal, axis=1), True), "cards played during bidding")
    rows = np.arange(b)
    mover_looked = state.looked[rows, state.to_move]
    mover_bid = bids[rows, state.to_move]
    _require(np.where(phase == BLIND, ~mover_looked, True), "phase BLIND but the seat to move has looked")
    _require(np.where(phase == BID, mover_looked & (mover_bid == -1), True), "phase BID for a seat that bid")
    # Bids go clockwise from dealer+1: the seats before the one to move have bid. In two-player a
    # blind-nil dealer has bid before the draw, so only the seats before the mover are pinned.
    first = (state.dealer + 1) % n
    by_order = np.take_along_axis(bids >= 0, (first[:, None] + np.arange(n)) % n, axis=1)
    before_mover = np.arange(n)[None] < ((state.to_move - first) % n)[:, None]
    in_turn = np.all(by_order | ~before_mover, axis=1) & (mover_bid == -1)
    if not rules.two_player:
        in_turn &= np.all(by_order == before_mover, axis=1)
    _require(np.where(bidding & dealt, in_turn, True), "bidding out of turn")
    after_bids = (phase == PLAY) | (phase == BEMO)
    _require(np.where(after_bids, state.n_bids == n, True), "phase PLAY or BEMO before every seat bid")
    _require(np.where(phase == PLAY, state.to_move == (state.leader + n_in) % n, True), "play out of turn")
    _require(np.where(n_tricks == 0, True, state.n_bids == n), "tricks played before bidding ended")

    # ---- Bemo [RULES 6]
    if rules.bemo:
        _require(np.all((state.bemo >= -1) & (state.bemo <= 2), axis=1), "a Bemo declaration out of -1..2")
        mover_bemo = state.bemo[rows, engine.side_of_seat[state.to_move]]
        _require(np.where(phase == BEMO, mover_bemo == -1, True), "phase BEMO for a side that declared")
        _require(np.where(phase == PLAY, np.all(state.bemo >= 0, axis=1), True), "play began before every Bemo")
    else:
        _require(np.all(state.bemo == -1, axis=1), "a Bemo declaration without the bemo rule")


def _check_variant_cards(engine: SpadesEngine, state: GameState, drawing: np.ndarray) -> None:
    """Face-up cards and the two-player pile, discards and exchange [RULES 4, 6]."""
    rules, b = engine.rules, state.batch_size
    if rules.face_up_deal:
        _require(~np.any((state.face_up & ~state.deal) != 0, axis=1), "a face-up card was not dealt to its seat")
        _require(np.all(bits.popcount(state.face_up) == min(4, engine.hand_size), axis=1), "not 4 face-up cards")
    else:
        _require(np.all(state.face_up == 0, axis=1), "face-up cards without face_up_deal")
    if not rules.two_player:
        for name in ("discards", "seen", "exchanged_out", "exchanged_in"):
            _require(np.all(getattr(state, name) == 0, axis=1), f"{name} set outside two-player Spades")
        _require((state.pile_pos == 0) & (state.shown == -1), "a draw pile outside two-player Spades")
        return
    deck = np.array(engine.deck)
    _require(np.all(np.sort(state.pile, axis=1) == deck, axis=1), "the pile is not the deck")
    pos, p = state.pile_pos, engine.pile_size
    _require((pos >= 0) & (pos <= p) & (pos % 2 == 0), "pile_pos is not an even position in the pile")
    phase = state.phase
    in_draw = phase == DRAW
    _require(np.where(in_draw, pos < p, np.isin(phase, (BLIND,)) | (pos == p)), "pile_pos disagrees with the phase")
    top = state.pile[np.arange(b), np.minimum(pos, p - 1)]
    _require(state.shown == np.where(in_draw, top, -1), "shown is not the top card of the pile during the draw")
    drawn = _card_mask(np.where(np.arange(p)[None] < pos[:, None], state.pile, -1))
    held = np.bitwise_or.reduce(state.hands | state.discards, axis=1)
    before_exchange = np.isin(phase, (BLIND, DRAW))
    _require(np.where(before_exchange, held == drawn, True), "hands + discards != the cards drawn off the pile")
    counts = bits.popcount(state.hands) + bits.popcount(state.discards)
    _require(np.where(before_exchange, counts.sum(axis=1) == pos, True), "a drawn card is held twice")
    _require(~np.any((state.hands | state.discards) & ~state.seen != 0, axis=1) | ~before_exchange, "unseen card held")
    n_out = bits.popcount(state.exchanged_out)
    _require(np.all(n_out <= MAX_EXCHANGE, axis=1), f"more than {MAX_EXCHANGE} cards exchanged")
    _require(np.all((n_out == 0) | state.blind, axis=1), "a card exchanged by a seat without blind nil")
    _require(np.all(bits.popcount(state.exchanged_in) == n_out, axis=1), "exchanged_in and exchanged_out differ")
    _require(~np.any((state.exchanged_out & state.hands) != 0, axis=1) | ~drawing, "an exchanged card is still held")
