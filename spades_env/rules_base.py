"""``BaseRules``: the fields and derived facts every game's rule set has, and the construction that
picks the game's class (``from_dict``, ``from_yaml``, ``preset``: ``game: hearts`` gives ``HeartsRules``).

Each game defines its rules class in its folder (``games/spades/rules.py``: ``SpadesRules``, which
``spades_env.rules`` exports as ``Rules``; ``games/hearts/rules.py``: ``HeartsRules``) with the
``rules_class`` decorator: a frozen dataclass with its own options, fixed defaults and validation,
registered under its game. A field of another game is refused naming the field and both games.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from spades_env import cards
from spades_env.rules_check import DEFAULT_GAME, RulesError, check_bool, check_int, game_names, shown
from spades_env.rules_yaml import load_mapping, preset_bytes, preset_name

#: Twos removed so the deck divides evenly, by player count [RULES 5].
REMOVED_TWOS = {2: (), 3: (cards.CLUBS,), 4: (), 5: (cards.CLUBS, cards.DIAMONDS), 6: (0, 1, 2, 3)}
#: The rules class of each game (``rules_class`` fills it when the game's module is imported).
RULES_CLASSES: dict[str, type[BaseRules]] = {}


def _rules_class_of(game: Any) -> type[BaseRules]:
    """The rules class of ``game`` (importing the game's rules module); RulesError for another value."""
    games = game_names()
    if game not in games:
        raise RulesError(f"rules field 'game' must be one of {games}, got {shown(game)}")
    if game not in RULES_CLASSES:
        importlib.import_module("spades_env.games").part(game, "rules")  # its ``rules_class`` registers it
    return RULES_CLASSES[game]


def refuse_fields(names, source: str, cls: type[BaseRules]) -> None:
    """A RulesError if ``names`` holds a field ``cls`` lacks: an option of another game is named with
    that game; any other unknown field is listed with the known ones."""
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(names) - known)
    for name in unknown:
        for game in game_names():
            other = _rules_class_of(game)
            if other is not cls and name in {f.name for f in dataclasses.fields(other)}:
                raise RulesError(
                    f"{source}: rules field {name!r} is {other.option_kind(name)} and cannot be used with game "
                    f"{cls.GAME!r} (it is for game {game!r}; leave it out)"
                )
    if unknown:
        raise RulesError(f"{source}: unknown rules field(s) {shown(unknown)}; known fields: {sorted(known)}")


def _without_legacy_fields(data: dict[str, Any], target: type[BaseRules]) -> dict[str, Any]:
    """``data`` less the other games' fields at their neutral values when it holds every field of every
    game: the ``to_dict()`` of a rule set from before the rules were split per game (records and
    checkpoints written then). Any other mapping is returned as it is (a stray option is refused)."""
    classes = [_rules_class_of(game) for game in game_names()]
    every = {f.name for c in classes for f in dataclasses.fields(c)}
    if not every <= set(data):
        return data
    own = {f.name for f in dataclasses.fields(target)}
    neutral = {k: v for c in classes if c is not target for k, v in c.LEGACY_NEUTRAL.items() if k not in own}
    return {k: v for k, v in data.items() if not (k in neutral and v == neutral[k])}


def rules_class(cls: type[BaseRules]) -> type[BaseRules]:
    """Make ``cls`` (with ``GAME`` set) a frozen rules dataclass of its game: its constructor refuses
    another game's fields and another ``game`` naming them, and it is registered in ``RULES_CLASSES``."""
    cls = dataclass(frozen=True)(cls)
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        game = kwargs.get("game", cls.GAME)
        if game != cls.GAME and game in game_names():
            builder = _rules_class_of(game).__name__
            raise RulesError(
                f"rules field 'game' is {game!r}, but {cls.__name__} builds {cls.GAME} rules: use "
                f"{builder}(...), Rules.preset({game!r}) or Rules.from_dict({{'game': {game!r}, ...}})"
            )
        refuse_fields(kwargs, cls.__name__, cls)
        init(self, *args, **kwargs)

    cls.__init__ = __init__
    RULES_CLASSES[cls.GAME] = cls
    return cls


