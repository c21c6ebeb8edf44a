"""Spades' own overrides of new matches (``SpadesEngine.reset(..., bags=, piles=, face_ups=)``; the engine asks
``GameSpec.start_options`` and the spec's hooks, which call these): the starting bags of each side, the two-player
draw pile (instead of a deal) and, under ``face_up_deal``, the cards of each given hand dealt face up [RULES 3, 4, 6].
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from spades_env import cards
from spades_env.core import bits
from spades_env.core.errors import EngineInputError
from spades_env.core.inputs import card_id, deal_masks, per_side

if TYPE_CHECKING:
    from spades_env.engine.state import GameState
    from spades_env.games.spades.rules import SpadesRules

I64 = np.int64
#: The names ``reset`` and ``start_matches`` take for them, besides every game's.
START_OPTIONS = ("bags", "piles", "face_ups")
#: Why two-player takes no ``deals`` override (``GameSpec.deals_refused``).
DEALS_REFUSED = "two-player Spades has no deal: give the draw pile order with 'piles' instead of 'deals'"


def check_starts(
    rules: SpadesRules,
    max_bags: int,
    face_up_count: int,
    n: int,
    deck: tuple[int, ...],
    hand_size: int,
    pile_size: int,
    deals: np.ndarray | None,
    options: dict[str, Any],
) -> dict[str, Any]:
    """The checked ``options`` (``START_OPTIONS`` given, not None) of ``n`` new matches: bags 0..``max_bags`` per
    side, piles (two-player only) orderings of the deck, face-up cards ``face_up_count`` cards of each hand of the
    ``deals`` given ((n, N) masks, checked; None: not given)."""
    if "piles" in options and not rules.two_player:
        raise EngineInputError("'piles' is only for two-player Spades (n_players 2); give 'deals' instead")
    out: dict[str, Any] = {}
    if "bags" in options:
        out["bags"] = per_side(options["bags"], n, rules.n_sides, "bags", 0, max_bags)
    if "piles" in options:
        out["piles"] = pile_array(options["piles"], n, pile_size)
        check_pile(out["piles"], deck)
    if "face_ups" in options:
        out["face_ups"] = _face_ups(rules, face_up_count, options["face_ups"], deals, deck)
    return out


def start_deals(state: GameState, g: np.ndarray, own: dict[str, Any], n_players: int) -> np.ndarray | None:
    """Two-player with ``piles``: the draw pile of games ``g`` set in ``state``, and their (empty) first hands
    (G, N); else None (the deal is the engine's: seeded, or the ``deals`` given)."""
    if "piles" not in own:
        return None
    state.pile[g] = own["piles"]
    return np.zeros((len(g), n_players), np.uint64)


def started_hands(state: GameState, cells: np.ndarray, own: dict[str, Any]) -> None:
    """After the first hands' set-up: the ``face_ups`` given replace the face-up cards the deal drew (nothing else
    of the hand's start reads them); ``cells``: the flat (game, seat) cells of the new matches."""
    if "face_ups" in own:
        state.face_up.reshape(-1)[cells] = own["face_ups"]


def _face_ups(
    rules: SpadesRules, count: int, face_ups: Any, deals: np.ndarray | None, deck: tuple[int, ...]
) -> np.ndarray:
    """(n, n_players) uint64 face-up cards: ``count`` cards of each hand of ``deals`` (checked masks) [RULES 6]."""
    if count == 0:
        raise EngineInputError("'face_ups' is only for rules with face_up_deal (these deal no card face up)")
    if deals is None:
        raise EngineInputError("'face_ups' needs 'deals': the face-up cards are cards of the hands given")
    masks = deal_masks(face_ups, len(deals), rules.n_players, deck, name="face_ups")
    bad = np.argwhere((bits.popcount(masks) != count) | ((masks & ~deals) != 0))
    if len(bad):
        g, seat = (int(x) for x in bad[0])
        raise EngineInputError(
            f"face_ups[{g}][{seat}] must be {count} cards of that seat's hand in deals, got "
            f"{cards.format_hand(int(masks[g, seat])) or 'none'}"
        )
    return masks


def pile_array(piles: Any, n: int, pile_size: int) -> np.ndarray:
    """(n, pile_size) int64 card ids (top of the pile first) from ids or card names."""
    if isinstance(piles, np.ndarray) and piles.dtype.kind in "iu":
        arr = piles.astype(I64)
    else:
        try:
            arr = np.array([[card_id(c, f"piles[{i}]") for c in pile] for i, pile in enumerate(piles)], dtype=I64)
        except (TypeError, ValueError) as err:
            if isinstance(err, EngineInputError):
                raise
            raise EngineInputError(
                f"piles must be {n} lists of the {pile_size} cards of the deck (card ids or names)"
            ) from None
    if arr.shape != (n, pile_size):
        raise EngineInputError(f"piles must have shape ({n}, {pile_size}) (games, cards), got {arr.shape}")
    return arr


def check_pile(pile: np.ndarray, deck: tuple[int, ...]) -> None:
    """Refuse piles that are not orderings of ``deck``."""
    bad = np.flatnonzero(np.any(np.sort(pile, axis=1) != np.array(deck), axis=1))
    if len(bad):
        raise EngineInputError(f"piles[{int(bad[0])}] is not an ordering of the {len(deck)} cards of the deck")
