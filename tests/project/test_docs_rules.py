"""docs/rules.md is true: every worked example is recomputed by the scoring code, and the
field and preset tables match ``Rules`` and the shipped presets.

The checked tables of the document follow a ``<!-- check: KIND -->`` comment; each row is
one example, parsed here and scored through the batched scoring functions and, where it
has one, the plain reference engine.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import yaml

from spades_env import HeartsRules, Rules, list_presets
from spades_env.games.hearts.reference import seat_points
from spades_env.games.hearts.scoring import hearts_match_winner, score_hearts_hand
from spades_env.games.spades.reference import SpadesReferenceGame
from spades_env.games.spades.scoring import bemo_points, match_winner, score_hand
from tests.paths import ROOT

DOC = ROOT / "docs" / "rules.md"
TEXT = DOC.read_text()
BEMO_LEVELS = {"none": 0, "little": 1, "big": 2}
HEARTS = list(range(26, 39))
QS, JD = 49, 22


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def checked_rows(kind: str) -> list[dict[str, str]]:
    """Rows of every table marked ``<!-- check: kind -->``, as {column header: cell}."""
    rows = []
    for block in re.findall(rf"<!-- check: {kind} -->\n((?:\|.*\n)+)", TEXT):
        header, _, *lines = block.splitlines()
        rows += [dict(zip(_cells(header), _cells(line), strict=True)) for line in lines]
    assert rows, f"docs/rules.md has no table marked 'check: {kind}'"
    return rows


def settings(cell: str) -> list[tuple[str, object]]:
    """The ``field: value`` items of a cell, values read as YAML."""
    return [(name, yaml.safe_load(value)) for name, value in re.findall(r"`(\w+): ([^`]*)`", cell)]


def rules_of(cell: str) -> Rules:
    """A Rules cell: a preset name, then optional ``field: value`` changes."""
    preset = re.match(r"`([\w-]+)`", cell)
    assert preset, f"a rules cell starts with a preset name: {cell!r}"
    return Rules.preset(preset.group(1)).replace(**dict(settings(cell)))


def ints(cell: str) -> list[int]:
    return [] if cell == "-" else [int(t) for t in cell.split()]


def ids(rows: list[dict[str, str]]) -> list[str]:
    return [row["Example"] for row in rows]


def reference_game(rules: Rules, bags: list[int] | None = None) -> SpadesReferenceGame:
    """A reference game on an arbitrary deal, ready to have a hand's outcome written in."""
    deck, k = list(rules.deck), rules.hand_size
    if rules.two_player:
        return SpadesReferenceGame(rules, pile=deck, bags=bags)
    hands = [deck[i * k : (i + 1) * k] for i in range(rules.n_players)]
    face_up = [h[:4] for h in hands] if rules.face_up_deal else None
    return SpadesReferenceGame(rules, hands, 0, bags=bags, face_up=face_up)


# --------------------------------------------------------------------- Spades hands
SPADES_HANDS = checked_rows("spades-hands")


@pytest.mark.parametrize("row", SPADES_HANDS, ids=ids(SPADES_HANDS))
def test_spades_hand_examples(row):
    rules = rules_of(row["Rules"])
    bids, tricks, bags = ints(row["Bids"]), ints(row["Tricks"]), ints(row["Bags before"])
    blind = [seat in ints(row["Blind nil"]) for seat in range(rules.n_players)]
    points, bags_after = ints(row["Points"]), ints(row["Bags after"])
    assert len(bids) == len(tricks) == rules.n_players and sum(tricks) == rules.hand_size
    assert len(bags) == len(points) == len(bags_after) == rules.n_sides

    score = score_hand(rules, [bids], [blind], [tricks], [bags])
    assert score.delta[0].tolist() == points
    assert score.bags[0].tolist() == bags_after

    game = reference_game(rules, bags)
    game.bids, game.tricks_won, game.blind = bids, tricks, blind
    game.score_hand()
    assert game.last_points == points
    assert game.bags == bags_after


# ---------------------------------------------------------------------------- Bemo
BEMO = checked_rows("bemo")


@pytest.mark.parametrize("row", BEMO, ids=ids(BEMO))
def test_bemo_examples(row):
    rules = rules_of(row["Rules"])
    declared = [BEMO_LEVELS[word] for word in row["Bemo (per side)"].split()]
    winners, expected = ints(row["Winners"]), ints(row["Bemo points"])
    assert len(winners) == rules.hand_size
    assert bemo_points(rules, np.array([winners]), np.array([declared])).tolist() == [expected]

    game = reference_game(rules)
    game.bids = [3] * rules.n_players
    game.tricks_won = [winners.count(seat) for seat in range(rules.n_players)]
    game.trick_winners = winners
    with_bemo = []
    for bemo in (declared, [0] * rules.n_sides):
        game.bemo = bemo
        with_bemo.append([game.side_points(side)[0] for side in range(rules.n_sides)])
    assert [a - b for a, b in zip(*with_bemo, strict=True)] == expected


