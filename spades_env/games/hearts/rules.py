"""Hearts rules [RULES 7]: ``HeartsRules``, its options (``moon_subtracts``, ``jack_of_diamonds``)
with their fixed defaults, and their validation. Build them with ``HeartsRules(...)``,
``Rules.preset("hearts")`` or any mapping with ``game: hearts`` (``Rules.from_dict``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from spades_env.rules_base import BaseRules, rules_class
from spades_env.rules_check import check_bool


@rules_class
class HeartsRules(BaseRules):
    """The options of one Hearts rule set [RULES 7]; validated when constructed. It has no Spades
    option: one given (``blind_nil``, ``bags``, a house variant, ...) is refused naming it."""

    GAME: ClassVar[str] = "hearts"
    POINTS_ARE_PENALTIES: ClassVar[bool] = True
    HAS_PASSING: ClassVar[bool] = True
    ENV_NAME: ClassVar[str] = "hearts_v0"
    PLAYERS: ClassVar[tuple[int, int]] = (4, 4)
    LEGACY_NEUTRAL: ClassVar[dict[str, Any]] = {"moon_subtracts": False, "jack_of_diamonds": False}
    """What an old Spades rule set held in the Hearts fields."""

    game: str = "hearts"
    """Which game: ``hearts`` ("La reina de picas") [7] (``Rules`` builds ``spades``)."""
    n_players: int = 4
    """Seats at the table: 4 [7]."""
    partnership: bool = False
    """Partners sit opposite (seats 0+2 vs 1+3) and score together [7]; False = each for themselves."""
    target_score: int = 100
    """The match ends when a side reaches this; the lowest score wins [7]."""
    max_hands: int | None = None
    """Time limit: after this many hands the lower score wins [7]; None = no limit."""
    moon_subtracts: bool = False
    """A player who shoots the moon scores -26 instead of giving 26 to every opponent [7]."""
    jack_of_diamonds: bool = False
    """The jack of diamonds is worth -10 points to the player who takes it [7]."""

    def validate(self) -> None:
        """Raise ``RulesError`` naming the field if a Hearts option holds a bad value."""
        super().validate()
        check_bool(self, "moon_subtracts")
        check_bool(self, "jack_of_diamonds")
