"""An invariant checker for engine states (in the spirit of PGX's ``api_test``).

``check_state(engine, state)`` validates any ``GameState`` of a ``SpadesEngine``:
the state of the engine's game, the dtype and shape of every field as declared
(``engine.state_schema``), card conservation, trick bookkeeping, bidding
bookkeeping, phase values and a non-empty legal-action mask for every live game.
It raises ``AssertionError`` naming the game and the broken invariant. Tests call it
after every step; it is cheap enough for that, but it is not meant for the hot path.

The invariants of every trick-taking game live here; each game adds its own (bidding, the pass,
the variants: the fields it owns) through its spec (``engine.spec.check_state``, in
``games/<game>/invariants.py``), which use ``require``, ``card_mask`` and ``require_no_pile`` from here.
"""

from __future__ import annotations

import numpy as np

from spades_env import cards
from spades_env.core import bits
from spades_env.core.checks import card_mask, require
from spades_env.engine.core import SpadesEngine
from spades_env.engine.state import FREE_LEAD, LOWEST_CLUB_LEAD, N_PHASES, OVER, PLAY, RESTRICTED_LEAD, GameState

I64 = np.int64
U64 = np.uint64


def _check_fields(engine: SpadesEngine, state: GameState) -> None:
    """The state is of the engine's game, every field's dtype and shape as declared (``engine.state_schema``)."""
    game = engine.rules.game
    require(np.full(state.batch_size, state.game == game), f"a {state.game or 'core'} state, not a {game} state")
    sizes = engine.state_sizes(state.batch_size)
    for field in engine._state_schema.fields:
        arr, dtype, shape = getattr(state, field.name), field.dtype, field.shape(sizes)
        if not (isinstance(arr, np.ndarray) and arr.dtype == dtype and arr.shape == shape):
            got = (type(arr).__name__, getattr(arr, "dtype", None), getattr(arr, "shape", None))
            raise AssertionError(f"field {field.name!r} is {got}, expected ndarray of {np.dtype(dtype)} {shape}")


def check_state(engine: SpadesEngine, state: GameState) -> None:
    """Check every invariant of ``state``; raise AssertionError naming the first violation."""
    n, rules = engine.n_players, engine.rules
    _check_fields(engine, state)  # the game, dtypes and shapes
    phase = state.phase
    require((phase >= 0) & (phase < N_PHASES), "phase out of range")
    reachable = engine.spec.reachable_phases(rules)
    require(np.isin(phase, reachable), f"a phase these rules never reach (reachable: {sorted(reachable)})")
    for name in ("to_move", "dealer", "leader"):
        v = getattr(state, name)
        require((v >= 0) & (v < n), f"{name} is not a seat in 0..{n - 1}")
    # Two-player games draw their hands before the bidding: no deal exists yet [RULES 4].
    drawing = np.isin(phase, engine.spec.drawing_phases(rules))
    _check_cards(engine, state, drawing)
    _check_tricks(engine, state, drawing)
    _check_leads(engine, state)
    engine.spec.check_state(engine.facts, state, drawing)
    _check_match(engine, state)


def _check_cards(engine: SpadesEngine, state: GameState, drawing: np.ndarray) -> None:
    """Card conservation: the deal is ``n * hand_size`` cards of the deck (all of it but in two-player, which deals
    half and discards the rest), hands shrink only by the cards in the trick and the history."""
    n, t = engine.n_players, engine.hand_size
    dealt = ~drawing
    deck = U64(cards.cards_to_mask(engine.deck))
    require(~dealt | np.all(bits.popcount(state.deal) == t, axis=1), f"a dealt hand does not hold {t} cards")
    union = np.bitwise_or.reduce(state.deal, axis=1)
    dealt_right = ((union & ~deck) == 0) & (bits.popcount(union) == n * t)
    require(~dealt | dealt_right, f"the hands are not {n * t} different cards of the deck of these rules")
    require(~np.any((state.hands & ~state.deal) != 0, axis=1) | drawing, "a hand holds a card that was not dealt to it")
    played = state.deal & ~state.hands
    in_trick = card_mask(state.trick[:, :, None])
    in_history = card_mask(np.swapaxes(state.history, 1, 2))
    require(~np.any((in_trick & in_history) != 0, axis=1), "a card is both in the trick and in the history")
    require(np.all(played == (in_trick | in_history), axis=1), "played cards != trick + history cards")


