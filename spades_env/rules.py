"""Rules of a game: one frozen, validated dataclass, plus the YAML presets.

Every field maps to an option of ``shared/RULES.md`` (section given in the field's
comment). Presets ship inside the package as ``spades_env/presets/<name>.yaml`` (read
by ``spades_env.rules_yaml``); each file holds the fields that differ from the defaults below.

Two games share the trick-taking engine: ``game: spades`` (sections 1-6, the default)
and ``game: hearts`` (section 7). A few fields default to the game's own value when
left unset (``None``, or ``"default"`` for ``lose_score``): ``partnership`` (Spades:
true, Hearts: false), ``target_score`` (500 / 100), ``blind_nil`` (true / false),
``lose_score`` (-200 / null) and ``bags`` (true / false). The Spades options
(``rules_check.SPADES_ONLY``) must stay at their neutral value under Hearts, the Hearts
options (``HEARTS_ONLY``) off under Spades, and an option that needs another (``NEEDS``)
at its default while that one is off; anything else fails with a message naming the field
(``spades_env.rules_check``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spades_env import cards
from spades_env.rules_check import GAME_DEFAULT, GAME_DEFAULTS, GAMES, NEGATIVE_TARGET, RulesError, validate
from spades_env.rules_yaml import list_presets, load_mapping, preset_bytes, preset_name

__all__ = ["Rules", "RulesError", "list_presets", "resolve_rules"]

#: Cutthroat big-bid thresholds by player count [RULES 5].
BIG_BID_THRESHOLD = {3: 10, 4: 8, 5: 7, 6: 6}
#: Twos removed so the deck divides evenly, by player count [RULES 5].
REMOVED_TWOS = {2: (), 3: (cards.CLUBS,), 4: (), 5: (cards.CLUBS, cards.DIAMONDS), 6: (0, 1, 2, 3)}
#: The twos the ``jokers`` variant removes to make room for the two jokers [RULES 6].
JOKER_REMOVED_TWOS = (cards.CLUBS, cards.DIAMONDS)


@dataclass(frozen=True)
class Rules:
    """The options of one Spades rule set; validated when constructed."""

    name: str = "custom"
    """Free-form label, e.g. the preset name; not a rule."""
    game: str = "spades"
    """Which game: ``spades`` [1-6] or ``hearts`` ("La reina de picas") [7]."""
    n_players: int = 4
    """Seats at the table [1, 4, 5]: 4 for partnership; 2 for two-player (draw pile) [4]; 3..6 for cutthroat.
    Hearts: 4 [7]."""
    partnership: bool | None = None
    """Partners sit opposite (seats 0+2 vs 1+3) and score together [1, 7]; False = cutthroat [5] or
    individual Hearts. None: the game's default (Spades true, Hearts false)."""
    target_score: int | None = None
    """Spades: the first side to reach this score wins the match [3]. Hearts: the match ends when a
    side reaches it and the lowest score wins [7]. None: the game's default (500, Hearts 100)."""
    lose_score: int | str | None = GAME_DEFAULT
    """Mercy rule: a side at or below this after a hand loses [3]; ``"-target"`` or None (off).
    ``"default"``: -200 in Spades, off in Hearts."""
    max_hands: int | None = None
    """Time limit: after this many hands the higher score (Hearts: the lower) wins [3]; None = no limit."""
    blind_nil: bool | None = None
    """A player may bid blind nil before looking at the hand [2]. None: the game's default (Spades
    true, Hearts false)."""
    blind_nil_requires_behind_by: int | None = None
    """Blind nil only for a side behind the best other side by at least this many points [2]."""
    min_team_bid: int = 0
    """A partnership's combined bid must be at least this [2]."""
    set_penalty: str = "bid"
    """Points for a set contract [3]: ``bid`` (-10 x bid), ``short`` (-10 per missing trick), ``zero``."""
    bags: bool | None = None
    """Overtricks accumulate as bags and cost ``bag_penalty`` every ``bag_limit`` bags [3]. None: the
    game's default (Spades true, Hearts false)."""
    bag_limit: int = 10
    """Bags that trigger the bag penalty [3]."""
    bag_penalty: int = 100
    """Points lost each time the bags reach ``bag_limit`` [3]."""
    nil_bonus: int = 100
    """Points won (lost) for a made (failed) nil [3]."""
    blind_nil_bonus: int = 200
    """Points won (lost) for a made (failed) blind nil [3]."""
    spades_lead_anytime: bool = False
    """Spades may be led before they are broken [1]."""
    exact_small_bid_bonus: bool = False
    """Cutthroat with 3 or 4 players: bid 1 or 2 and take exactly that: +20 [5]."""
    big_bid_bonus: bool = False
    """Cutthroat: +10 per trick bid beyond the player-count threshold, when made [5]."""
    face_up_deal: bool = False
    """The first four cards dealt to each player are face up until played [6]."""
    ten_for_two_hundred: bool = False
    """A contract of 10 or more tricks scores +200 if made, -200 if set (instead of 10 x bid) [6]."""
    mirror: bool = False
    """Every bid is forced to the number of spades held (jokers included) [6]."""
    jokers: bool = False
    """Deck without 2C and 2D, plus little and big joker as the highest trumps (BJ > LJ > AS) [6]."""
    fourteen: bool = False
    """Partnership: no bid below 2; each team's combined bid is exactly 7 (second partner forced) [6]."""
    lowest_club_leads: bool = False
    """The holder of the lowest club in the deck leads it to the first trick [6]."""
    boston: bool = False
    """A side that bids all the tricks of the hand scores +200 if it takes them all, -200 if not [6]."""
    boston_wins_match: bool = False
    """A made Boston wins the match at once (needs ``boston``) [6]."""
    bemo: bool = False
    """Before the first lead each side may declare little Bemo (first 6 tricks, +/-60) or big Bemo
    (first 9 tricks, +/-90) [6]."""
    misdeal_weak_hand: bool = False
    """A player whose hand has no spade and no J, Q or K may show it before bidding to force a redeal
    by the same dealer [6]."""
    moon_subtracts: bool = False
    """Hearts: a player who shoots the moon scores -26 instead of giving 26 to every opponent [7]."""
    jack_of_diamonds: bool = False
    """Hearts: the jack of diamonds is worth -10 points to the player who takes it [7]."""

    def __post_init__(self) -> None:
        if self.game in GAMES:
            hearts = self.game == "hearts"
            for name, values in GAME_DEFAULTS.items():
                unset = getattr(self, name) == GAME_DEFAULT if name == "lose_score" else getattr(self, name) is None
                if unset:
                    object.__setattr__(self, name, values[hearts])
        validate(self)

    # ----------------------------------------------------------------- derived
    @property
    def hearts(self) -> bool:
        """The game is Hearts [RULES 7] (no bidding, a pass phase, lowest score wins)."""
        return self.game == "hearts"

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

    @property
    def forced_bids(self) -> bool:
        """Some bids are forced by a variant (``mirror`` or ``fourteen``) [2, 6]."""
        return self.mirror or self.fourteen

    @property
    def deck(self) -> tuple[int, ...]:
        """Card ids in play, in id order."""
        twos = JOKER_REMOVED_TWOS if self.jokers else REMOVED_TWOS[self.n_players]
        removed = {suit * cards.N_RANKS for suit in twos}
        jokers = (cards.LITTLE_JOKER, cards.BIG_JOKER) if self.jokers else ()
        return tuple(c for c in range(cards.N_STANDARD_CARDS) if c not in removed) + jokers

    @property
    def n_card_ids(self) -> int:
        """Card actions in the action space: 52, or 54 with the jokers."""
        return cards.N_CARD_IDS if self.jokers else cards.N_STANDARD_CARDS

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
        names: list[str] = []
        if self.blind_nil:
            names += ["blind_nil", "look"]
        if self.two_player:
            names += ["keep", "discard"]
            if self.blind_nil:
                names += ["exchange_done"]
        if self.bemo:
            names += ["no_bemo", "little_bemo", "big_bemo"]
        if self.misdeal_weak_hand:
            names += ["redeal"]
        return tuple(names)

    @property
    def mercy_score(self) -> int | None:
        """The resolved ``lose_score`` (None when the mercy rule is off)."""
        if self.lose_score == NEGATIVE_TARGET:
            return -self.target_score
        return self.lose_score  # type: ignore[return-value]

    # ------------------------------------------------------------ construction
    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "rules") -> Rules:
        """Build from a mapping; unknown keys fail with the list of known fields."""
        _refuse_unknown_fields(data, source)
        return cls(**data)

    @classmethod
    def from_yaml(cls, path: str | Path) -> Rules:
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
    def preset(cls, name: str) -> Rules:
        """Load a preset shipped with the package (``"partnership"``, or ``"partnership.yaml"``)."""
        stem = preset_name(name)
        data = load_mapping(preset_bytes(stem), f"preset {stem!r}")
        data.setdefault("name", stem)
        return cls.from_dict(data, source=f"preset {stem!r}")

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (validated again); unknown fields fail listing the known ones."""
        _refuse_unknown_fields(changes, "Rules.replace")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of every field, for records and checkpoints."""
        return dataclasses.asdict(self)


