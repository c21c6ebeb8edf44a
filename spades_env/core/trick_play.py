"""Card play over a batch, compiled: one card per game, trick completion, the winner, the history.

The same kernel plays Spades and Hearts: what differs is data, built once per rule set by
``trick_tables`` (the trump suit, the suit that may not be led until broken, the card
points, the first-trick restriction, the lead state after a trick). ``play_cards`` first
checks every card and changes nothing if one is illegal, then plays them all; the caller
scores the hands that ended (see ``SpadesEngine._play``).

``led_suit`` before a lead is one of the negative lead states of ``engine.state``:
FREE_LEAD (-1), RESTRICTED_LEAD (-2) and LOWEST_CLUB_LEAD (-3); the preferred-cards table
is indexed by ``led_suit`` modulo its 7 rows, so those are its last three rows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from spades_env import cards
from spades_env.core.card_bits import popcount

#: Rows of ``TrickTables.preferred``: the four suits led, then the lead states -3, -2, -1.
N_PREFERRED = 7


class TrickTables(NamedTuple):
    """A rule set's card-play tables, in the order ``play_cards`` takes them."""

    card_bit: np.ndarray
    """(C,) uint64: the bit of each card id of the layout (C card ids); ids outside are no card."""
    suit_of: np.ndarray
    """(C,) int64: the suit of each card id (jokers: spades)."""
    power: np.ndarray
    """(4, 64) int64: a card's power in a trick led in each suit: 100 + rank for a trump, the rank
    in the led suit, -1 otherwise; the largest takes the trick."""
    preferred: np.ndarray
    """(7,) uint64, indexed by ``led_suit`` mod 7: the cards the player must play if holding any
    (else any card). The suits: that suit (spades: the trumps); -1 (FREE_LEAD): none; -2
    (RESTRICTED_LEAD): every suit but the unbroken one; -3 (LOWEST_CLUB_LEAD): the lowest club."""
    first_trick_forbidden: np.uint64
    """Cards not to be played to the first trick unless nothing else is legal (Hearts), else 0."""
    points: np.ndarray
    """(64,) int64: the points a card gives the trick's winner (Hearts; zeros otherwise)."""
    broken_suit: int
    """The suit whose first play "breaks" it (``spades_broken``): spades, or hearts."""
    lead_after: np.ndarray
    """(2,) int64: ``led_suit`` before the next lead, by ``spades_broken`` (False, True)."""


def trick_tables(
    n_card_ids: int,
    trump: int,
    broken_suit: int,
    broken_mask: np.uint64,
    lowest_club: int,
    lead_after: tuple[int, int],
    points: np.ndarray | None = None,
    first_trick_forbidden: int = 0,
) -> TrickTables:
    """The tables of a rule set: ``trump`` the trump suit (-1: none); ``broken_mask`` the cards
    that may not be led while ``broken_suit`` is unbroken; ``lowest_club`` the card led to the
    first trick under ``lowest_club_leads`` (and in Hearts); ``lead_after`` the lead state after
    a trick while the suit is unbroken, and once broken; ``points`` (64,) card points."""
    suit_of = np.array([cards.card_suit(c) for c in range(n_card_ids)], dtype=np.int64)
    power = np.full((4, 64), -1, dtype=np.int64)
    for c in range(cards.N_CARD_IDS):
        suit, rank = cards.card_suit(c), cards.card_rank(c)
        for led in range(4):
            if suit == trump:
                power[led, c] = 100 + rank
            elif suit == led:
                power[led, c] = rank
    preferred = np.zeros(N_PREFERRED, dtype=np.uint64)
    preferred[: cards.SPADES] = cards.SUIT_MASK[: cards.SPADES]
    preferred[cards.SPADES] = cards.TRUMP_MASK
    preferred[-2] = ~np.uint64(broken_mask)
    preferred[-3] = np.uint64(1) << np.uint64(lowest_club)
    card_bit = (np.uint64(1) << np.arange(n_card_ids, dtype=np.uint64)).astype(np.uint64)
    return TrickTables(
        card_bit=card_bit,
        suit_of=suit_of,
        power=power,
        preferred=preferred,
        first_trick_forbidden=np.uint64(first_trick_forbidden),
        points=np.zeros(64, np.int64) if points is None else np.asarray(points, dtype=np.int64),
        broken_suit=int(broken_suit),
        lead_after=np.array(lead_after, dtype=np.int64),
    )


@njit(cache=True)
def legal_cards(hand, led_suit, n_tricks, preferred, first_trick_forbidden):
    """The cards of ``hand`` (uint64) that may be played: follow suit if able; lead a card of
    another suit than the unbroken one if able; the lowest club leads the first trick where
    the rules say so [RULES 1, 6]; on the first trick no ``first_trick_forbidden`` card unless
    nothing else (Hearts) [RULES 7]."""
    must = hand & preferred[led_suit + N_PREFERRED if led_suit < 0 else led_suit]
    legal = must if must != 0 else hand
    if n_tricks == 0:
        clean = legal & ~first_trick_forbidden
        if clean != 0:
            legal = clean
    return legal


@njit(cache=True)
def legal_cards_to_move(hands, to_move, led_suit, n_tricks, preferred, first_trick_forbidden):
    """(B,) uint64: ``legal_cards`` of the player to move in each game (``hands`` (B, N) uint64)."""
    out = np.empty(len(to_move), np.uint64)
    for g in range(len(to_move)):
        out[g] = legal_cards(hands[g, to_move[g]], led_suit[g], n_tricks[g], preferred, first_trick_forbidden)
    return out