def _check_tricks(engine: SpadesEngine, state: GameState, drawing: np.ndarray) -> None:
    """Trick bookkeeping: counts, winners, history rows, hand sizes, the trick played in turn."""
    n, t = engine.n_players, engine.hand_size
    n_tricks, n_in = state.n_tricks, state.n_in_trick
    require((n_tricks >= 0) & (n_tricks <= t), "n_tricks out of range")
    require((n_in >= 0) & (n_in < n), "n_in_trick out of range")
    require(np.sum(state.trick >= 0, axis=1) == n_in, "n_in_trick != cards in the trick")
    done_rows = np.arange(t)[None, :] < n_tricks[:, None]
    require(np.all((state.trick_winners >= 0) == done_rows, axis=1), "trick_winners filled != n_tricks")
    require(np.all(np.all(state.history >= 0, axis=2) == done_rows, axis=1), "history rows filled != n_tricks")
    require(np.all((state.history >= 0) | ~done_rows[:, :, None], axis=(1, 2)), "a completed trick misses a card")
    require(state.tricks_won.sum(axis=1) == n_tricks, "tricks_won does not sum to n_tricks")
    counted = (state.trick_winners[:, :, None] == np.arange(n)).sum(axis=1)
    require(np.all(counted == state.tricks_won, axis=1), "tricks_won disagrees with trick_winners")
    in_trick_seat = (state.trick >= 0).astype(I64)
    require(
        drawing | np.all(bits.popcount(state.hands) == t - n_tricks[:, None] - in_trick_seat, axis=1),
        "hand sizes disagree with tricks played",
    )
    order = (state.leader[:, None] + np.arange(n)) % n  # seats from the leader on
    played_in_order = np.take_along_axis(state.trick >= 0, order, axis=1)
    require(np.all(played_in_order == (np.arange(n)[None] < n_in[:, None]), axis=1), "trick not played in turn")


def _check_leads(engine: SpadesEngine, state: GameState) -> None:
    """The led suit, the game's broken suit, the lead restriction before a lead, the voids shown."""
    b, rules, n_in = state.batch_size, engine.rules, state.n_in_trick
    lead_card = state.trick[np.arange(b), state.leader]
    lead_suit = np.where(lead_card >= 0, engine.trick_tables.suit_of[np.maximum(lead_card, 0)], -9)
    require(np.where(n_in > 0, state.led_suit == lead_suit, True), "led_suit is not the suit of the lead card")
    before_lead = np.isin(state.led_suit, (FREE_LEAD, RESTRICTED_LEAD, LOWEST_CLUB_LEAD))
    require(np.where(n_in == 0, before_lead, True), "led_suit before a lead is not FREE/RESTRICTED/LOWEST_CLUB_LEAD")
    broken_played = np.any((state.played & engine.broken_mask) != 0, axis=1)
    require(state.spades_broken == broken_played, "spades_broken != a spade (Hearts: heart) was played this hand")
    if engine.spec.lead_anytime(rules):
        expect = np.full(b, FREE_LEAD)
    else:
        expect = np.where(state.spades_broken, FREE_LEAD, RESTRICTED_LEAD)
    if engine.club_leads:
        # The first lead of a hand is the lowest club, from its holder [RULES 6].
        first_lead = (state.phase == PLAY) & (state.n_tricks == 0)
        expect = np.where(first_lead, LOWEST_CLUB_LEAD, expect)
        holder = (state.deal[np.arange(b), state.leader] >> U64(engine.lowest_club)) & U64(1)
        require(~first_lead | (holder == 1), "lowest_club_leads, but the first leader was not dealt the lowest club")
    lead_name = "spades_lead_anytime / spades broken / lowest club"
    require(np.where(n_in == 0, state.led_suit == expect, True), f"lead restriction disagrees with {lead_name}")
    void = state.void_suits()  # (B, N, 4)
    holds = bits.lanes(state.hands, 4) != 0
    holds[:, :, cards.SPADES] |= (state.hands & cards.JOKER_MASK) != 0  # the jokers are spades
    require(~np.any(void & holds, axis=(1, 2)), "a seat marked void in a suit still holds that suit")


def _check_match(engine: SpadesEngine, state: GameState) -> None:
    """Match bookkeeping (the winner, the hand number, the scores within a hand) and the legal-action mask: its
    shape, and a legal action in every live game (none once the match is over)."""
    b, live = state.batch_size, state.phase != OVER
    require(np.where(live, state.winner == -1, (state.winner >= 0) & (state.winner < engine.n_sides)), "winner")
    require(state.hand_number >= 0, "hand_number is negative")
    require(np.where(live, np.all(state.scores == state.hand_start_scores, axis=1), True), "scores moved mid-hand")
    mask = engine.legal_action_mask(state)
    require(mask.shape == (b, engine.layout.n_actions) and mask.dtype == np.bool_, "mask shape or dtype")
    require(np.where(live, mask.any(axis=1), ~mask.any(axis=1)), "legal mask empty in a live game (or set when over)")
