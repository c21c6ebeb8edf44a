"""The action space of a rule set: every range named in one place.

Layout of ``Discrete(n_actions)``::

    [0, n_card_ids)                  play card id a (see ``spades_env.cards``)
    [bid_offset, bid_offset+max_bid] bid a - bid_offset tricks (0 = nil)
    blind_nil                        declare blind nil before looking at the hand
    look                             look at the hand (decline blind nil)
"""

from __future__ import annotations

from dataclasses import dataclass

from spades_env import cards
from spades_env.rules import Rules


@dataclass(frozen=True)
class ActionLayout:
    """Where each kind of action lives in the flat discrete action space."""

    n_card_ids: int
    max_bid: int

    @classmethod
    def for_rules(cls, rules: Rules) -> ActionLayout:
        """The layout used by a rule set."""
        return cls(n_card_ids=cards.N_STANDARD_CARDS, max_bid=rules.hand_size)

    @property
    def bid_offset(self) -> int:
        """Action id of a bid of 0 (nil)."""
        return self.n_card_ids

    @property
    def blind_nil(self) -> int:
        """Action id of 'declare blind nil'."""
        return self.bid_offset + self.max_bid + 1

    @property
    def look(self) -> int:
        """Action id of 'look at my cards' (no blind nil)."""
        return self.blind_nil + 1

    @property
    def n_actions(self) -> int:
        """Size of the discrete action space."""
        return self.look + 1

    def bid_action(self, bid: int) -> int:
        """Action id for a bid of ``bid`` tricks."""
        if not 0 <= bid <= self.max_bid:
            raise ValueError(f"bid must be in 0..{self.max_bid}, got {bid}")
        return self.bid_offset + bid

    def describe(self, action: int) -> str:
        """Human-readable name of an action id."""
        action = int(action)
        if 0 <= action < self.n_card_ids:
            return f"play {cards.card_name(action)}"
        if self.bid_offset <= action <= self.bid_offset + self.max_bid:
            bid = action - self.bid_offset
            return "bid nil" if bid == 0 else f"bid {bid}"
        if action == self.blind_nil:
            return "blind nil"
        if action == self.look:
            return "look at cards"
        return f"<invalid action {action}>"