@njit(cache=True)
def random_legal_cards(hands, to_move, led_suit, n_tricks, u, preferred, first_trick_forbidden):
    """(B,) int64: legal card k of the player to move in each game, in id order, k = floor(u[g] *
    the number of legal cards) (``u`` (B,) floats in [0, 1)): the draws of ``bits.select_kth``
    on ``legal_cards_to_move``. A game with no legal card gets -1."""
    out = np.empty(len(to_move), np.int64)
    for g in range(len(to_move)):
        legal = legal_cards(hands[g, to_move[g]], led_suit[g], n_tricks[g], preferred, first_trick_forbidden)
        if legal == np.uint64(0):
            out[g] = -1
            continue
        for _ in range(int(u[g] * popcount(legal))):
            legal &= legal - np.uint64(1)  # drop the lowest card
        out[g] = trailing_zeros(legal)
    return out


@njit(cache=True)
def _card_bit(card, card_bit):
    """The bit of ``card``, 0 for an action that is no card."""
    if card < 0 or card >= len(card_bit):
        return np.uint64(0)
    return card_bit[card]


@njit(cache=True)
def play_cards(
    actions,
    phase,
    play_phase,
    validate,
    hands,
    trick,
    n_in_trick,
    led_suit,
    to_move,
    voids,
    spades_broken,
    tricks_won,
    points_taken,
    trick_winners,
    history,
    n_tricks,
    leader,
    card_bit,
    suit_of,
    power,
    preferred,
    first_trick_forbidden,
    points,
    broken_suit,
    lead_after,
):
    """Play card ``actions[g]`` for the player to move in every game g whose ``phase`` is
    ``play_phase`` (the others are left alone), in place; ``actions`` (B,) int64.

    Returns ``(bad, ended)``: with ``validate``, ``bad`` is the first game whose card is not
    legal, and then no game has changed (``ended`` is empty); else -1. ``ended`` (E,) int64 are
    the games whose hand's last trick completed (ascending): their trick history is complete
    and nothing else of the hand is scored yet. (``play_range`` says what a card does.)
    """
    b = len(phase)
    if validate:
        for g in range(b):
            if phase[g] != play_phase:
                continue
            legal = legal_cards(hands[g, to_move[g]], led_suit[g], n_tricks[g], preferred, first_trick_forbidden)
            if (legal & _card_bit(actions[g], card_bit)) == np.uint64(0):
                return g, np.empty(0, np.int64)
    ended = np.zeros(b, np.bool_)
    play_range(
        0,
        b,
        actions,
        phase,
        play_phase,
        ended,
        hands,
        trick,
        n_in_trick,
        led_suit,
        to_move,
        voids,
        spades_broken,
        tricks_won,
        points_taken,
        trick_winners,
        history,
        n_tricks,
        leader,
        card_bit,
        suit_of,
        power,
        points,
        broken_suit,
        lead_after,
    )
    return -1, np.flatnonzero(ended)


@njit(cache=True)
def play_range(
    lo,
    hi,
    actions,
    phase,
    play_phase,
    ended,
    hands,
    trick,
    n_in_trick,
    led_suit,
    to_move,
    voids,
    spades_broken,
    tricks_won,
    points_taken,
    trick_winners,
    history,
    n_tricks,
    leader,
    card_bit,
    suit_of,
    power,
    points,
    broken_suit,
    lead_after,
):
    """Play card ``actions[g]`` (legal) for the player to move in the games g of ``lo`` .. ``hi`` - 1
    whose ``phase`` is ``play_phase``, in place; ``ended[g]`` (bool, or int8: 1) is set True where
    it completed the hand's last trick. (One loop over the games, the card's rules inline: a call per game
    would count the references of its thirteen arrays each time, several times the work.)

    A card: it leaves the hand; the first card of a trick sets ``led_suit``; a card off the led
    suit sets the seat's void bit (``voids`` bit 4 * seat + suit); a card of ``broken_suit`` sets
    ``spades_broken``; the next seat moves. The last card of a trick: the highest ``power``
    takes it (``tricks_won``, ``points_taken``, ``trick_winners``), the trick becomes row
    ``n_tricks`` of ``history`` and is emptied, the winner leads, ``led_suit`` is ``lead_after``.
    """
    n_players = hands.shape[1]
    hand_size = history.shape[1]
    for g in range(lo, hi):
        if phase[g] != play_phase:
            continue
        card = actions[g]
        seat = to_move[g]
        hands[g, seat] &= ~_card_bit(card, card_bit)
        suit = suit_of[card] if 0 <= card < len(suit_of) else -1
        n = n_in_trick[g]
        if n == 0:
            led_suit[g] = suit
        led = led_suit[g]
        if suit != led and led >= 0:
            voids[g] |= np.int64(1) << (4 * seat + led)
        trick[g, seat] = card
        if suit == broken_suit:
            spades_broken[g] = True
        n += 1
        if n < n_players:
            n_in_trick[g] = n
            to_move[g] = seat + 1 if seat + 1 < n_players else 0
            continue
        # The trick is complete: each card's power in the led suit, times 8, plus its seat; the
        # largest is the winner's.
        best = -(1 << 40)
        taken = 0
        for k in range(n_players):
            c = trick[g, k]
            p = power[led, c] if 0 <= c < 64 and led >= 0 else -1
            best = max(best, p * 8 + k)
            if 0 <= c < 64:
                taken += points[c]
        winner = best & 7
        tricks_won[g, winner] += 1
        points_taken[g, winner] += taken
        done = n_tricks[g]
        trick_winners[g, done] = winner
        for k in range(n_players):
            history[g, done, k] = trick[g, k]
            trick[g, k] = -1
        done += 1
        n_tricks[g] = done
        leader[g] = winner
        to_move[g] = winner
        n_in_trick[g] = 0
        led_suit[g] = lead_after[1] if spades_broken[g] else lead_after[0]
        if done == hand_size:
            ended[g] = True
