"""The action space of a rule set: every range named in one place.

Layout of ``Discrete(n_actions)``: card actions, then bids, then only the special
actions the rules enable, in the order their game declares them::

    [0, n_card_ids)                 play card id a (52 ids, or 54 with jokers; see ``spades_env.cards``)
                                    -- in a phase where the game sets a card aside (``GameSpec.hidden_card_verb``:
                                       a pass, a card given up) the same ids choose card a
    [bid_offset, bid_end)           bid a - bid_offset tricks (0 = nil); empty in a game without bidding
    [bid_end, n_actions)            the special actions the rules enable (``Rules.special_actions``)

Each game declares its special actions and how ``describe`` names them (``GameSpec.special_actions``; Spades:
blind nil, the two-player draw and exchange, Bemo, the weak-hand redeal); the engine names none. A special
action is read by name, ``layout.special("look")`` or ``layout.look``: its id, or ``None`` where the rules do
not enable it (any registered game's special action may be asked of any layout).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spades_env import cards, games
from spades_env.engine import inputs
from spades_env.rules import Rules


def known_specials() -> dict[str, str]:
    """Every registered game's special actions, by name, each with how ``describe`` names it (in registry and
    declaration order); ValueError where two games name one special action differently."""
    known: dict[str, str] = {}
    for game in games.GAMES:
        for name, text in games.spec(game).special_actions:
            if known.setdefault(name, text) != text:
                raise ValueError(f"games name the special action {name!r} differently: {known[name]!r}, {text!r}")
    return known


@dataclass(frozen=True)
class ActionLayout:
    """Where each kind of action lives in the flat discrete action space."""

    n_card_ids: int
    max_bid: int
    specials: tuple[str, ...] = ()
    """Names of the enabled special actions, in id order after the bids."""
    _ids: dict[str, int] = field(init=False, repr=False, compare=False)
    _names: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        known = known_specials()
        unknown = [s for s in self.specials if s not in known]
        if unknown:
            raise ValueError(f"unknown special action(s) {unknown}; known: {list(known)}")
        start = self.n_card_ids + self.max_bid + 1
        object.__setattr__(self, "_ids", {name: start + k for k, name in enumerate(self.specials)})
        object.__setattr__(self, "_names", known)

    @classmethod
    def for_rules(cls, rules: Rules) -> ActionLayout:
        """The layout used by a rule set: the game's bids (none without bidding: ``max_bid`` -1) and the special
        actions the rules enable, each one the game declares (``GameSpec.special_actions``)."""
        game = games.spec(rules.game)
        declared = [name for name, _ in game.special_actions]
        undeclared = [s for s in rules.special_actions if s not in declared]
        if undeclared:
            raise ValueError(f"special action(s) {undeclared} not declared by game {rules.game!r}: {declared}")
        return cls(n_card_ids=rules.n_card_ids, max_bid=game.max_bid(rules), specials=rules.special_actions)

    def special(self, name: str) -> int | None:
        """Action id of a special action, or None when the rules do not enable it."""
        if name not in self._names:
            raise ValueError(f"unknown special action {name!r}; known: {list(self._names)}")
        return self._ids.get(name)

    def __getattr__(self, name: str) -> int | None:
        """``layout.<special action>``: ``special(name)`` for any registered game's special action (``layout.look``)."""
        if name.startswith("_") or name not in self.__dict__.get("_names", ()):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
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
            return f"play {cards.card_name(action)}"  # (or set it aside: a pass, a card given up)
        if self.bid_offset <= action < self.bid_end:
            bid = action - self.bid_offset
            return "bid nil" if bid == 0 else f"bid {bid}"
        for name, a in self._ids.items():
            if a == action:
                return self._names[name]
        return f"<invalid action {action}>"
