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
    win_power, win_seat = _trick_winner(trick, n, -1 if lead else led)
    led_lane = min(max(led, 0), 3)
    beats = legal if lead else _beating(legal, win_power, led_lane)
    following = not lead and legal[led_lane] != 0

    my_side = side_of_seat[seat]
    want_win = _wants_to_win(bids, won, side_of_seat, my_side, n, config[C_HAND_SIZE] - n_tricks, my_bags, config)

    # --- candidate cards
    low, _ = lowest_card(legal)
    high_legal, _ = highest_card(legal, N_RANKS)
    high_under, has_under = highest_card(lanes_and_not(legal, beats), N_RANKS)
    cheap_beat, has_beat = lowest_card(beats)
    high_beat, _ = highest_card(beats, N_RANKS)
    cheap_boss, has_boss = lowest_card(lanes_and(beats, boss))
    # Leads that win: a boss in a side suit no opponent can ruff, else a boss spade.
    opp_void, nil_holds, any_opp_nil, nil_to_play = _opponent_nils(
        bids, won, trick, voids, side_of_seat, my_side, seat, n
    )
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
        nil_winning = not lead and side_of_seat[win_seat] != my_side and bids[win_seat] == 0 and won[win_seat] == 0
        choice = _attack_nil(choice, legal, nil_holds, low, duck, lead, nil_winning, nil_to_play)
    if config[C_PARTNERSHIP] and bids[partner] == 0 and won[partner] == 0:
        beat = (high_beat if following else cheap_beat) if has_beat else low
        partner_to_play = trick[partner] < 0 and partner != seat
        choice = _cover_nil(
            choice, legal, top_unseen, lead, partner_to_play, partner_winning, beat, cheap_beat if has_beat else low
        )
    if bids[seat] == 0 and won[seat] == 0:
        choice = low if lead else duck
    return choice


@njit(cache=True, inline="always")
def _beating(legal, win_power, led_lane):
    """The legal cards (suit lanes) that beat the trick's winning card of ``win_power`` (a trump: higher trumps;
    else higher cards of the led suit, and any trump)."""
    ruffed = win_power >= TRUMP_POWER
    spade_floor = above(win_power - TRUMP_POWER if ruffed else -1)
    in_led = 0 if ruffed else legal[led_lane] & above(min(max(win_power, -1), 12))
    return (
        in_led if led_lane == 0 else 0,
        in_led if led_lane == 1 else 0,
        in_led if led_lane == 2 else 0,
        (legal[SPADES] & spade_floor) | (in_led if led_lane == SPADES else 0),
    )


@njit(cache=True, inline="always")
def _trick_winner(trick, n, led):
    """(power, seat) of the card winning the trick so far (``trick_power``; -1, 0 when none is played)."""
    win_power, win_seat = -1, 0
    for k in range(n):
        power = trick_power(trick[k], led)
        if power > win_power:
            win_power, win_seat = power, k
    return win_power, win_seat


@njit(cache=True, inline="always")
def _wants_to_win(bids, won, side_of_seat, my_side, n, remaining, my_bags, config):
    """Whether the side plays to win tricks: its contract still needs some of the ``remaining`` tricks, or (a
    partnership that sets opponents) theirs can still be set and the side is not two bags from its limit."""
    contract_mine = taken_mine = contract_other = taken_other = 0
    for k in range(n):
        if bids[k] > 0:
            if side_of_seat[k] == my_side:
                contract_mine += bids[k]
                taken_mine += won[k]
            elif side_of_seat[k] == 1 - my_side:
                contract_other += bids[k]
                taken_other += won[k]
    need = contract_mine - taken_mine
    want_win = 0 < need <= remaining
    if config[C_PARTNERSHIP] and config[C_SET_OPPONENTS]:
        opp_need = contract_other - taken_other
        bag_danger = config[C_BAGS] != 0 and my_bags >= config[C_BAG_LIMIT] - 2
        want_win |= 0 < opp_need <= remaining and not bag_danger
    return want_win


@njit(cache=True, inline="always")
def _opponent_nils(bids, won, trick, voids, side_of_seat, my_side, seat, n):
    """(opp_void, nil_holds, any_opp_nil, nil_to_play): suit bits an opponent has shown out of and a live opponent
    nil may still hold; whether an opponent's nil is live, and whether one is still to play to this trick."""
    opp_void = nil_holds = 0
    any_opp_nil = nil_to_play = False
    for k in range(n):
        if side_of_seat[k] != my_side:
            shown_out = (voids >> (4 * k)) & 0xF  # bit s: seat k has shown out of suit s
            opp_void |= shown_out
            if bids[k] == 0 and won[k] == 0:
                any_opp_nil = True
                nil_to_play |= trick[k] < 0 and k != seat
                nil_holds |= ~shown_out & 0xF
    return opp_void, nil_holds, any_opp_nil, nil_to_play


@njit(cache=True, inline="always")
def _attack_nil(choice, legal, nil_holds, low, duck, lead, nil_winning, nil_to_play):
    """Against a live opponent nil: lead low in a suit the nil bidder still holds, duck under it where it is
    winning, play low where it is still to play; else ``choice``."""
    if lead:
        lead_attack, has_attack = lowest_card(lanes_in_suits(legal, nil_holds))
        return lead_attack if has_attack else low
    if nil_winning:
        return duck
    return low if nil_to_play else choice


@njit(cache=True, inline="always")
def _cover_nil(choice, legal, top_unseen, lead, partner_to_play, partner_winning, beat, cheap_beat):
    """Covering a live partner's nil: lead the suit whose top card best covers it, beat the trick before the
    partner plays (``beat``), overtake a partner who is winning as cheaply as possible; else ``choice``."""
    if lead:
        top = (highest(legal[0]), highest(legal[1]), highest(legal[2]), highest(legal[3]))
        t = top_unseen
        cover = (_over(top[0], t[0]), _over(top[1], t[1]), _over(top[2], t[2]), _over(top[3], t[3]) - 5)
        suit = best_suit(legal, cover)
        return card_in(suit, top[suit] if suit >= 0 else -1)
    if partner_to_play:
        return beat
    return cheap_beat if partner_winning else choice


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
