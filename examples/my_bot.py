"""An example bot written outside the package (docs/your-bot.md), deciding from its seat's observation and the legal
actions only: it bids one trick per ace, per king and per spade beyond the third, and plays its highest card when
that card takes the trick so far, else its lowest. ``spades tournament --bots examples.my_bot:MyBot,heuristic``."""

import numpy as np

from agents import Agent
from spades_env.observation import encoder_for

CARD = np.arange(54)  # card id = suit * 13 + rank (clubs, diamonds, hearts, spades), then the two jokers
RANK = np.where(CARD < 52, CARD % 13, CARD - 39)  # 0 = two .. 12 = ace; the jokers 13 and 14
SUIT = np.minimum(CARD // 13, 3)  # the jokers are spades


class MyBot(Agent):
    name = "my-bot"
    uses_observations = True  # without it, act gets None for observations

    def unsupported_reason(self, engine):
        if engine.rules.has_bidding:
            return None
        return f"my-bot bids: it needs a game with bidding, not {engine.rules.name!r}"

    def act(self, observations, masks, context):
        layout, view = context.engine.layout, encoder_for(context.engine).view
        n = layout.n_card_ids
        cards = masks[:, :n]  # the legal cards (to play, or to pass in an exchange)
        led = view(observations, "led_suit")[:, SUIT[:n]] > 0  # (B, n): is the card of the suit led?
        power = RANK[:n] + 20 * led + 40 * (SUIT[:n] == 3)  # a spade beats the suit led, which beats the rest
        best_on_table = np.where(view(observations, "trick").max(axis=1) > 0, power, -1).max(axis=1)
        high, low = np.where(cards, power, -1).argmax(axis=1), np.where(cards, power, 99).argmin(axis=1)
        play = np.where(power[np.arange(len(masks)), high] > best_on_table, high, low)

        hand = view(observations, "hand") > 0
        want = (hand & (RANK[:n] >= 11)).sum(axis=1) + np.maximum(0, (hand & (SUIT[:n] == 3)).sum(axis=1) - 3)
        want = np.maximum(want, 1)[:, None]
        bids, level = masks[:, layout.bid_offset : layout.bid_end], np.arange(layout.bid_end - layout.bid_offset)
        distance = 2 * np.abs(level - want) + (level < want)  # the nearest legal bid, the higher one of two
        bid = layout.bid_offset + np.where(bids, distance, 999).argmin(axis=1)

        other = masks.argmax(axis=1)  # blind nil, Bemo, the two-player draw: look, no Bemo, keep the card
        for safe in (layout.look, layout.no_bemo, layout.keep):
            other = other if safe is None else np.where(masks[:, safe], safe, other)
        return np.select([cards.any(axis=1), bids.any(axis=1)], [play, bid], other)
