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
from spades_env.engine.state import BID, BLIND, FREE_LEAD, N_PHASES, OVER, PLAY, RESTRICTED_LEAD, GameState

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
    for name in ("to_move", "dealer", "leader"):
        v = getattr(state, name)
        _require((v >= 0) & (v < n), f"{name} is not a seat in 0..{n - 1}")

    # ---- card conservation: the deal is the deck, hands shrink only by played cards
    deck = U64(cards.cards_to_mask(engine.deck))
    deal_counts = bits.popcount(state.deal)
    _require(np.all(deal_counts == t, axis=1), f"a dealt hand does not hold {t} cards")
    _require(np.bitwise_or.reduce(state.deal, axis=1) == deck, "the deal is not the deck of these rules")
    _require(~np.any((state.hands & ~state.deal) != 0, axis=1), "a hand holds a card that was not dealt to it")
    played = state.deal & ~state.hands
    in_trick = _card_mask(state.trick[:, :, None])
    in_history = _card_mask(np.swapaxes(state.history, 1, 2))
    _require(~np.any((in_trick & in_history) != 0, axis=1), "a card is both in the trick and in the history")
    _require(np.all(played == (in_trick | in_history), axis=1), "played cards != trick + history cards")

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
        np.all(bits.popcount(state.hands) == t - n_tricks[:, None] - in_trick_seat, axis=1),
        "hand sizes disagree with tricks played",
    )
    order = (state.leader[:, None] + np.arange(n)) % n  # seats from the leader on
    played_in_order = np.take_along_axis(state.trick >= 0, order, axis=1)
    _require(np.all(played_in_order == (np.arange(n)[None] < n_in[:, None]), axis=1), "trick not played in turn")
    lead_card = state.trick[np.arange(b), state.leader]
    lead_suit = np.where(lead_card >= 0, lead_card // cards.N_RANKS, -9)
    _require(np.where(n_in > 0, state.led_suit == lead_suit, True), "led_suit is not the suit of the lead card")
    before_lead = (state.led_suit == FREE_LEAD) | (state.led_suit == RESTRICTED_LEAD)
    _require(np.where(n_in == 0, before_lead, True), "led_suit before a lead is not FREE_LEAD / RESTRICTED_LEAD")
    spade_played = np.any((played & cards.SUIT_MASK[cards.SPADES]) != 0, axis=1)
    _require(state.spades_broken == spade_played, "spades_broken != a spade was played this hand")
    if rules.spades_lead_anytime:
        _require(np.where(n_in == 0, state.led_suit == FREE_LEAD, True), "spades_lead_anytime but restricted lead")
    else:
        expect = np.where(state.spades_broken, FREE_LEAD, RESTRICTED_LEAD)
        _require(np.where(n_in == 0, state.led_suit == expect, True), "lead restriction != spades unbroken")
    void = state.void_suits()  # (B, N, 4)
    holds = bits.lanes(state.hands, 4) != 0
    _require(~np.any(void & holds, axis=(1, 2)), "a seat marked void in a suit still holds that suit")

    # ---- bidding bookkeeping
    bids = state.bids
    _require(np.all((bids >= -1) & (bids <= t), axis=1), "a bid is out of range")
    _require(np.sum(bids >= 0, axis=1) == state.n_bids, "n_bids != bids made")
    _require(~np.any(state.blind & (bids != 0), axis=1), "a blind-nil seat has a non-zero bid")
    _require(~np.any(state.blind & ~state.looked, axis=1), "a blind-nil seat is marked as not having looked")
    bidding = (phase == BLIND) | (phase == BID)
    _require(np.where(bidding, (n_tricks == 0) & (n_in == 0), True), "tricks played during bidding")
    _require(np.where(bidding, np.all(state.hands == state.deal, axis=1), True), "cards played during bidding")
    rows = np.arange(b)
    mover_looked = state.looked[rows, state.to_move]
    mover_bid = bids[rows, state.to_move]
    _require(np.where(phase == BLIND, ~mover_looked, True), "phase BLIND but the seat to move has looked")
    _require(np.where(phase == BID, mover_looked & (mover_bid == -1), True), "phase BID for a seat that bid")
    first = (state.dealer + 1) % n
    _require(np.where(bidding, state.to_move == (first + state.n_bids) % n, True), "bidding out of turn")
    _require(np.where(phase == PLAY, state.n_bids == n, True), "phase PLAY before every seat bid")
    _require(np.where(phase == PLAY, state.to_move == (state.leader + n_in) % n, True), "play out of turn")
    _require(np.where(n_tricks == 0, True, state.n_bids == n), "tricks played before bidding ended")

    # ---- match bookkeeping
    _require(np.where(live, state.winner == -1, (state.winner >= 0) & (state.winner < engine.n_sides)), "winner")
    _require(state.hand_number >= 0, "hand_number is negative")
    _require(np.all(state.bags >= 0, axis=1), "negative bags")
    if rules.bags:
        fresh = state.hand_number > 0
        _require(np.where(fresh, np.all(state.bags < rules.bag_limit, axis=1), True), "bags at or over bag_limit")
    _require(np.where(live, np.all(state.scores == state.hand_start_scores, axis=1), True), "scores moved mid-hand")

    # ---- the legal-action mask
    mask = engine.legal_action_mask(state)
    _require(mask.shape == (b, engine.layout.n_actions) and mask.dtype == np.bool_, "mask shape or dtype")
    _require(np.where(live, mask.any(axis=1), ~mask.any(axis=1)), "legal mask empty in a live game (or set when over)")
