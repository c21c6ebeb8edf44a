"""The readable reference engines: one per game folder, over the shared plain-Python trick play.

The cross-check (``tests/spades_env/engine/test_crosscheck.py``) holds them to the compiled engine; these tests
pin what they are on their own: each preset gets its game's reference engine, which plays a
hand to its end; bad rules, deals and exchange draws fail with a clear error; the shared
trick rules; and the layout (the reference engines import no compiled code, no
``spades_env.engine`` and no other game).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from spades_env import Rules, list_presets
from spades_env.cards import parse_card
from spades_env.core import reference_tricks as tricks
from spades_env.games import spec
from spades_env.games.hearts.reference import HeartsReferenceGame
from spades_env.games.spades.reference import EXCHANGE, SpadesReferenceGame
from tests.paths import ROOT
from tests.reference_games import reference_for

PACKAGE = ROOT / "spades_env"
REFERENCE_MODULES = {
    "core": [PACKAGE / "core" / "reference_tricks.py"],
    "spades": sorted((PACKAGE / "games" / "spades").glob("reference*.py")),
    "hearts": sorted((PACKAGE / "games" / "hearts").glob("reference*.py")),
}


def new_game(rules: Rules):
    """The reference game of ``rules`` on the deck in id order (two-player: as the pile)."""
    deck, k = list(rules.deck), rules.hand_size
    if rules.two_player:
        return reference_for(rules)(rules, pile=deck)
    hands = [deck[i * k : (i + 1) * k] for i in range(rules.n_players)]
    extra = {"face_up": [h[:4] for h in hands]} if spec(rules.game).face_up_deal(rules) else {}
    return reference_for(rules)(rules, hands, **extra)


@pytest.mark.parametrize("name", list_presets())
def test_each_preset_gets_its_games_reference_engine_which_plays_a_hand(name):
    rules = Rules.preset(name)
    game = new_game(rules)
    assert type(game) is (HeartsReferenceGame if rules.game == "hearts" else SpadesReferenceGame)
    assert game.current_player() >= 0
    while game.phase not in ("deal", "over"):
        legal = game.legal_actions()
        # the exchange is left at once (its draw comes from outside); otherwise the lowest action
        game.step(legal[-1] if game.phase == EXCHANGE else legal[0])
    assert game.hand_number == 1 and game.current_player() == -1
    assert sum(game.tricks_won) == rules.hand_size == len(game.history)
    assert game.scores == game.last_points and len(game.scores) == rules.n_sides


@pytest.mark.parametrize(
    ("cls", "rules", "message"),
    [
        (SpadesReferenceGame, Rules.preset("hearts"), "rules must be a Spades rule set .* got game 'hearts'"),
        (HeartsReferenceGame, Rules.preset("partnership"), "rules must be a Hearts rule set .* got game 'spades'"),
        (SpadesReferenceGame, "partnership", "rules must be a Spades rule set .* got str"),
    ],
)
def test_a_reference_engine_refuses_another_games_rules(cls, rules, message):
    hands = [list(range(13 * s, 13 * s + 13)) for s in range(4)]
    with pytest.raises(ValueError, match=message):
        cls(rules, hands)


def _hands(n_missing: int = 0, extra_seat: bool = False) -> list[list[int]]:
    hands = [list(range(13 * s, 13 * s + 13)) for s in range(4)]
    hands[0] = hands[0][n_missing:] + [hands[1][0]] * n_missing  # a card twice, one missing
    return hands + [[]] if extra_seat else hands


@pytest.mark.parametrize(
    ("rules", "deal", "message"),
    [
        ("partnership", {"hands": _hands(extra_seat=True)}, "hands must be 4 hands of 13 card ids"),
        ("partnership", {"hands": _hands(n_missing=1)}, "hands must hold every card of the deck once"),
        ("hearts", {"hands": _hands(n_missing=1)}, "hands must hold every card of the deck once"),
        ("hearts", {"hands": None}, "hands must be 4 hands of 13 card ids"),
        ("two-player", {"pile": list(range(51))}, "pile must hold the whole deck once"),
        ("two-player", {}, "pile must hold the whole deck once"),
        ("partnership-house", {"hands": _hands(), "face_up": [[0, 1, 2]] * 4}, "face_up must be four cards of each"),
    ],
)
def test_a_reference_engine_refuses_a_deal_that_is_not_the_deck(rules, deal, message):
    rules = Rules.preset(rules)
    if rules.name == "partnership-house":
        rules = rules.replace(face_up_deal=True)
    with pytest.raises(ValueError, match=message):
        reference_for(rules)(rules, **deal)


def test_a_two_player_exchange_draws_only_a_discard():
    """Seat 1 bids blind nil; both keep every card shown from the pile in id order, so seat 0 (the
    dealer, first to draw) keeps 0, 4, 8 ... and discards 1, 5, 9 ..., seat 1 keeps 2, 6 ... and
    discards 3, 7 ... [RULES 4]."""
    rules = Rules.preset("two-player")
    game = SpadesReferenceGame(rules, pile=list(rules.deck), dealer=0)
    game.step(game.blind_nil_action)  # seat 1, the non-dealer, first
    game.step(game.look_action)
    while game.phase == "draw":
        game.step(game.special["keep"])
    assert game.phase == EXCHANGE and game.to_move == 1
    given = min(game.hands[1])
    with pytest.raises(ValueError, match="replacement must be a card of the discards, got 0"):
        game.step(given, replacement=0)  # seat 0 holds the first card
    assert given in game.hands[1] and not game.given[1]
    game.step(given, replacement=1)  # seat 0 discarded the second
    assert game.given[1] == {given} and game.received[1] == {1} and 1 in game.hands[1]


def _cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


@pytest.mark.parametrize(
    ("hand", "led", "expected"),
    [("AS 2H KH 3C", "H", "2H KH"), ("AS 2H KH 3C", "D", "3C 2H KH AS"), ("BJ 2C", "S", "BJ")],
)
def test_a_player_follows_the_led_suit_if_able(hand, led, expected):
    assert tricks.follow_suit(_cards(hand), "CDHS".index(led)) == sorted(_cards(expected))


@pytest.mark.parametrize(
    ("hand", "barred", "broken", "expected"),
    [
        ("AS 2S 3H", "S", False, "3H"),
        ("AS 2S", "S", False, "2S AS"),
        ("AS 3H", "S", True, "3H AS"),
        ("2H QS", "H", False, "QS"),
    ],
)
def test_a_barred_suit_leads_only_once_broken_or_alone(hand, barred, broken, expected):
    assert tricks.lead_options(_cards(hand), "CDHS".index(barred), broken) == sorted(_cards(expected))


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        ("KH 2S AH 3H", "S", 1),  # a trump beats the led suit's ace
        ("KH 2S AH 3H", None, 2),  # no trump: the highest heart
        ("QS BJ AS LJ", "S", 1),  # big joker > little joker > ace of spades [RULES 6]
        ("2C 3D AD KS", None, 0),  # off-suit cards never win without a trump
    ],
)
def test_the_highest_trump_or_else_the_highest_card_of_the_led_suit_wins(trick, trump, winner):
    plays = list(enumerate(_cards(trick)))
    assert tricks.trick_winner(plays, None if trump is None else "CDHS".index(trump)) == winner


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module)
    return found


@pytest.mark.parametrize("part", sorted(REFERENCE_MODULES))
def test_the_reference_engines_use_only_cards_rules_the_shared_trick_play_and_their_own_game(part):
    allowed = {
        "__future__",
        "collections.abc",
        "operator",
        "spades_env.cards",
        "spades_env.rules",
        "spades_env.rules_base",
    }
    allowed |= {"spades_env.core", "spades_env.core.reference_tricks"} if part != "core" else set()
    own = f"spades_env.games.{part}."
    assert REFERENCE_MODULES[part]
    for path in REFERENCE_MODULES[part]:
        outside = {m for m in _imports(path) if m not in allowed and not m.startswith(own)}
        assert not outside, f"{path.name} imports {sorted(outside)}"
