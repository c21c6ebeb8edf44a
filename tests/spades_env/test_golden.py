"""Golden playthroughs: a seeded match rendered as text must not change silently.

Regenerate after a deliberate rule change with
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/spades_env/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import os

import pytest

from spades_env import HeartsRules, Rules
from spades_env.playthrough import render_match
from tests.paths import GOLDEN

GOLDEN_DIR = GOLDEN
CASES = [
    ("partnership_seed7.txt", "partnership", 7, 7),  # policy seed 7: a two-hand match
    # explicit rules (the cutthroat-4 preset's values), so that the file pins the engine, not the preset
    (
        "cutthroat4_seed3.txt",
        Rules(
            name="cutthroat-4",
            n_players=4,
            partnership=False,
            blind_nil=False,
            exact_small_bid_bonus=True,
            big_bid_bonus=True,
        ),
        3,
        0,
    ),
    # Hearts [RULES 7], explicit rules (the hearts preset's): passes, 2C lead, moon rules, lowest wins.
    ("hearts_seed5.txt", HeartsRules(name="hearts"), 5, 5),
]


@pytest.mark.parametrize("filename, rules, seed, policy_seed", CASES, ids=[c[0] for c in CASES])
def test_golden_playthrough(filename, rules, seed, policy_seed):
    text = render_match(rules, seed, policy_seed)
    path = GOLDEN_DIR / filename
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(
            difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(path), "rendered now", n=2)
        )
        pytest.fail(f"playthrough differs from {path} (UPDATE_GOLDEN=1 to accept):\n{diff[:6000]}")


def test_render_is_deterministic():
    assert render_match("partnership", 1, 2, max_hands=1) == render_match("partnership", 1, 2, max_hands=1)
    assert render_match("partnership", 1, 2, max_hands=1) != render_match("partnership", 1, 3, max_hands=1)