@dataclass(frozen=True)
class BaseRules:
    """The fields of every game's rule set; a game's class (``rules_class``) adds its own."""

    GAME: ClassVar[str] = ""
    """The game this class builds rules of."""
    PLAYERS: ClassVar[tuple[int, int]] = (4, 4)
    """The fewest and most seats of the game."""
    LEGACY_NEUTRAL: ClassVar[dict[str, Any]] = {}
    """This game's own fields as a rule set of another game held them before the rules were split
    per game (one class for both): the values an old record or checkpoint carries (``from_dict``)."""

    name: str = "custom"
    """Free-form label, e.g. the preset name; not a rule."""
    game: str = ""
    """Which game: ``spades`` [1-6] or ``hearts`` ("La reina de picas") [7]."""
    n_players: int = 4
    """Seats at the table [1, 4, 5, 7]."""
    partnership: bool = True
    """Partners sit opposite (seats 0+2 vs 1+3) and score together [1, 7]."""
    target_score: int = 500
    """The score at which the match ends [3, 7]."""
    max_hands: int | None = None
    """Time limit: after this many hands the match ends [3, 7]; None = no limit."""

    def __post_init__(self) -> None:
        self.validate()

    # ------------------------------------------------------------ validation
    def validate(self) -> None:
        """Raise ``RulesError`` naming the field if a field has a bad value (the game adds its checks)."""
        if not isinstance(self.name, str):
            raise RulesError(f"rules field 'name' must be a string, got {shown(self.name)}")
        if self.game not in (games := game_names()):
            raise RulesError(f"rules field 'game' must be one of {games}, got {shown(self.game)}")
        check_bool(self, "partnership")
        lo, hi = self.PLAYERS
        if lo == hi and self.n_players != lo:
            raise RulesError(
                f"rules field 'n_players' must be {lo} for game {self.GAME!r}, got {shown(self.n_players)}"
            )
        check_int(self, "n_players", lo, hi)
        check_int(self, "target_score", 1)
        check_int(self, "max_hands", 1, optional=True)

    @classmethod
    def option_kind(cls, name: str) -> str:
        """How a message names the field ``name`` of this game (``a Spades option``)."""
        return f"a {cls.GAME.capitalize()} option"

    # ----------------------------------------------------------------- the game's facts
    #: Points are penalties (Hearts): fewer is better, a reward is minus the points, reports sort upward.
    POINTS_ARE_PENALTIES: ClassVar[bool] = False
    #: The players bid a contract before the cards are played (Spades).
    HAS_BIDDING: ClassVar[bool] = False
    #: The players pass cards to each other before the play (Hearts).
    HAS_PASSING: ClassVar[bool] = False
    #: The PettingZoo env's name for this game (``metadata["name"]``).
    ENV_NAME: ClassVar[str] = "spades_v0"

    @property
    def points_are_penalties(self) -> bool:
        """Fewer points is better (the game's fact, ``POINTS_ARE_PENALTIES``): the one place callers ask it."""
        return self.POINTS_ARE_PENALTIES

    @property
    def has_bidding(self) -> bool:
        """The game has a bidding phase (``HAS_BIDDING``)."""
        return self.HAS_BIDDING

    @property
    def has_passing(self) -> bool:
        """The game has a passing phase (``HAS_PASSING``)."""
        return self.HAS_PASSING

    # ----------------------------------------------------------------- derived
    @property
    def n_sides(self) -> int:
        """Scoring sides: 2 partnerships, or one per player."""
        return 2 if self.partnership else self.n_players

    def side_of_seat(self, seat: int) -> int:
        """Which side a seat scores for."""
        return seat % 2 if self.partnership else seat

    @property
    def two_player(self) -> bool:
        """Two-player Spades: no deal, the hands are drawn from a pile [4]."""
        return self.n_players == 2

    def _removed_twos(self) -> tuple[int, ...]:
        """The suits whose two leaves the deck [RULES 5]."""
        return REMOVED_TWOS[self.n_players]

    def _jokers(self) -> tuple[int, ...]:
        """The jokers added to the deck (none but in Spades' ``jokers`` variant)."""
        return ()

    @property
    def deck(self) -> tuple[int, ...]:
        """Card ids in play, in id order."""
        removed = {suit * cards.N_RANKS for suit in self._removed_twos()}
        return tuple(c for c in range(cards.N_STANDARD_CARDS) if c not in removed) + self._jokers()

    @property
    def n_card_ids(self) -> int:
        """Card actions in the action space: 52, or 54 with the jokers."""
        return cards.N_CARD_IDS if self._jokers() else cards.N_STANDARD_CARDS

    @property
    def cards_drawn(self) -> int:
        """Cards each player takes off the pile in two-player (13 kept + 13 discarded), else 0 [4]."""
        return len(self.deck) // 2 if self.two_player else 0

    @property
    def hand_size(self) -> int:
        """Cards in each player's hand when play starts (dealt, or kept from the draw)."""
        if self.two_player:
            return self.cards_drawn // 2
        return len(self.deck) // self.n_players

    @property
    def special_actions(self) -> tuple[str, ...]:
        """Names of the special (non-card, non-bid) actions these rules enable, in layout order."""
        return ()

    # ------------------------------------------------------------ construction
    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "rules") -> BaseRules:
        """Build from a mapping: the class of its ``game`` (default: this class's game, Spades for
        ``BaseRules``); a field the game lacks fails naming it (and the known fields)."""
        if not isinstance(data, dict):
            raise RulesError(f"{source}: expected a mapping of rules fields, got {type(data).__name__}")
        target = _rules_class_of(data.get("game", cls.GAME or DEFAULT_GAME))
        data = _without_legacy_fields(data, target)
        refuse_fields(data, source, target)
        return target(**data)

    @classmethod
    def from_yaml(cls, path: str | Path) -> BaseRules:
        """Load a YAML rules file (a mapping of fields); errors name the file (and the line)."""
        path = Path(path)
        try:
            raw = path.read_bytes()
        except OSError as err:
            raise RulesError(f"cannot read rules file {str(path)!r}: {err.strerror or err}") from None
        data = load_mapping(raw, str(path))
        data.setdefault("name", path.stem)
        return cls.from_dict(data, source=str(path))

    @classmethod
    def preset(cls, name: str) -> BaseRules:
        """Load a preset shipped with the package (``"partnership"``, or ``"partnership.yaml"``), of
        whichever game it names (``Rules.preset("hearts")`` is a ``HeartsRules``)."""
        stem = preset_name(name)
        data = load_mapping(preset_bytes(stem), f"preset {stem!r}")
        data.setdefault("name", stem)
        return BaseRules.from_dict(data, source=f"preset {stem!r}")

    def replace(self, **changes: Any) -> BaseRules:
        """A copy with some fields changed (validated again); unknown fields fail listing the known ones."""
        refuse_fields(changes, f"{type(self).__name__}.replace", type(self))
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of every field, for records and checkpoints (``from_dict`` reads it back)."""
        return dataclasses.asdict(self)
