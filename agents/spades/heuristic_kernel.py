"""The Spades heuristic's decisions over one game, compiled; ``decide`` runs them over a batch.

The rules and their order are those described in ``agents.heuristic`` (bidding, blind nil,
the two-player draw and exchange, Bemo, the weak-hand redeal [RULES 2-6]; card play is in
``agents.spades.heuristic_play``). Each function reads only what the deciding seat can see:
its hand and the public state. The rule set and the options come as ``config`` and
``tuning`` (``agents.spades.heuristic_config``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.heuristic_lanes import (
    ACE,
    JACK,
    KING,
    NEG,
    QUEEN,
    SPADES,
    count,
    highest,
    lanes_of,
    only_card,
    rank_of,
    suit_of,
)
from agents.spades.heuristic_config import (
    C_AVERAGE,
    C_BAG_LIMIT,
    C_BAGS,
    C_BID_OFFSET,
    C_BLIND_NIL,
    C_CARD_IDS,
    C_DISCARD,
    C_EXCHANGE_DONE,
    C_HAND_SIZE,
    C_KEEP,
    C_LITTLE_BEMO,
    C_LOOK,
    C_MAX_BID,
    C_NO_BEMO,
    C_PARTNERSHIP,
    C_REDEAL,
    C_TOP_TRUMP,
    C_TWO_PLAYER,
    T_BEMO,
    T_BID_BIAS,
    T_BLIND_ALARM,
    T_NIL,
    T_REDEAL,
    T_TWO_PLAYER_BONUS,
)
from agents.spades.heuristic_play import play_choice
from spades_env.engine.state import PLAY
from spades_env.games.spades.params import BEMO, BID, BLIND, DRAW, EXCHANGE


@njit(cache=True)
def estimate_tricks(hand, hand_size, top_trump, average):
    """Expected tricks of a hand, by counting honours, length and shortness (see ``HeuristicAgent``)."""
    lanes = lanes_of(hand)
    deep_limit = max(3, hand_size // 3)
    side_total = 0.0
    shortness = 0.0
    for s in range(4):
        if s == SPADES:
            continue
        length = count(lanes[s])
        ace = (lanes[s] >> ACE) & 1 == 1
        king = (lanes[s] >> KING) & 1 == 1
        queen = (lanes[s] >> QUEEN) & 1 == 1
        deep = 1.0 if length <= deep_limit else 0.0
        tricks = (1.0 if deep else 0.6) if ace else 0.0
        tricks += (0.9 if ace else 0.6) * deep if king and length >= 2 else 0.0
        tricks += 0.35 * deep if queen and length >= 3 and (ace or king) else 0.0
        side_total += tricks
        shortness += (length == 0) * 1.0 + (length == 1) * 0.5 + (length == 2) * 0.2
    spades = lanes[SPADES]
    s_len = count(spades)
    s_ace = (spades >> top_trump) & 1 == 1
    s_king = (spades >> (top_trump - 1)) & 1 == 1
    s_queen = (spades >> (top_trump - 2)) & 1 == 1
    honours = (1.0 if s_ace else 0.0) + (((1.0 if s_ace else 0.8) if s_len >= 2 else 0.3) if s_king else 0.0)
    honours += ((1.0 if s_ace and s_king else 0.6) if s_len >= 3 else 0.1) if s_queen else 0.0
    spade_total = min(s_len, honours + max(0, s_len - average))
    spare = max(0.0, s_len - spade_total)
    return side_total + spade_total + min(shortness, spare) * 0.8


@njit(cache=True)
def blind_choice(scores, my_side, partner_bid, mask, config, tuning):
    """Look at the cards, except blind nil when far behind with the opponents near the target."""
    others = NEG
    for side in range(len(scores)):
        if side != my_side:
            others = max(others, scores[side])
    desperate = others - scores[my_side] >= 200 and others >= tuning[T_BLIND_ALARM]
    if config[C_PARTNERSHIP]:
        desperate = desperate and partner_bid != 0
    return config[C_BLIND_NIL] if desperate and mask[config[C_BLIND_NIL]] else config[C_LOOK]


@njit(cache=True)
def draw_choice(hand, shown, blind_nil, config):
    """Keep the shown card when it is a likely trick (a trump, an ace or king, a queen with a
    companion, a card of the longest side suit of 4+); a blind-nil drawer keeps low side cards."""
    card = max(shown, 0)
    suit, rank = suit_of(card), rank_of(card)
    trump = suit == SPADES
    lanes = lanes_of(hand)
    suit_len = count(lanes[suit])
    longest = -1
    for s in range(4):
        if s != SPADES:
            longest = max(longest, count(lanes[s]))
    keep = (
        trump
        or rank >= KING
        or (rank == QUEEN and suit_len >= 1)
        or (not trump and suit_len >= 4 and suit_len == longest)
    )
    if blind_nil:
        keep = not trump and rank <= 6
    return config[C_KEEP] if keep else config[C_DISCARD]


@njit(cache=True)
def nil_risk(card):
    """How dangerous a card is to a nil bidder (0: safe enough to keep): trumps from the jack up
    (jokers highest) first, then side aces and kings."""
    suit, rank = suit_of(card), rank_of(card)
    if suit == SPADES:
        return 100 + rank if rank >= JACK else 0
    return 50 + rank if rank >= KING else 0


@njit(cache=True)
def exchange_choice(mask, config):
    """Blind nil: give up the riskiest card (high trumps, then aces and kings), up to 3, then stop."""
    best, card = 0, -1
    for c in range(config[C_CARD_IDS]):
        risk = nil_risk(c)
        if mask[c] and risk > best:
            best, card = risk, c
    return card if card >= 0 else config[C_EXCHANGE_DONE]


@njit(cache=True)
def closest_legal_bid(bid, legal, offset):
    """The legal bid nearest to ``bid`` (ties go up), never nil unless wanted; else the lowest legal
    bid (0 when none). ``legal`` is a mask row, its bids ``legal[offset:offset + n]``."""
    n = len(legal) - offset
    best, choice = 10**6, -1
    for v in range(n):
        if legal[offset + v] and (v > 0 or bid == 0):
            dist = abs(v - bid) * 2 + (1 if v < bid else 0)
            if dist < best:
                best, choice = dist, v
    if choice >= 0:
        return choice
    for v in range(n):
        if legal[offset + v]:
            return v
    return 0


@njit(cache=True)
def bid_choice(hand, partner_bid, bags, mask, config, tuning):
    """Bid the estimated tricks (rounded with the bag count in mind), or nil with a weak hand;
    the closest legal bid where the rules force one; a redeal for a nearly worthless hand."""
    est = estimate_tricks(hand, config[C_HAND_SIZE], config[C_TOP_TRUMP], config[C_AVERAGE])
    bid_est = est + tuning[T_TWO_PLAYER_BONUS] if config[C_TWO_PLAYER] else est
    near_limit = config[C_BAGS] != 0 and bags >= config[C_BAG_LIMIT] - 3
    want = np.int64(np.floor(bid_est + tuning[T_BID_BIAS] + (0.35 if near_limit else 0.0)))
    max_bid = config[C_MAX_BID]
    want = min(max(want, 1), max_bid)
    if config[C_PARTNERSHIP]:
        room = max_bid - max(partner_bid, 0)
        want = min(max(want, 1), max(room, 1))
    # Nil: few tricks, no ace, no dangerous spades, high side cards guarded by length.
    lanes = lanes_of(hand)
    exposed = has_ace = False
    for s in range(4):
        top = highest(lanes[s])
        exposed |= s != SPADES and top >= QUEEN and count(lanes[s]) <= 3
        has_ace |= top >= ACE
    nil = est <= tuning[T_NIL] and count(lanes[SPADES]) <= 3 and highest(lanes[SPADES]) < config[C_TOP_TRUMP] - 2
    nil = nil and not exposed and not has_ace and (partner_bid == -1 or partner_bid >= 3)
    offset = config[C_BID_OFFSET]
    out = closest_legal_bid(0 if nil else want, mask[: offset + max_bid + 1], offset) + offset
    redeal = config[C_REDEAL]
    if redeal >= 0 and mask[redeal] and est < tuning[T_REDEAL] and not nil and partner_bid < 4:
        return redeal
    return out


@njit(cache=True)
def bemo_choice(hand, bids, side_of_seat, my_side, mask, config, tuning):
    """Little Bemo only with about 7 tricks in hand and a side contract of 10+ with no nil; never big Bemo."""
    est = estimate_tricks(hand, config[C_HAND_SIZE], config[C_TOP_TRUMP], config[C_AVERAGE])
    contract = 0
    nil = False
    for k in range(len(bids)):
        if side_of_seat[k] == my_side:
            contract += max(bids[k], 0)
            nil |= bids[k] == 0
    go = est >= tuning[T_BEMO] and contract >= 10 and not nil and mask[config[C_LITTLE_BEMO]]
    return config[C_LITTLE_BEMO] if go else config[C_NO_BEMO]


@njit(cache=True)
def decide(phase, hands, deal, trick, n_in_trick, led_suit, n_tricks, tricks_won, bids, blind, voids, scores, bags,
           shown, discards, games, seats, masks, side_of_seat, partner, deck, config, tuning):  # fmt: skip
    """(K,) int64: the heuristic's action for each decision k (game ``games[k]``, seat ``seats[k]``,
    legal actions ``masks[k]``) of a batched state given field by field; 0 outside the Spades phases."""
    out = np.zeros(len(games), np.int64)
    for k in range(len(games)):
        g, seat = games[k], seats[k]
        p = phase[g]
        my_side = side_of_seat[seat]
        partner_bid = bids[g, partner[seat]] if config[C_PARTNERSHIP] else -1
        forced = only_card(masks[k], config[C_CARD_IDS]) if p == PLAY else -1
        if forced >= 0:  # one legal card: what every legal choice plays (no rules to run)
            out[k] = forced
        elif p == PLAY:
            out[k] = play_choice(hands[g], deal[g], trick[g], n_in_trick[g], led_suit[g], n_tricks[g], tricks_won[g],
                                 bids[g], blind[g], voids[g], bags[g, my_side], discards[g, seat], seat, masks[k],
                                 side_of_seat, partner, deck, config)  # fmt: skip
        elif p == BID:
            out[k] = bid_choice(hands[g, seat], partner_bid, bags[g, my_side], masks[k], config, tuning)
        elif p == BLIND:
            out[k] = blind_choice(scores[g], my_side, partner_bid, masks[k], config, tuning)
        elif p == DRAW:
            out[k] = draw_choice(hands[g, seat], shown[g], blind[g, seat], config)
        elif p == EXCHANGE:
            out[k] = exchange_choice(masks[k], config)
        elif p == BEMO:
            out[k] = bemo_choice(hands[g, seat], bids[g], side_of_seat, my_side, masks[k], config, tuning)
    return out


@njit(cache=True)
def estimate_tricks_of(hands, hand_size, top_trump, average):
    """(B,) float64: ``estimate_tricks`` of each of B hands (uint64)."""
    out = np.empty(len(hands))
    for i in range(len(hands)):
        out[i] = estimate_tricks(hands[i], hand_size, top_trump, average)
    return out


@njit(cache=True)
def closest_legal_bids(bids, legal):
    """(B,) int64: ``closest_legal_bid`` of each wanted bid, ``legal`` (B, bids) the legal bids."""
    out = np.empty(len(bids), np.int64)
    for i in range(len(bids)):
        out[i] = closest_legal_bid(bids[i], legal[i], 0)
    return out
