"""Spades rules [RULES 1-6]: ``SpadesRules`` (exported as ``spades_env.rules.Rules``), its options
with their fixed defaults, and their validation (every message names the field and what is allowed).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from spades_env import cards
from spades_env.rules_base import BaseRules, rules_class
from spades_env.rules_check import RulesError, check_bool, check_int, shown

#: Cutthroat big-bid thresholds by player count [RULES 5].
BIG_BID_THRESHOLD = {3: 10, 4: 8, 5: 7, 6: 6}
#: The twos the ``jokers`` variant removes to make room for the two jokers [RULES 6].
JOKER_REMOVED_TWOS = (cards.CLUBS, cards.DIAMONDS)
SET_PENALTIES = ("bid", "short", "zero")
#: ``lose_score`` value for minus the target score.
NEGATIVE_TARGET = "-target"
#: Options that only mean something when another is on: each, set (not its default) while the
#: option it needs is off, is a contradiction [RULES 2, 3, 6].
NEEDS: dict[str, str] = {
    "blind_nil_requires_behind_by": "blind_nil",
    "blind_nil_bonus": "blind_nil",
    "bag_limit": "bags",
    "bag_penalty": "bags",
    "boston_wins_match": "boston",
}
#: Boolean variant options of RULES section 6 (all off by default).
HOUSE_VARIANTS = (
    "face_up_deal",
    "ten_for_two_hundred",
    "mirror",
    "jokers",
    "fourteen",
    "lowest_club_leads",
    "boston",
    "bemo",
    "misdeal_weak_hand",
)
_BOOLS = ("blind_nil", "bags", "spades_lead_anytime", "exact_small_bid_bonus", "big_bid_bonus", "boston_wins_match")


@rules_class
class SpadesRules(BaseRules):
    """The options of one Spades rule set [RULES 1-6]; validated when constructed.

    ``spades_env.rules.Rules`` is this class: ``Rules(n_players=3, partnership=False)`` is
    cutthroat Spades. Hearts rules are ``HeartsRules`` (or ``Rules.preset("hearts")``).
    """

    GAME: ClassVar[str] = "spades"
    HAS_BIDDING: ClassVar[bool] = True
    PLAYERS: ClassVar[tuple[int, int]] = (2, 6)
    LEGACY_NEUTRAL: ClassVar[dict[str, Any]] = {
        "lose_score": None,
        "blind_nil": False,
        "blind_nil_requires_behind_by": None,
        "min_team_bid": 0,
        "set_penalty": "bid",
        "bags": False,
        "bag_limit": 10,
        "bag_penalty": 100,
        "nil_bonus": 100,
        "blind_nil_bonus": 200,
        "spades_lead_anytime": False,
        "exact_small_bid_bonus": False,
        "big_bid_bonus": False,
        "boston_wins_match": False,
        **dict.fromkeys(HOUSE_VARIANTS, False),
    }
    """What an old Hearts rule set held in the Spades fields (the old ``rules_check.SPADES_ONLY``)."""

    game: str = "spades"
    """Which game: ``spades`` [1-6] (``HeartsRules`` builds ``hearts``)."""
    n_players: int = 4
    """Seats at the table [1, 4, 5]: 4 for partnership; 2 for two-player (draw pile) [4]; 3..6 for cutthroat."""
    partnership: bool = True
    """Partners sit opposite (seats 0+2 vs 1+3) and score together [1]; False = cutthroat [5]."""
    target_score: int = 500
    """The first side to reach this score wins the match [3]."""
    max_hands: int | None = None
    """Time limit: after this many hands the higher score wins [3]; None = no limit."""
    lose_score: int | str | None = -200
    """Mercy rule: a side at or below this after a hand loses [3]; ``"-target"`` or None (off)."""
    blind_nil: bool = True
    """A player may bid blind nil before looking at the hand [2]."""
    blind_nil_requires_behind_by: int | None = None
    """Blind nil only for a side behind the best other side by at least this many points [2]."""
    min_team_bid: int = 0
    """A partnership's combined bid must be at least this [2]."""
    set_penalty: str = "bid"
    """Points for a set contract [3]: ``bid`` (-10 x bid), ``short`` (-10 per missing trick), ``zero``."""
    bags: bool = True
    """Overtricks accumulate as bags and cost ``bag_penalty`` every ``bag_limit`` bags [3]."""
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

    # ------------------------------------------------------------ validation
    def validate(self) -> None:
        """Raise ``RulesError`` naming the field if a Spades option holds a bad value or combination."""
        super().validate()
        for name in _BOOLS + HOUSE_VARIANTS:
            check_bool(self, name)
        _validate_spades(self)

    @classmethod
    def option_kind(cls, name: str) -> str:
        """``a Spades variant`` (section 6) or ``a Spades option``."""
        return "a Spades variant" if name in HOUSE_VARIANTS else "a Spades option"

    # ----------------------------------------------------------------- derived
    @property
    def forced_bids(self) -> bool:
        """Some bids are forced by a variant (``mirror`` or ``fourteen``) [2, 6]."""
        return self.mirror or self.fourteen

    def _removed_twos(self) -> tuple[int, ...]:
        return JOKER_REMOVED_TWOS if self.jokers else super()._removed_twos()

    def _jokers(self) -> tuple[int, ...]:
        return (cards.LITTLE_JOKER, cards.BIG_JOKER) if self.jokers else ()

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


