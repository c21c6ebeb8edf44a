"""``TableFacts``: the facts of a rule set's table that a game's spec reads (``games.game_spec.GameSpec``'s hooks
take them, not the engine): the rules, the action layout, the seats and sides, the deck and pile, the pass
directions and the card-play tables.

The engine sits above the games (the layering contract): a spec never reaches back into the engine object, and a
game folder depends on ``core`` and its own rules only. The engine builds one ``TableFacts`` in ``__init__``
(``table_facts``) and passes it to the hooks; the arrays in it are built once, never per call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from spades_env import cards

if TYPE_CHECKING:
    from spades_env.core.trick_play import TrickTables
    from spades_env.engine.actions import ActionLayout
    from spades_env.rules_base import BaseRules

I64 = np.int64


class TableFacts(NamedTuple):
    """What a rule set's table is, for its game's spec (built once per engine by ``table_facts``)."""

    rules: BaseRules
    """The rule set."""
    layout: ActionLayout
    """Its action space (``engine.actions.ActionLayout``)."""
    n_players: int
    n_sides: int
    hand_size: int
    deck: tuple[int, ...]
    """The card ids of the deck."""
    lowest_club: int
    """The deck's lowest club (the first lead where the lowest club leads)."""
    side_of_seat: np.ndarray
    """(N,) int64: the side of each seat."""
    partner: np.ndarray | None
    """(N,) int64: each seat's partner (None without partnerships)."""
    pile_size: int
    """The cards of the two-player pile (0: a deal, no pile)."""
    pass_offsets: np.ndarray
    """(4,) int64: seats from passer to receiver by hand number mod 4 (all 0 in a game without a pass)."""
    trick_tables: TrickTables
    """The card-play tables (``core.trick_play.TrickTables``): the card points among them."""

    def pass_offset(self, hand_number: np.ndarray) -> np.ndarray:
        """Seats from passer to receiver (clockwise) by hand number, int64 of its shape: 0 where none passes."""
        return self.pass_offsets[np.asarray(hand_number, dtype=I64) % 4]


def lowest_club(deck: tuple[int, ...]) -> int:
    """The lowest club of ``deck`` (its card id): the first lead under ``lowest_club_leads`` and in Hearts."""
    return min(c for c in deck if cards.card_suit(c) == cards.CLUBS)


def table_facts(
    rules: BaseRules, layout: ActionLayout, trick_tables: TrickTables, pass_offsets: tuple[int, ...]
) -> TableFacts:
    """The ``TableFacts`` of ``rules``, with its action ``layout``, its card-play ``trick_tables`` and its game's
    ``pass_offsets`` (``GameSpec.pass_offsets``)."""
    n = rules.n_players
    seats = np.arange(n, dtype=I64)
    return TableFacts(
        rules=rules,
        layout=layout,
        n_players=n,
        n_sides=rules.n_sides,
        hand_size=rules.hand_size,
        deck=rules.deck,
        lowest_club=lowest_club(rules.deck),
        side_of_seat=np.array([rules.side_of_seat(s) for s in range(n)], dtype=I64),
        partner=(seats + 2) % n if rules.partnership else None,
        pile_size=len(rules.deck) if rules.two_player else 0,
        pass_offsets=np.array(pass_offsets, dtype=I64),
        trick_tables=trick_tables,
    )
