"""Card-counting inputs a network derives from its own observation row (``SpadesPolicy(card_features=...)``).

A seat's observation has every fact a card player counts with (its hand, the cards each seat has played, the
trick in progress, the suit led), but the facts that decide a card are functions of many entries at once: which of
my cards is the highest still out in its suit, which of them would take the trick as it stands, who is winning
it. A network can learn those functions, but from a game's reward it learns them slowly (self-play from scratch
plateaus at about 6 points a hand below the heuristic, which counts them exactly). ``CardFeatures`` computes them
in the forward pass from the row, with the engine's own card powers (``TrickTables.power``: trumps and the rank
order of the rules, jokers and all), and the network reads them beside the row:

============  =====  ===========================================================================
name          shape  meaning (C cards, N relative seats)
============  =====  ===========================================================================
``beats``     (C,)   my card would take the trick as it stands (zeros while no card is on it)
``boss``      (C,)   my card has no higher card of its suit still out (in the other hands)
``higher``    (C,)   cards of that suit higher than the card still out, / 13 (every card)
``winning``   (N,)   one-hot relative seat whose card is winning the trick (zeros when empty)
``out_suit``  (4,)   cards of each suit still out, / 13
``my_suit``   (4,)   cards of each suit in my hand, / 13
============  =====  ===========================================================================

"Out" is every card of the deck not in my hand and not played (the other hands, and in the two-player game the pile and
discards as well). The module has no weights (its tables are buffers not saved in a state dict): a checkpoint
keeps only ``card_feature_spec``'s plain dict (block offsets, the power table, the deck) in its hyperparameters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from spades_env import cards

#: The observation blocks the features read (every game's encoder has them).
BLOCKS = ("hand", "played", "trick", "led_suit")

#: Each card's own features (``CardFeatures.forward(per_card=True)``'s second output): beats, boss, higher, rank
#: (1 - higher cards of its suit in the deck / 13), trump, follows (of the suit led, or a trump, once a card is led),
#: the cards of its suit still out and in my hand (/ 13), my lowest and my highest of its suit.
PER_CARD = 10


def card_feature_spec(engine) -> dict[str, Any]:
    """The plain dict that builds ``CardFeatures`` for ``engine``'s rules: the offsets of ``BLOCKS`` in the row a
    seat observes (``perfect_information=False``), the seats, the cards, the engine's (4, C) card powers and the
    deck's cards."""
    from spades_env.observation import encoder_for

    encoder = encoder_for(engine)
    c = engine.layout.n_card_ids
    return {
        "offsets": {name: int(encoder.slices[name].start) for name in BLOCKS},
        "n_players": int(engine.n_players),
        "n_cards": int(c),
        "power": np.asarray(engine.trick_tables.power[:, :c]).tolist(),
        "deck": sorted(int(k) for k in engine.deck),
    }


class CardFeatures(nn.Module):
    """(B, D) observation rows -> (B, ``size``) card-counting inputs (module docstring)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        super().__init__()
        self.spec = spec
        n, c = int(spec["n_players"]), int(spec["n_cards"])
        self.n_players, self.n_cards = n, c
        off = spec["offsets"]
        self.hand = slice(off["hand"], off["hand"] + c)
        self.played = slice(off["played"], off["played"] + n * c)
        self.trick = slice(off["trick"], off["trick"] + n * c)
        self.led = slice(off["led_suit"], off["led_suit"] + 4)
        power = np.asarray(spec["power"], dtype=np.float32)  # (4, C): -1 where the card cannot take a trick
        suit = np.array([cards.card_suit(k) for k in range(c)])
        own = power[suit, np.arange(c)]  # each card's power with its own suit led
        higher = (suit[:, None] == suit[None, :]) & (own[:, None] > own[None, :])  # [k, j]: k beats j in j's suit
        deck = np.zeros(c, np.float32)
        deck[spec["deck"]] = 1.0
        self.register_buffer("deck", torch.as_tensor(deck), persistent=False)
        self.register_buffer("power", torch.as_tensor(power), persistent=False)
        self.register_buffer("higher_of", torch.as_tensor(higher.astype(np.float32)), persistent=False)
        self.register_buffer("suit_of", torch.as_tensor(np.eye(4, dtype=np.float32)[suit]), persistent=False)
        above = (higher * deck[:, None]).sum(0)  # [j]: cards of the deck higher than j in its suit
        self.register_buffer("rank", torch.as_tensor(1.0 - above / 13.0), persistent=False)
        self.register_buffer("trump", torch.as_tensor((power >= 100).any(0).astype(np.float32)), persistent=False)
        self.size = 3 * c + n + 8

    def forward(self, obs: torch.Tensor, per_card: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(B, ``size``) the inputs the torsos read beside the row, and with ``per_card`` (B, ``PER_CARD``, C) each
        card's own features (for ``SpadesPolicy(card_feature_logits=True)``; else None)."""
        n, c = self.n_players, self.n_cards
        hand = obs[:, self.hand]
        played = obs[:, self.played].reshape(-1, n, c).sum(1)
        trick = obs[:, self.trick].reshape(-1, n, c)
        out = (self.deck - hand - played).clamp(min=0.0)
        higher = out @ self.higher_of  # (B, C): higher cards of the card's suit still out
        boss = hand * (higher < 0.5)
        # Power of every card under the suit led (+1, so that 0 means "cannot take it" or "nothing led").
        led_power = obs[:, self.led] @ (self.power + 1.0)  # (B, C)
        seat_power = (trick * led_power[:, None, :]).sum(-1)  # (B, N): 0 for a seat with no card on the trick
        best = seat_power.max(-1, keepdim=True).values
        on_trick = (best > 0).float()
        winning = (seat_power == best).float() * on_trick
        beats = hand * (led_power > best).float() * on_trick
        out_suit, my_suit = out @ self.suit_of / 13.0, hand @ self.suit_of / 13.0
        flat = torch.cat([beats, boss, higher / 13.0, winning, out_suit, my_suit], dim=-1)
        if not per_card:
            return flat, None
        lowest = hand * ((hand @ self.higher_of.T) < 0.5)  # none of my cards of its suit is lower
        highest = hand * ((hand @ self.higher_of) < 0.5)  # none of mine is higher
        own = torch.stack(
            [
                beats,
                boss,
                higher / 13.0,
                self.rank.expand_as(hand),
                self.trump.expand_as(hand),
                (led_power > 0).float(),  # follows the suit led, or trumps it
                out_suit @ self.suit_of.T,
                my_suit @ self.suit_of.T,
                lowest,
                highest,
            ],
            dim=1,
        )
        return flat, own