#: Each field's default, for the checks of options that need another.
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(SpadesRules)}


def _validate_spades(rules: SpadesRules) -> None:
    """The Spades options' values and their combinations [RULES 1-6]."""
    if rules.partnership and rules.n_players != 4:
        raise RulesError(f"rules field 'n_players' must be 4 when 'partnership' is true, got {rules.n_players}")
    if not (rules.lose_score is None or rules.lose_score == NEGATIVE_TARGET):
        if isinstance(rules.lose_score, str):
            raise RulesError(
                f"rules field 'lose_score' must be an integer below 'target_score', {NEGATIVE_TARGET!r} "
                f"or null, got {shown(rules.lose_score)}"
            )
        check_int(rules, "lose_score", None, rules.target_score - 1)
    check_int(rules, "blind_nil_requires_behind_by", 1, optional=True)
    check_int(rules, "min_team_bid", 0, 13)
    if rules.min_team_bid and not rules.partnership:
        raise RulesError("rules field 'min_team_bid' needs 'partnership': true (cutthroat has no teams)")
    if rules.set_penalty not in SET_PENALTIES:
        raise RulesError(
            f"rules field 'set_penalty' must be one of {list(SET_PENALTIES)}, got {shown(rules.set_penalty)}"
        )
    check_int(rules, "bag_limit", 1)
    check_int(rules, "bag_penalty", 0)
    check_int(rules, "nil_bonus", 0)
    check_int(rules, "blind_nil_bonus", 0)
    if rules.exact_small_bid_bonus and (rules.partnership or rules.n_players not in (3, 4)):
        raise RulesError("rules field 'exact_small_bid_bonus' applies only to cutthroat with 3 or 4 players")
    if rules.big_bid_bonus and (rules.partnership or rules.two_player):
        raise RulesError("rules field 'big_bid_bonus' applies only to cutthroat with 3 to 6 players")
    _validate_variants(rules)


def _conflict(rules: SpadesRules, fields: tuple[str, ...], why: str) -> None:
    """Reject a combination of options that are all on, naming every field."""
    if all(getattr(rules, f) for f in fields):
        raise RulesError(f"rules fields {' and '.join(repr(f) for f in fields)} cannot be combined: {why}")


def _validate_variants(rules: SpadesRules) -> None:
    """The section 4 and 6 combinations that make no sense [RULES 4, 6]."""
    if rules.two_player:
        for name, why in (
            ("face_up_deal", "two-player Spades has no deal, the hands are drawn from a pile"),
            ("misdeal_weak_hand", "two-player Spades has no deal to redo, the hands are drawn from a pile"),
            ("lowest_club_leads", "in two-player Spades the non-dealer leads [RULES 4]"),
        ):
            if getattr(rules, name):
                raise RulesError(f"rules field {name!r} cannot be used with 'n_players': 2: {why}")
    if rules.jokers and rules.n_players not in (2, 4):
        raise RulesError(
            f"rules field 'jokers' needs 'n_players' 2 or 4 (a 52-card deck that divides evenly), got {rules.n_players}"
        )
    if rules.ten_for_two_hundred and not rules.partnership and rules.hand_size < 10:
        raise RulesError(
            f"rules field 'ten_for_two_hundred' needs a contract of 10 tricks to be possible: with 'n_players' "
            f"{rules.n_players} each hand holds {rules.hand_size} cards"
        )
    if rules.fourteen and not rules.partnership:
        raise RulesError("rules field 'fourteen' needs 'partnership': true (a team's combined bid is 7)")
    _conflict(rules, ("mirror", "fourteen"), "both force the bids")
    _conflict(rules, ("mirror", "blind_nil"), "mirror forces every bid, so there is no blind nil to choose")
    _conflict(rules, ("fourteen", "blind_nil"), "fourteen forbids bids below 2, blind nil included")
    if rules.forced_bids and rules.min_team_bid:
        raise RulesError(
            "rules fields 'min_team_bid' and 'mirror'/'fourteen' cannot be combined: the bids are already forced"
        )
    if rules.fourteen and rules.nil_bonus != _DEFAULTS["nil_bonus"]:
        raise RulesError(
            f"rules fields 'nil_bonus' and 'fourteen' cannot be combined: fourteen forbids bids below 2, so there "
            f"is no nil to score (got nil_bonus {rules.nil_bonus}; leave it unset)"
        )
    for name, needed in NEEDS.items():
        value = getattr(rules, name)
        if value != _DEFAULTS[name] and not getattr(rules, needed):
            raise RulesError(
                f"rules field {name!r} needs {needed!r}: true (got {value!r} with {needed!r} false); "
                f"leave it unset or turn {needed!r} on"
            )
