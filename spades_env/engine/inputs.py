"""Checks of the overrides of new matches (``SpadesEngine.reset``, ``start_matches``): every game's (``deals``,
``dealers``, ``scores``, ``hand_numbers``) here, a game's own by its spec (``GameSpec.start_options``,
``check_starts``: Spades' ``bags``, ``piles``, ``face_ups``); the checks of seeds, actions and integers are the
core's (``core.inputs``, re-exported here). A refused input raises ``EngineInputError`` (a ``ValueError``;
``TypeError`` for the wrong kind of value or an unknown option, as ``EngineInputTypeError``), with a one-line
message naming the argument and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from spades_env.core.errors import EngineInputError, EngineInputTypeError
from spades_env.core.inputs import (
    SEED_MAX,
    action_array,
    card_id,
    check_deal,
    deal_masks,
    integer,
    per_game,
    per_side,
    seed_array,
)

if TYPE_CHECKING:
    from spades_env.games.game_spec import GameSpec
    from spades_env.rules import Rules

__all__ = [
    "SEED_MAX",
    "EngineInputError",
    "EngineInputTypeError",
    "MatchStarts",
    "action_array",
    "card_id",
    "check_deal",
    "deal_masks",
    "integer",
    "match_starts",
    "per_game",
    "per_side",
    "seed_array",
]

I64 = np.int64
#: The overrides of new matches every game takes (a game adds its own: ``GameSpec.start_options``).
COMMON_STARTS = ("deals", "dealers", "scores", "hand_numbers")


@dataclass
class MatchStarts:
    """The checked per-game overrides of new matches (None or 0: the engine's own)."""

    dealers: np.ndarray | None = None
    scores: np.ndarray | int = 0
    hand_numbers: np.ndarray | int = 0
    deals: np.ndarray | None = None
    own: dict[str, Any] = field(default_factory=dict)
    """The game's own overrides, checked (``GameSpec.check_starts``), by name; an option not given is absent."""


def match_starts(
    rules: Rules,
    spec: GameSpec,
    n: int,
    deck: tuple[int, ...],
    hand_size: int,
    pile_size: int,
    *,
    deals=None,
    dealers=None,
    scores=None,
    hand_numbers=None,
    own: dict[str, Any] | None = None,
) -> MatchStarts:
    """Check the overrides of ``n`` new matches: only states ``check.check_state`` accepts come out.

    The scores (after ``hand_numbers`` hands) must not already end the match, as they would at the end of a hand
    [RULES 3, 7]. ``own``: the game's own overrides by name (None values left out), which its spec checks
    (``GameSpec.check_starts``, given the checked ``deals``); a name that is none of the game's is refused naming
    the options the game takes, ``deals`` where the game takes none (``GameSpec.deals_refused``: two-player).
    """
    own = {k: v for k, v in (own or {}).items() if v is not None}
    unknown = sorted(set(own) - set(spec.start_options))
    if unknown:
        allowed = ", ".join((*COMMON_STARTS, *spec.start_options))
        raise EngineInputTypeError(
            f"new matches of game {rules.game!r} ({rules.name}) take no option {unknown[0]!r}; its options: {allowed}"
        )
    refused = spec.deals_refused(rules) if deals is not None else ""
    if refused:
        raise EngineInputError(refused)
    out = MatchStarts()
    if dealers is not None:
        out.dealers = per_game(dealers, n, "dealers", 0, rules.n_players - 1)
    if hand_numbers is not None:
        out.hand_numbers = per_game(hand_numbers, n, "hand_numbers", 0)
    if scores is not None:
        out.scores = per_side(scores, n, rules.n_sides, "scores")
    if scores is not None or hand_numbers is not None:
        _check_match_goes_on(rules, spec, n, out.scores, out.hand_numbers)
    if deals is not None:
        out.deals = deal_masks(deals, n, rules.n_players, deck)
        check_deal(out.deals, deck, hand_size)
    if own:
        out.own = spec.check_starts(rules, n, deck, hand_size, pile_size, out.deals, own)
    return out


def _check_match_goes_on(rules: Rules, spec: GameSpec, n: int, scores, hand_numbers) -> None:
    """Refuse starting scores (after ``hand_numbers`` hands) at which the match is already over."""
    scores = np.broadcast_to(np.asarray(scores, dtype=I64), (n, rules.n_sides))
    played = np.broadcast_to(np.asarray(hand_numbers, dtype=I64), (n,))
    winner = spec.match_winner(rules, scores, played)
    over = np.flatnonzero(winner >= 0)
    if len(over):
        g = int(over[0])
        ends = spec.match_ends(rules)
        raise EngineInputError(
            f"scores {scores[g].tolist()} of game {g} (after {int(played[g])} hands) already end the match "
            f"({', '.join(ends)}): side {int(winner[g])} has won; give the scores of a match still going on"
        )