# ------------------------------------------------------------------------ Hearts
HEARTS_HANDS = checked_rows("hearts-hands")


def hearts_taken(row: dict[str, str]) -> list[set[int]]:
    """Each seat's cards from cells like ``QS + 2 hearts``, ``13 hearts + QS + JD``, ``nothing``."""
    free_hearts = iter(HEARTS)
    taken = []
    for seat in range(4):
        cards: set[int] = set()
        for part in row[f"Seat {seat} took"].split("+"):
            part = part.strip()
            if part in ("QS", "JD"):
                cards.add(QS if part == "QS" else JD)
            elif part.endswith("hearts"):
                cards |= {next(free_hearts) for _ in range(int(part.split()[0]))}
            else:
                assert part == "nothing", f"cannot read {part!r}"
        taken.append(cards)
    return taken


@pytest.mark.parametrize("row", HEARTS_HANDS, ids=ids(HEARTS_HANDS))
def test_hearts_hand_examples(row):
    rules = rules_of(row["Rules"])
    taken = hearts_taken(row)
    expected = ints(row["Points"])
    masks = np.array([[sum(1 << c for c in cards) for cards in taken]], dtype=np.uint64)
    assert score_hearts_hand(rules, masks).delta[0].tolist() == expected
    points = seat_points(rules, taken)
    sides = [[s for s in range(4) if rules.side_of_seat(s) == side] for side in range(rules.n_sides)]
    assert [sum(points[s] for s in seats) for seats in sides] == expected


# ---------------------------------------------------------------------- match end
MATCH_END = checked_rows("match-end")


def result_of(cell: str) -> int:
    if cell == "play on":
        return -1
    found = re.fullmatch(r"side (\d+) wins", cell)
    assert found, f"a result is 'play on' or 'side N wins', got {cell!r}"
    return int(found.group(1))


@pytest.mark.parametrize("row", MATCH_END, ids=ids(MATCH_END))
def test_match_end_examples(row):
    rules = rules_of(row["Rules"])
    scores, hands, expected = ints(row["Scores"]), int(row["Hands played"]), result_of(row["Result"])
    assert len(scores) == rules.n_sides
    if rules.game == "hearts":
        assert hearts_match_winner(rules, np.array([scores]), np.array([hands])).tolist() == [expected]
        return
    assert match_winner(rules, np.array([scores]), np.array([hands])).tolist() == [expected]
    game = reference_game(rules)
    game.scores, game.hand_number = scores, hands
    assert game.match_winner() == expected


# ----------------------------------------------------------- fields and presets
def test_the_field_table_lists_every_rules_field_with_its_default():
    rows = {row["Field"].strip("`"): row for row in checked_rows("fields")}
    spades, hearts = Rules(), HeartsRules()
    fields = {f.name: f for cls in (HeartsRules, Rules) for f in dataclasses.fields(cls)}
    assert sorted(rows) == sorted(fields)
    for name, row in rows.items():
        literals = [yaml.safe_load(v) for v in re.findall(r"`([^`]*)`", row["Default"])]
        both = hasattr(spades, name) and hasattr(hearts, name)
        if both and getattr(spades, name) != getattr(hearts, name):
            assert literals == [getattr(spades, name), getattr(hearts, name)], name
        else:
            assert literals == [fields[name].default], name
    for name in fields:
        assert TEXT.count(f"`{name}") >= 2, f"field {name!r} is only in the table"


def test_the_preset_table_lists_every_preset_and_what_it_sets():
    rows = {row["Preset"].strip("`"): row for row in checked_rows("presets")}
    assert sorted(rows) == list_presets()
    for name, row in rows.items():
        preset = Rules.preset(name)
        base = type(preset)()
        changed = {
            f.name: getattr(preset, f.name)
            for f in dataclasses.fields(preset)
            if f.name != "name" and getattr(preset, f.name) != getattr(base, f.name)
        }
        if preset.game != Rules().game:
            changed["game"] = preset.game
        assert dict(settings(row["Settings"])) == changed, name


def test_the_contents_links_reach_headings():
    """Each ``(#anchor)`` link names a heading, slugged the way GitHub renders it."""
    headings = re.findall(r"^#+ (.+)$", TEXT, re.M)
    anchors = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
    links = re.findall(r"\]\(#([^)]+)\)", TEXT)
    assert links and set(links) <= anchors
