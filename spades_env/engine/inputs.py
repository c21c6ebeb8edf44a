"""Checks of what callers hand the engine: seeds, actions, dealers, scores, bags, deals, piles.

Each check is a few whole-array tests (dtype kind, shape, min and max), so that it costs
next to nothing on the hot path; the per-element work (card names, nested lists) runs
only for the optional deal and pile overrides of a reset. A refused input raises
``EngineInputError`` (a ``ValueError``; ``TypeError`` for the wrong kind of value, as
``EngineInputTypeError``), with a one-line message naming the argument and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from spades_env import cards
from spades_env.core.errors import EngineInputError, EngineInputTypeError

if TYPE_CHECKING:
    from spades_env.rules import Rules

I64 = np.int64
#: Seeds are integers in 0 .. SEED_MAX (the 64-bit range of a game's key).
SEED_MAX = 2**64 - 1
_INTEGER_KINDS = "iu"


_KIND_NAMES = {"b": "bool", "f": "float", "c": "complex", "U": "string", "S": "bytes", "O": "object"}


def _kind(arr: np.ndarray) -> str:
    """The kind of an array's values, in words (``float``, ``string``, ...)."""
    return _KIND_NAMES.get(arr.dtype.kind, str(arr.dtype))


def _describe(arr: np.ndarray) -> str:
    """A short text of a refused value for a message."""
    if arr.ndim == 0:
        return repr(arr.item())
    text = np.array2string(arr.reshape(-1)[:6], separator=", ", threshold=6)
    return f"{text[:-1]}, ...]" if arr.size > 6 else text


def _integer_array(values: Any, name: str, allowed: str) -> np.ndarray:
    """``values`` as an ndarray of an integer dtype (bools, floats, strings and None refused)."""
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    if arr.dtype.kind in _INTEGER_KINDS:
        return arr
    if arr.dtype.kind == "O" and arr.size and all(isinstance(v, int) and not isinstance(v, bool) for v in arr.flat):
        return arr  # Python ints beyond 64 bits: the range check names them
    kind = _kind(arr)
    if arr.size == 0:
        raise EngineInputError(f"{name} must hold integers {allowed}, got an empty {type(values).__name__}")
    raise EngineInputTypeError(f"{name} must be integers {allowed}, got {kind} {_describe(arr)}")


def seed_array(seeds: Any) -> np.ndarray:
    """(B,) uint64 seeds from an int (one game) or a 1-D sequence of ints in 0 .. 2**64 - 1."""
    if seeds is None:
        raise EngineInputTypeError("seeds must be an integer in 0..2**64 - 1 or a list of them, got None")
    arr = _integer_array(seeds, "seeds", "in 0..2**64 - 1")
    if arr.ndim > 1:
        raise EngineInputError(f"seeds must be one integer or a 1-D sequence of them, got shape {arr.shape}")
    arr = arr.reshape(-1)
    if arr.size == 0:
        raise EngineInputError("seeds must hold at least one seed, got an empty sequence")
    if arr.dtype.kind == "O" or (arr.dtype.kind == "i" and arr.min() < 0):
        bad = [int(v) for v in arr.tolist() if not 0 <= int(v) <= SEED_MAX]
        if bad:
            raise EngineInputError(f"seeds must be integers in 0..2**64 - 1, got {bad[0]}")
    return arr.astype(np.uint64)


def action_array(actions: Any, b: int) -> np.ndarray:
    """(B,) int64 action ids: an integer array of shape (B,) (or one integer when B is 1)."""
    arr = actions if isinstance(actions, np.ndarray) else np.asarray(actions)
    if arr.dtype.kind not in _INTEGER_KINDS:
        kind = _kind(arr)
        raise EngineInputTypeError(f"actions must be integer action ids, got {kind} {_describe(arr)}")
    if arr.shape != (b,):
        if arr.ndim == 0 and b == 1:
            arr = arr.reshape(1)
        else:
            raise EngineInputError(f"actions must have shape ({b},) (one action id per game), got shape {arr.shape}")
    return arr if arr.dtype == I64 else arr.astype(I64)


def per_game(values: Any, n: int, name: str, lo: int, hi: int | None = None) -> np.ndarray:
    """(n,) int64 from one integer (every game) or n integers, each in lo..hi."""
    arr = _integer_array(values, name, _bounds(lo, hi))
    if arr.ndim > 1 or (arr.ndim == 1 and len(arr) != n):
        raise EngineInputError(f"{name} must be one integer or {n} (one per game), got shape {arr.shape}")
    _check_range(arr, name, lo, hi)
    return np.broadcast_to(arr.astype(I64), (n,)).copy()


