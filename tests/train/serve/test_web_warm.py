"""``spades serve`` warms the default table before it listens (train/serve/warm.py)."""

from __future__ import annotations

import pytest

from train.serve.warm import warm_table


@pytest.mark.parametrize(("rules", "at_least"), [("partnership", 14), ("hearts", 14), ("two-player", 26)])
def test_warm_table_plays_one_whole_hand(rules: str, at_least: int) -> None:
    # A whole hand of the human's decisions: every card of its hand, its bid (or pass, or draws) besides.
    assert warm_table(rules) >= at_least
