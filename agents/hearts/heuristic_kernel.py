"""The Hearts heuristic's passing and card play over one game, compiled [RULES 7].

The rules and their order are those described in ``agents.hearts.heuristic``. Each legal card gets
a score and the one with the highest score is chosen (the lowest card id on a tie; card 0
when none is legal), as the NumPy bot did with an argmax over the 52 card ids. Reads only what the deciding seat can
see: its hand, the cards it passed, the public trick history and the points each seat took.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from agents.heuristic_lanes import (
    HEARTS,
    KING,
    N_RANKS,
    QUEEN,
    SPADES,
    count,
    highest,
    lanes_of,
    lanes_of_flags,
    lowest,
    mask_of_flags,
    only_card,
    played_cards,
)
from spades_env.engine.state import PLAY
from spades_env.games.hearts.phases import PASS
from spades_env.games.hearts.scoring import QUEEN_OF_SPADES

N_CARDS = 4 * N_RANKS
#: Moon-shot alarm: an opponent has taken every point so far, and at least this many.
MOON_ALARM = 14


@njit(cache=True)
def pass_choice(hand, passed, mask):
    """The most dangerous card still in hand: the queen, ace and king of spades (unless five or
    more spades guard them), high hearts, then high cards of short clubs and diamonds."""
    kept = lanes_of(hand & ~passed)
    length = (count(kept[0]), count(kept[1]), count(kept[2]), count(kept[3]))
    guarded = length[SPADES] >= 5
    best, choice = -np.inf, 0
    legal = mask_of_flags(mask, N_CARDS)
    while legal:
        c = np.int64(trailing_zeros(legal))
        legal &= legal - np.uint64(1)
        suit, rank = c // N_RANKS, c % N_RANKS
        danger = rank if rank >= 10 else rank / 4.0
        danger += 40 + rank if suit == HEARTS and rank >= 8 else 0
        if c == QUEEN_OF_SPADES and not guarded:
            danger = 100.0
        if suit == SPADES and rank >= KING and not guarded:
            danger = 90.0 + rank
        held = length[suit]
        if held <= 3 and suit != SPADES and suit != HEARTS:
            danger += 15 - 3 * held
        if danger > best:
            best, choice = danger, c
    return choice


@njit(cache=True)
def discard_choice(legal, mask, queen_out, points):
    """Void in the led suit: the queen of spades, then A/K of spades while the queen is out, then
    the highest heart, then the highest card of the shortest suit; never the jack of diamonds."""
    length = (count(legal[0]), count(legal[1]), count(legal[2]), count(legal[3]))
    best, choice = -np.inf, 0
    cards = mask_of_flags(mask, N_CARDS)
    while cards:
        c = np.int64(trailing_zeros(cards))
        cards &= cards - np.uint64(1)
        suit, rank = c // N_RANKS, c % N_RANKS
        score = rank + 2.0 * (13 - length[suit])
        score += 40 + rank if suit == HEARTS else 0
        score += 60 if suit == SPADES and rank >= KING and queen_out else 0
        if c == QUEEN_OF_SPADES:
            score = 200.0
        score -= 300 if points[c] < 0 else 0
        if score > best:
            best, choice = score, c
    return choice


@njit(cache=True)
def lead_choice(legal, mask, hand, queen_out, have_queen):
    """A low spade to flush the queen, else the lowest card away from a spade honour."""
    held_spades = lanes_of(hand)[SPADES]
    low_spades = legal[SPADES] != 0 and highest(legal[SPADES]) < QUEEN
    flush = queen_out and low_spades and (held_spades >> QUEEN) == 0
    keep_off_spades = have_queen or (held_spades >> KING) != 0
    length = (count(legal[0]), count(legal[1]), count(legal[2]), count(legal[3]))
    best, choice = -np.inf, 0
    cards = mask_of_flags(mask, N_CARDS)
    while cards:
        c = np.int64(trailing_zeros(cards))
        cards &= cards - np.uint64(1)
        suit, rank = c // N_RANKS, c % N_RANKS
        score = -4.0 * rank - 0.5 * length[suit] - (8 if suit == HEARTS else 0)
        score -= 100 if suit == SPADES and keep_off_spades else 0
        score += 200 if suit == SPADES and flush else 0
        if score > best:
            best, choice = score, c
    return choice


@njit(cache=True)
def play_choice(hands, deal, trick, n_in, led_suit, taken, seat, mask, side_of_seat, partnership, points):
    """The card to play for the seat to move in one game (rows of the state's fields)."""
    n = len(trick)
    legal = lanes_of_flags(mask, N_CARDS)
    lead = n_in == 0
    last = n_in == n - 1
    led = min(max(led_suit, 0), 3)
    following = not lead and legal[led] != 0
    # The current winner of the trick: highest card of the led suit.
    win_rank, win_seat, trick_points = -1, 0, 0
    for k in range(n):
        card = trick[k]
        if card >= 0:
            trick_points += points[card]
            if card // N_RANKS == led and card % N_RANKS > win_rank:
                win_rank, win_seat = card % N_RANKS, k
    hand = hands[seat]
    queen = np.uint64(QUEEN_OF_SPADES)
    queen_out = ((played_cards(deal, hands) | hand) >> queen) & np.uint64(1) == 0
    have_queen = (hand >> queen) & np.uint64(1) == 1

    # Moon alarm: one opponent holds every point taken so far.
    total, most, shooter = 0, taken[0], 0
    for k in range(n):
        total += taken[k]
        if taken[k] > most:
            most, shooter = taken[k], k
    threat = most == total and total >= MOON_ALARM and side_of_seat[shooter] != side_of_seat[seat]

    if following:
        ranks = legal[led]
        below = ranks & ((1 << max(win_rank, 0)) - 1)
        top_led = led * N_RANKS + max(highest(ranks), 0)
        if below != 0:
            follow = led * N_RANKS + max(highest(below), 0)
        else:
            follow = top_led if last else led * N_RANKS + max(lowest(ranks), 0)
        # Stop the moon: take a trick that has points (or a heart lead) with the highest card.
        if threat and (trick_points > 0 or led == HEARTS) and highest(ranks) > win_rank:
            follow = top_led
        return follow
    if lead:
        return lead_choice(legal, mask, hand, queen_out, have_queen)
    discard = discard_choice(legal, mask, queen_out, points)
    friendly = side_of_seat[win_seat] == side_of_seat[seat]
    if (threat and win_seat == shooter) or (partnership and friendly):
        # Nothing with points on the shooter's trick, nor (partnership) on the partner's.
        best, safe = -1, -1
        for c in range(N_CARDS):
            if mask[c] and points[c] == 0 and c % N_RANKS > best:
                best, safe = c % N_RANKS, c
        if safe >= 0:
            discard = safe
    return discard


@njit(cache=True)
def decide(phase, hands, deal, trick, n_in_trick, led_suit, passed, points_taken, games, seats, masks,
           side_of_seat, partnership, points):  # fmt: skip
    """(K,) int64: the Hearts heuristic's action for each decision k (game ``games[k]``, seat
    ``seats[k]``, legal actions ``masks[k]``); the first legal action outside PASS and PLAY."""
    out = np.zeros(len(games), np.int64)
    for k in range(len(games)):
        g, seat = games[k], seats[k]
        if phase[g] == PASS:
            out[k] = pass_choice(hands[g, seat], passed[g, seat], masks[k])
        elif phase[g] == PLAY:
            forced = only_card(masks[k], N_CARDS)  # one legal card: what every legal choice plays
            if forced >= 0:
                out[k] = forced
            else:
                out[k] = play_choice(hands[g], deal[g], trick[g], n_in_trick[g], led_suit[g], points_taken[g],
                                     seat, masks[k], side_of_seat, partnership, points)  # fmt: skip
        else:
            for a in range(masks.shape[1]):
                if masks[k, a]:
                    out[k] = a
                    break
    return out