def per_side(values: Any, n: int, n_sides: int, name: str, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    """(n, n_sides) int64 from n_sides integers (every game) or (n, n_sides) of them, each in lo..hi."""
    arr = _integer_array(values, name, _bounds(lo, hi))
    if arr.shape == (n_sides,):
        arr = np.broadcast_to(arr, (n, n_sides))
    if arr.shape != (n, n_sides):
        raise EngineInputError(f"{name} must have shape ({n}, {n_sides}) (games, sides), got {arr.shape}")
    _check_range(arr, name, lo, hi)
    return arr.astype(I64)


_I64_MIN, _I64_MAX = int(np.iinfo(I64).min), int(np.iinfo(I64).max)


def _bounds(lo: int | None, hi: int | None) -> str:
    return f"in {'-inf' if lo is None else lo}..{'inf' if hi is None else hi}"


def _check_range(arr: np.ndarray, name: str, lo: int | None, hi: int | None) -> None:
    """Refuse any value outside lo..hi (or outside int64), naming the first."""
    if arr.size == 0:
        return
    low = _I64_MIN if lo is None else lo
    high = _I64_MAX if hi is None else hi
    if arr.dtype.kind == "O" or arr.min() < low or arr.max() > high:
        bad = next((int(v) for v in arr.reshape(-1).tolist() if not low <= v <= high), None)
        if bad is not None:
            raise EngineInputError(f"{name} must be integers {_bounds(lo, hi)}, got {bad}")


def card_id(value: Any, where: str) -> int:
    """A card id from an integer id or a card name (``"AS"``, ``"10h"``, ``"LJ"``)."""
    if isinstance(value, str):
        try:
            return cards.parse_card(value)
        except ValueError as err:
            raise EngineInputError(f"{where}: {err}") from None
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return int(value)
    raise EngineInputTypeError(
        f"{where}: a card is an integer id (0..{cards.N_CARD_IDS - 1}) or a name such as 'AS', got {value!r}"
    )


def deal_masks(deals: Any, n: int, n_players: int, deck: tuple[int, ...], name: str = "deals") -> np.ndarray:
    """(n, n_players) uint64 card masks from masks (any integer dtype) or nested card ids or names
    (``name``: the argument, in errors).

    Card ids must be cards of ``deck``; ``check_deal`` then checks that the masks are a deal of it.
    """
    if isinstance(deals, np.ndarray) and deals.dtype.kind in _INTEGER_KINDS and deals.ndim == 2:
        if deals.dtype.kind == "i" and deals.size and deals.min() < 0:
            raise EngineInputError(f"{name} given as an integer array are card masks and must be non-negative")
        masks = deals.astype(np.uint64)
    else:
        if isinstance(deals, np.ndarray) and deals.dtype.kind not in _INTEGER_KINDS + "OU":
            raise EngineInputTypeError(
                f"{name} must be card masks (an integer array of shape ({n}, {n_players})) or lists of card "
                f"ids or names, got {_kind(deals)} values"
            )
        try:
            games = list(deals)
            sizes = [len(game) for game in games]
        except TypeError:
            raise EngineInputTypeError(
                f"{name} must be {n} game(s) of {n_players} hands (lists of card ids or names), "
                f"got {type(deals).__name__}"
            ) from None
        if len(games) != n or any(s != n_players for s in sizes):
            raise EngineInputError(
                f"{name} must hold {n} game(s) of {n_players} hands each, got {sizes} hands per game"
            )
        masks = np.zeros((n, n_players), np.uint64)
        in_deck = set(deck)
        for i, game in enumerate(games):
            for seat, hand in enumerate(game):
                where = f"{name}[{i}][{seat}]"
                if isinstance(hand, str):
                    raise EngineInputTypeError(f"{where} must be a list of cards, got the string {hand!r}")
                if not hasattr(hand, "__iter__"):
                    raise EngineInputTypeError(
                        f"{where} must be a list of cards (card ids or names), got {type(hand).__name__} {hand!r}; "
                        "give card masks as a (games, seats) uint64 array"
                    )
                ids = [card_id(c, where) for c in hand]
                bad = [c for c in ids if c not in in_deck]
                if bad:
                    raise EngineInputError(
                        f"{name}[{i}][{seat}] holds card id(s) {bad} that are not in the deck "
                        f"of these rules ({len(deck)} cards)"
                    )
                masks[i, seat] = cards.cards_to_mask(ids)
    if masks.shape != (n, n_players):
        raise EngineInputError(f"{name} must have shape ({n}, {n_players}) (games, seats), got {masks.shape}")
    return masks


def pile_array(piles: Any, n: int, pile_size: int) -> np.ndarray:
    """(n, pile_size) int64 card ids (top of the pile first) from ids or card names."""
    if isinstance(piles, np.ndarray) and piles.dtype.kind in _INTEGER_KINDS:
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


def check_deal(masks: np.ndarray, deck: tuple[int, ...], hand_size: int) -> None:
    """Refuse masks that are not a deal of ``deck``: every hand ``hand_size`` distinct cards of it."""
    from spades_env.core import bits

    deck_mask = np.uint64(cards.cards_to_mask(deck))
    counts = bits.popcount(masks)
    union = np.bitwise_or.reduce(masks, axis=1)
    bad = np.flatnonzero(np.any(counts != hand_size, axis=1) | (union != deck_mask) | (counts.sum(axis=1) != len(deck)))
    if len(bad):
        g = int(bad[0])
        raise EngineInputError(
            f"deal for game {g} is not a legal deal: each of the {masks.shape[1]} hands needs "
            f"{hand_size} distinct cards of the deck, got sizes {counts[g].tolist()} "
            f"({int(bits.popcount(union[g : g + 1])[0])} distinct cards of {len(deck)})"
        )


def check_pile(pile: np.ndarray, deck: tuple[int, ...]) -> None:
    """Refuse piles that are not orderings of ``deck``."""
    bad = np.flatnonzero(np.any(np.sort(pile, axis=1) != np.array(deck), axis=1))
    if len(bad):
        raise EngineInputError(f"piles[{int(bad[0])}] is not an ordering of the {len(deck)} cards of the deck")


@dataclass
class MatchStarts:
    """The checked per-game overrides of new matches (None or 0: the engine's own)."""

    dealers: np.ndarray | None
    scores: np.ndarray | int
    bags: np.ndarray | int
    hand_numbers: np.ndarray | int
    deals: np.ndarray | None
    piles: np.ndarray | None
    face_ups: np.ndarray | None = None


def match_starts(
    rules: Rules,
    n: int,
    deck: tuple[int, ...],
    hand_size: int,
    pile_size: int,
    *,
    deals=None,
    dealers=None,
    scores=None,
    bags=None,
    piles=None,
    hand_numbers=None,
    face_ups=None,
) -> MatchStarts:
    """Check the overrides of ``n`` new matches: only states ``check.check_state`` accepts come out.

    Bags are 0..the game's ``max_bags`` (Spades: bag_limit - 1, 0 without ``bags``); the scores (after
    ``hand_numbers`` hands) must not already end the match, as they would at the end of a hand [RULES 3, 7].
    ``face_ups`` (with ``deals``, under ``face_up_deal``): the cards of each hand dealt face up.
    """
    if rules.two_player and deals is not None:
        raise EngineInputError(
            "two-player Spades has no deal: give the draw pile order with 'piles' instead of 'deals'"
        )
    if piles is not None and not rules.two_player:
        raise EngineInputError("'piles' is only for two-player Spades (n_players 2); give 'deals' instead")
    n_sides = rules.n_sides
    out = MatchStarts(None, 0, 0, 0, None, None)
    if dealers is not None:
        out.dealers = per_game(dealers, n, "dealers", 0, rules.n_players - 1)
    if hand_numbers is not None:
        out.hand_numbers = per_game(hand_numbers, n, "hand_numbers", 0)
    if scores is not None:
        out.scores = per_side(scores, n, n_sides, "scores")
    if bags is not None:
        from spades_env.games import spec

        out.bags = per_side(bags, n, n_sides, "bags", 0, spec(rules.game).max_bags(rules))
    if scores is not None or hand_numbers is not None:
        _check_match_goes_on(rules, n, out.scores, out.hand_numbers)
    if deals is not None:
        out.deals = deal_masks(deals, n, rules.n_players, deck)
        check_deal(out.deals, deck, hand_size)
    if piles is not None:
        out.piles = pile_array(piles, n, pile_size)
        check_pile(out.piles, deck)
    if face_ups is not None:
        out.face_ups = _face_ups(rules, face_ups, out.deals, deck, hand_size)
    return out


def _face_ups(
    rules: Rules, face_ups: Any, deals: np.ndarray | None, deck: tuple[int, ...], hand_size: int
) -> np.ndarray:
    """(n, n_players) uint64 face-up cards: the game's count of each hand of ``deals`` [RULES 6]."""
    from spades_env.core import bits
    from spades_env.games import spec

    count = min(spec(rules.game).face_up_cards(rules), hand_size)
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


def _check_match_goes_on(rules: Rules, n: int, scores, hand_numbers) -> None:
    """Refuse starting scores (after ``hand_numbers`` hands) at which the match is already over."""
    from spades_env.games import spec

    game = spec(rules.game)
    scores = np.broadcast_to(np.asarray(scores, dtype=I64), (n, rules.n_sides))
    played = np.broadcast_to(np.asarray(hand_numbers, dtype=I64), (n,))
    winner = game.match_winner(rules, scores, played)
    over = np.flatnonzero(winner >= 0)
    if len(over):
        g = int(over[0])
        ends = game.match_ends(rules)
        raise EngineInputError(
            f"scores {scores[g].tolist()} of game {g} (after {int(played[g])} hands) already end the match "
            f"({', '.join(ends)}): side {int(winner[g])} has won; give the scores of a match still going on"
        )


def integer(value: Any, name: str) -> int:
    """One integer (a Python or NumPy int, not a bool, float or string) as a Python int."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise EngineInputTypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    return int(value)
