"""Tricks' rules: the fields every game has, with its own defaults (no option of its own)."""

from __future__ import annotations

from typing import ClassVar

from spades_env.rules_base import BaseRules, rules_class


@rules_class
class TricksRules(BaseRules):
    """One rule set of Tricks (see ``tests/toy_game``)."""

    GAME: ClassVar[str] = "tricks"
    ENV_NAME: ClassVar[str] = "tricks_v0"
    PLAYERS: ClassVar[tuple[int, int]] = (4, 4)

    game: str = "tricks"
    n_players: int = 4
    partnership: bool = False
    target_score: int = 26
    max_hands: int | None = None
