"""What makes a rule set valid: the option vocabularies and the checks ``Rules`` runs when built.

Each check raises ``RulesError`` with a message naming the field(s) and what is allowed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spades_env.rules import Rules


class RulesError(ValueError):
    """A rules field has a bad value; the message names the field and what is allowed."""


SET_PENALTIES = ("bid", "short", "zero")
NEGATIVE_TARGET = "-target"
GAMES = ("spades", "hearts")
#: ``lose_score`` value that stands for the game's default (-200 in Spades, off in Hearts).
GAME_DEFAULT = "default"
#: Fields whose default depends on the game: (Spades, Hearts) values.
GAME_DEFAULTS: dict[str, tuple[Any, Any]] = {
    "partnership": (True, False),
    "target_score": (500, 100),
    "blind_nil": (True, False),
    "lose_score": (-200, None),
    "bags": (True, False),
}
#: Options of Spades only; under Hearts each must keep the neutral value given here [RULES 7].
SPADES_ONLY: dict[str, Any] = {
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
}
#: Options of Hearts only, off under Spades [RULES 7].
HEARTS_ONLY = ("moon_subtracts", "jack_of_diamonds")
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


def _check_int(rules: Rules, name: str, lo: int | None = None, hi: int | None = None, optional: bool = False) -> None:
    value = getattr(rules, name)
    if value is None and optional:
        return
    ok = isinstance(value, int) and not isinstance(value, bool)
    ok = ok and (lo is None or value >= lo) and (hi is None or value <= hi)
    if not ok:
        bounds = f"{lo if lo is not None else '-inf'}..{hi if hi is not None else 'inf'}"
        extra = " or null" if optional else ""
        raise RulesError(f"rules field {name!r} must be an integer in {bounds}{extra}, got {value!r}")


def _check_bool(rules: Rules, name: str) -> None:
    value = getattr(rules, name)
    if not isinstance(value, bool):
        raise RulesError(f"rules field {name!r} must be true or false, got {value!r}")


def validate(rules: Rules) -> None:
    """Raise ``RulesError`` naming the field if ``rules`` holds a bad value or combination."""
    if not isinstance(rules.name, str):
        raise RulesError(f"rules field 'name' must be a string, got {rules.name!r}")
    if rules.game not in GAMES:
        raise RulesError(f"rules field 'game' must be one of {list(GAMES)}, got {rules.game!r}")
    bools = ("partnership", "blind_nil", "bags", "spades_lead_anytime", "exact_small_bid_bonus", "big_bid_bonus")
    for name in bools + HOUSE_VARIANTS + ("boston_wins_match",) + HEARTS_ONLY:
        _check_bool(rules, name)
    if rules.hearts:
        _validate_hearts(rules)
        return
    for name in HEARTS_ONLY:
        if getattr(rules, name):
            raise RulesError(f"rules field {name!r} is a Hearts option: it needs 'game': 'hearts' (got 'spades')")
    _check_int(rules, "n_players", 2, 6)
    if rules.partnership and rules.n_players != 4:
        raise RulesError(f"rules field 'n_players' must be 4 when 'partnership' is true, got {rules.n_players}")
    _check_int(rules, "target_score", 1)
    if not (rules.lose_score is None or rules.lose_score == NEGATIVE_TARGET):
        if isinstance(rules.lose_score, str):
            raise RulesError(
                f"rules field 'lose_score' must be an integer below 'target_score', {NEGATIVE_TARGET!r} "
                f"or null, got {rules.lose_score!r}"
            )
        _check_int(rules, "lose_score", None, rules.target_score - 1)
    _check_int(rules, "max_hands", 1, optional=True)
    _check_int(rules, "blind_nil_requires_behind_by", 1, optional=True)
    _check_int(rules, "min_team_bid", 0, 13)
    if rules.min_team_bid and not rules.partnership:
        raise RulesError("rules field 'min_team_bid' needs 'partnership': true (cutthroat has no teams)")
    if rules.set_penalty not in SET_PENALTIES:
        raise RulesError(f"rules field 'set_penalty' must be one of {list(SET_PENALTIES)}, got {rules.set_penalty!r}")
    _check_int(rules, "bag_limit", 1)
    _check_int(rules, "bag_penalty", 0)
    _check_int(rules, "nil_bonus", 0)
    _check_int(rules, "blind_nil_bonus", 0)
    if rules.exact_small_bid_bonus and (rules.partnership or rules.n_players not in (3, 4)):
        raise RulesError("rules field 'exact_small_bid_bonus' applies only to cutthroat with 3 or 4 players")
    if rules.big_bid_bonus and (rules.partnership or rules.two_player):
        raise RulesError("rules field 'big_bid_bonus' applies only to cutthroat with 3 to 6 players")
    _validate_variants(rules)


def _validate_hearts(rules: Rules) -> None:
    """Hearts: 4 players, and every Spades option left at its neutral value [RULES 7]."""
    if rules.n_players != 4:
        raise RulesError(f"rules field 'n_players' must be 4 for game 'hearts', got {rules.n_players}")
    for name, neutral in SPADES_ONLY.items():
        if getattr(rules, name) != neutral:
            raise RulesError(
                f"rules field {name!r} is a Spades option and cannot be used with game 'hearts' "
                f"(got {getattr(rules, name)!r}; leave it unset or {neutral!r})"
            )
    for name in HOUSE_VARIANTS:
        if getattr(rules, name):
            raise RulesError(f"rules field {name!r} is a Spades variant and cannot be used with game 'hearts'")
    _check_int(rules, "target_score", 1)
    _check_int(rules, "max_hands", 1, optional=True)


def _conflict(rules: Rules, fields: tuple[str, ...], why: str) -> None:
    """Reject a combination of options that are all on, naming every field."""
    if all(getattr(rules, f) for f in fields):
        raise RulesError(f"rules fields {' and '.join(repr(f) for f in fields)} cannot be combined: {why}")


def _validate_variants(rules: Rules) -> None:
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
    if rules.fourteen and rules.nil_bonus != SPADES_ONLY["nil_bonus"]:
        raise RulesError(
            f"rules fields 'nil_bonus' and 'fourteen' cannot be combined: fourteen forbids bids below 2, so there "
            f"is no nil to score (got nil_bonus {rules.nil_bonus}; leave it unset)"
        )
    for name, needed in NEEDS.items():
        value = getattr(rules, name)
        if value != SPADES_ONLY[name] and not getattr(rules, needed):
            raise RulesError(
                f"rules field {name!r} needs {needed!r}: true (got {value!r} with {needed!r} false); "
                f"leave it unset or turn {needed!r} on"
            )