def resolve_rules(rules: Rules | str | Path | dict | None) -> Rules:
    """Accept a Rules object, a preset name, a YAML path or a mapping.

    A name that is an existing file is read as a rules file; a bare ``<preset>.yaml`` that
    is no file is the preset; any other ``.yaml``/``.yml`` path must exist.
    """
    if rules is None:
        return Rules.preset("partnership")
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, dict):
        return Rules.from_dict(rules)
    if not isinstance(rules, str | Path):
        raise RulesError(
            f"rules must be a Rules object, a preset name, a YAML path or a mapping, got {type(rules).__name__}"
        )
    path = Path(rules)
    if path.is_file():
        return Rules.from_yaml(path)
    if str(rules).endswith((".yaml", ".yml")):
        if len(path.parts) == 1 and path.stem in list_presets() and path.suffix == ".yaml":
            return Rules.preset(path.stem)
        raise RulesError(f"rules file {str(rules)!r} not found (presets are named without a path: {list_presets()})")
    return Rules.preset(str(rules))


def _refuse_unknown_fields(names, source: str) -> None:
    """A RulesError listing the known fields if ``names`` holds any that ``Rules`` lacks."""
    known = {f.name for f in dataclasses.fields(Rules)}
    unknown = sorted(set(names) - known)
    if unknown:
        raise RulesError(f"{source}: unknown rules field(s) {unknown}; known fields: {sorted(known)}")
