"""The Spades heuristic's card play over one game, compiled [RULES 1, 3, 5].

The priorities (see ``agents.heuristic``): my own live nil ducks every trick; a partner's live
nil is covered; an opponent's live nil is played under; otherwise the side plays to its
contract (lead winners, second hand low, third hand high, no overtaking a partner's sure
winner, win as cheaply as possible) and ducks once it is made.

Cards are handled by suit lanes (``agents.heuristic_lanes``): "the lowest card that wins" is a
bit operation per suit and a choice of the best of four suits. Every candidate card is worked
out for every decision, as the rules name them, and the rules then pick one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.heuristic_lanes import (
    N_RANKS,
    SPADES,
    above,
    best_suit,
    card_in,
    count,
    highest,
    highest_card,
    lanes_and,
    lanes_and_not,
    lanes_of,
    lanes_of_flags,
    lowest,
    lowest_card,
    played_cards,
    rank_of,
    suit_of,
)
from agents.spades.heuristic_config import (
    C_BAG_LIMIT,
    C_BAGS,
    C_CARD_IDS,
    C_HAND_SIZE,
    C_PARTNERSHIP,
    C_PLAYERS,
    C_SET_OPPONENTS,
    C_TWO_PLAYER,
)

#: Trick power of a trump above its rank: any trump beats any card of the led suit.
TRUMP_POWER = 100
_ALL = ~np.uint64(0)


@njit(cache=True)
def trick_power(card, led):
    """Strength of ``card`` in a trick led with suit ``led`` (-1: nothing led yet, then ranked by
    value with spades above); -1 for no card (an empty slot) or a card of another side suit."""
    if card < 0:
        return -1
    suit, rank = suit_of(card), rank_of(card)
    if led < 0:
        return rank + N_RANKS * (suit == SPADES)
    if suit == SPADES:
        return TRUMP_POWER + rank
    return rank if suit == led else -1


@njit(cache=True)
def unseen_cards(hands, deal, blind, discards_mine, seat, deck, two_player):
    """Cards the seat has not seen: the deck less the cards played and its own hand; in two-player
    also less its own draw discards, unless a blind-nil opponent may have drawn them."""
    unseen = deck & ~(played_cards(deal, hands) | hands[seat])
    if two_player:
        others_blind = False
        for k in range(len(blind)):
            others_blind |= blind[k] and k != seat
        unseen &= _ALL if others_blind else ~discards_mine
    return unseen


@njit(cache=True)
def play_choice(hands, deal, trick, n_in, led, n_tricks, won, bids, blind, voids, my_bags, discards_mine, seat,
                mask, side_of_seat, partner_of, deck, config):  # fmt: skip
    """The card to play, for the seat to move in one game (rows of the state's fields)."""
    n = config[C_PLAYERS]
    legal = lanes_of_flags(mask, config[C_CARD_IDS])
    hand = hands[seat]
    lead = n_in == 0
    last = n_in == n - 1

    # --- what the seat sees: unseen cards, the trick's winner, voids, contracts
    u = lanes_of(unseen_cards(hands, deal, blind, discards_mine, seat, deck, config[C_TWO_PLAYER] != 0))
    top_unseen = (highest(u[0]), highest(u[1]), highest(u[2]), highest(u[3]))
    boss = (above(top_unseen[0]), above(top_unseen[1]), above(top_unseen[2]), above(top_unseen[3]))
    win_power, win_seat = -1, 0
    for k in range(n):
        power = trick_power(trick[k], -1 if lead else led)
        if power > win_power:
            win_power, win_seat = power, k
    led_lane = min(max(led, 0), 3)
    ruffed = win_power >= TRUMP_POWER
    if lead:
        beats = legal
    else:
        spade_floor = above(win_power - TRUMP_POWER if ruffed else -1)
        in_led = 0 if ruffed else legal[led_lane] & above(min(max(win_power, -1), 12))
        beats = (
            in_led if led_lane == 0 else 0,
            in_led if led_lane == 1 else 0,
            in_led if led_lane == 2 else 0,
            (legal[SPADES] & spade_floor) | (in_led if led_lane == SPADES else 0),
        )
    following = not lead and legal[led_lane] != 0

    my_side = side_of_seat[seat]
    contract_mine = taken_mine = contract_other = taken_other = 0
    for k in range(n):
        if bids[k] > 0:
            if side_of_seat[k] == my_side:
                contract_mine += bids[k]
                taken_mine += won[k]
            elif side_of_seat[k] == 1 - my_side:
                contract_other += bids[k]
                taken_other += won[k]
    remaining = config[C_HAND_SIZE] - n_tricks
    need = contract_mine - taken_mine
    want_win = 0 < need <= remaining
    if config[C_PARTNERSHIP] and config[C_SET_OPPONENTS]:
        opp_need = contract_other - taken_other
        bag_danger = config[C_BAGS] != 0 and my_bags >= config[C_BAG_LIMIT] - 2
        want_win |= 0 < opp_need <= remaining and not bag_danger

    # --- candidate cards
    low, _ = lowest_card(legal)
    high_legal, _ = highest_card(legal, N_RANKS)
    high_under, has_under = highest_card(lanes_and_not(legal, beats), N_RANKS)
    cheap_beat, has_beat = lowest_card(beats)
    high_beat, _ = highest_card(beats, N_RANKS)
    cheap_boss, has_boss = lowest_card(lanes_and(beats, boss))
    # Leads that win: a boss in a side suit no opponent can ruff, else a boss spade.
    opp_void = nil_holds = 0  # suit bits: an opponent has shown out; a live opponent nil still holds it
    any_opp_nil = nil_to_play = False
    for k in range(n):
        if side_of_seat[k] != my_side:
            shown_out = (voids >> (4 * k)) & 0xF  # bit s: seat k has shown out of suit s
            opp_void |= shown_out
            if bids[k] == 0 and won[k] == 0:
                any_opp_nil = True
                nil_to_play |= trick[k] < 0 and k != seat
                nil_holds |= ~shown_out & 0xF
    safe = ~opp_void | (1 << SPADES)  # trumps cannot be ruffed
    lead_boss, has_lead_boss = highest_card(lanes_in_suits(lanes_and(legal, boss), safe), -50)
    held = lanes_of(hand)
    r = (lowest(legal[0]), lowest(legal[1]), lowest(legal[2]), lowest(legal[3]))
    long_suit = best_suit(legal, (count(held[0]) * 16 - r[0], count(held[1]) * 16 - r[1],
                                  count(held[2]) * 16 - r[2], count(held[3]) * 16 - r[3] - 400))  # fmt: skip
    lead_long = card_in(long_suit, r[long_suit] if long_suit >= 0 else -1)

    duck = high_under if has_under else (high_legal if last else low)
    win_lead = lead_boss if has_lead_boss else lead_long

    # --- normal play
    partner_winning = partner_sure = False
    partner = partner_of[seat]
    if config[C_PARTNERSHIP]:
        partner_card = trick[partner]
        partner_winning = not lead and win_seat == partner and partner_card >= 0
        pc = max(partner_card, 0)
        partner_boss = rank_of(pc) > top_unseen[suit_of(pc)]
        partner_sure = partner_winning and (last or partner_boss)
    second = n_in == 1 and not last
    middle = not lead and not last and not second  # third hand in a 4-player game
    beat_following = cheap_boss if has_boss else (high_beat if following else cheap_beat)
    if has_beat:
        contest = cheap_beat if last else (low if second and following and not has_boss else beat_following)
    else:
        contest = low
    if second and not following and has_beat:
        contest = cheap_beat
    normal_win = win_lead if lead else (low if partner_sure else contest)
    if middle and partner_winning and not partner_sure:
        normal_win = beat_following if has_beat else low
    choice = normal_win if want_win else (low if lead else duck)

    # --- nil overrides
    if any_opp_nil:
        # Attack a nil: lead low in a suit the nil bidder still holds, play under it.
        lead_attack, has_attack = lowest_card(lanes_in_suits(legal, nil_holds))
        lead_attack = lead_attack if has_attack else low
        nil_winning = not lead and side_of_seat[win_seat] != my_side and bids[win_seat] == 0 and won[win_seat] == 0
        if lead:
            choice = lead_attack
        elif nil_winning:
            choice = duck
        elif nil_to_play:
            choice = low
    if config[C_PARTNERSHIP] and bids[partner] == 0 and won[partner] == 0:
        top = (highest(legal[0]), highest(legal[1]), highest(legal[2]), highest(legal[3]))
        t = top_unseen
        cover = (_over(top[0], t[0]), _over(top[1], t[1]), _over(top[2], t[2]), _over(top[3], t[3]) - 5)
        suit = best_suit(legal, cover)
        cover_lead = card_in(suit, top[suit] if suit >= 0 else -1)
        if lead:
            choice = cover_lead
        elif trick[partner] < 0 and partner != seat:
            choice = (high_beat if following else cheap_beat) if has_beat else low
        elif partner_winning:
            choice = cheap_beat if has_beat else low
    if bids[seat] == 0 and won[seat] == 0:
        choice = low if lead else duck
    return choice


@njit(cache=True)
def _over(top, top_unseen):
    """Score of a suit for covering a nil partner's lead: its top card, 20 more when no unseen card beats it."""
    return top + 20 * (top > top_unseen)


@njit(cache=True)
def lanes_in_suits(lanes, suits):
    """The lanes of the suits whose bit is set in ``suits`` (bit s: suit s); the others empty."""
    return (
        lanes[0] if suits & 1 else 0,
        lanes[1] if suits & 2 else 0,
        lanes[2] if suits & 4 else 0,
        lanes[3] if suits & 8 else 0,
    )
