"""The action space of a rule set: every range named in one place.

Layout of ``Discrete(n_actions)``: card actions, then bids, then only the special
actions the rules enable, in this order::

    [0, n_card_ids)                 play card id a (52 ids, or 54 with jokers; see ``spades_env.cards``)
                                    -- in EXCHANGE (two-player blind nil) the same ids give up card a
                                    -- in PASS (Hearts) the same ids choose card a to pass
    [bid_offset, bid_end)           bid a - bid_offset tricks (0 = nil); empty in Hearts (no bidding)
    blind_nil, look                 declare blind nil / look at the hand          (rules.blind_nil)
    keep, discard                   two-player draw: keep / discard the shown card (n_players == 2)
    exchange_done                   two-player blind nil: stop exchanging cards   (n_players == 2, blind_nil)
    no_bemo, little_bemo, big_bemo  Bemo declaration of a side                    (rules.bemo)
    redeal                          show a weak hand and force a redeal           (rules.misdeal_weak_hand)

A special action that the rules do not enable is ``None`` in the layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spades_env import cards
from spades_env.engine import inputs
from spades_env.rules import Rules

#: How ``describe`` names each special action.
SPECIAL_NAMES = {
    "blind_nil": "blind nil",
    "look": "look at cards",
    "keep": "keep the shown card",
    "discard": "discard the shown card",
    "exchange_done": "done exchanging",
    "no_bemo": "no Bemo",
    "little_bemo": "little Bemo (first 6 tricks)",
    "big_bemo": "big Bemo (first 9 tricks)",
    "redeal": "show weak hand: redeal",
}


@dataclass(frozen=True)
class ActionLayout:
    """Where each kind of action lives in the flat discrete action space."""

    n_card_ids: int
    max_bid: int
    specials: tuple[str, ...] = ("blind_nil", "look")
    """Names of the enabled special actions, in id order after the bids."""
    _ids: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        unknown = [s for s in self.specials if s not in SPECIAL_NAMES]
        if unknown:
            raise ValueError(f"unknown special action(s) {unknown}; known: {list(SPECIAL_NAMES)}")
        start = self.n_card_ids + self.max_bid + 1
        object.__setattr__(self, "_ids", {name: start + k for k, name in enumerate(self.specials)})

    @classmethod
    def for_rules(cls, rules: Rules) -> ActionLayout:
        """The layout used by a rule set: the game's bids (none in Hearts: ``max_bid`` -1) and specials."""
        from spades_env.games import spec

        max_bid = spec(rules.game).max_bid(rules)
        return cls(n_card_ids=rules.n_card_ids, max_bid=max_bid, specials=rules.special_actions)

    def special(self, name: str) -> int | None:
        """Action id of a special action, or None when the rules do not enable it."""
        if name not in SPECIAL_NAMES:
            raise ValueError(f"unknown special action {name!r}; known: {list(SPECIAL_NAMES)}")
        return self._ids.get(name)

    @property
    def bid_offset(self) -> int:
        """Action id of a bid of 0 (nil)."""
        return self.n_card_ids

    @property
    def bid_end(self) -> int:
        """One past the last bid action (the first special action, if any)."""
        return self.bid_offset + self.max_bid + 1

    @property
    def blind_nil(self) -> int | None:
        """Action id of 'declare blind nil'."""
        return self._ids.get("blind_nil")

    @property
    def look(self) -> int | None:
        """Action id of 'look at my cards' (no blind nil)."""
        return self._ids.get("look")

    @property
    def keep(self) -> int | None:
        """Two-player draw: keep the shown card (and discard the next)."""
        return self._ids.get("keep")

    @property
    def discard(self) -> int | None:
        """Two-player draw: discard the shown card (and keep the next)."""
        return self._ids.get("discard")

    @property
    def exchange_done(self) -> int | None:
        """Two-player blind nil: stop exchanging cards with the discards."""
        return self._ids.get("exchange_done")

    @property
    def no_bemo(self) -> int | None:
        """Bemo: the side declares nothing; ``little_bemo`` and ``big_bemo`` follow."""
        return self._ids.get("no_bemo")

    @property
    def little_bemo(self) -> int | None:
        """Bemo: the side will take the first 6 tricks."""
        return self._ids.get("little_bemo")

    @property
    def big_bemo(self) -> int | None:
        """Bemo: the side will take the first 9 tricks."""
        return self._ids.get("big_bemo")

    @property
    def redeal(self) -> int | None:
        """Weak-hand misdeal: show the hand and force a redeal."""
        return self._ids.get("redeal")

    @property
    def n_actions(self) -> int:
        """Size of the discrete action space."""
        return self.bid_end + len(self.specials)

    def bid_action(self, bid: int) -> int:
        """Action id for a bid of ``bid`` tricks."""
        bid = inputs.integer(bid, "bid")
        if not 0 <= bid <= self.max_bid:
            raise ValueError(f"bid must be in 0..{self.max_bid}, got {bid}")
        return self.bid_offset + bid

    def describe(self, action: int) -> str:
        """Human-readable name of an action id."""
        action = int(action)
        if 0 <= action < self.n_card_ids:
            return f"play {cards.card_name(action)}"  # (or pass it, in the Hearts pass phase)
        if self.bid_offset <= action < self.bid_end:
            bid = action - self.bid_offset
            return "bid nil" if bid == 0 else f"bid {bid}"
        for name, a in self._ids.items():
            if a == action:
                return SPECIAL_NAMES[name]
        return f"<invalid action {action}>"
