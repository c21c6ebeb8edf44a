"""The one-game compiled hand end that the compiled engine step calls, per game:
``games.spades.hand_score.finish_hand`` and ``games.hearts.hand_score.finish_hand``.

Fed the state fields of hands the engine played (as its ``FinishedHands`` records keep them),
each reproduces the engine's score breakdown and match end, on every preset.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spades_env
from spades_env.engine import SpadesEngine
from spades_env.games.spades import hand_score as spades_hand_score
from spades_env.rules import resolve_rules

PRESETS = [p.stem for p in sorted((Path(spades_env.__file__).parent / "presets").glob("*.yaml"))]
SPADES_PRESETS = [p for p in PRESETS if not resolve_rules(p).hearts]


def played_hands(rules, n_games: int = 12, seed: int = 0, start_scores=None):
    """(finished hands of every step, the step's winners of those games), from random legal play
    until every game has finished two hands."""
    engine = SpadesEngine(rules)
    state = engine.reset(np.arange(n_games) + 100 * seed, scores=start_scores)
    rng = np.random.default_rng(seed)
    out, done = [], np.zeros(n_games, np.int64)
    while (done < 2).any():
        result = engine.step(state, engine.random_actions(state, rng), auto_reset=True)
        for f in result.finished:
            out.append((f, result.winner[f.games]))
        done += result.hand_done
    return out


@pytest.mark.parametrize("preset", SPADES_PRESETS)
def test_spades_finish_hand_reproduces_the_engines_hand_end(preset):
    rules = resolve_rules(preset)
    t = spades_hand_score.score_tables(rules)
    near_end = [[rules.target_score - 40] * rules.n_sides]  # so that some matches end
    hands = played_hands(rules, start_scores=near_end * 12)
    assert any((w >= 0).any() for _, w in hands) and any((w < 0).any() for _, w in hands)
    for f, winners in hands:
        g, s = len(f.games), rules.n_sides
        out = [np.full((g + 1, s), 7, np.int64) for _ in range(2)] + [np.zeros((g + 1, s), bool)]
        out += [np.full((g + 1, s), 7, np.int64) for _ in range(2)] + [np.zeros((g + 1, s), bool)]
        out += [np.full((g + 1, s), 7, np.int64)]
        delta, bags_after, made, added, penalties, boston, scores_after = out
        for i in range(g):
            winner = spades_hand_score.finish_hand(
                i, f.tricks_won, f.bids, f.blind, f.trick_winners, f.bemo, f.start_scores, f.start_bags,
                f.hand_number, t, i + 1, *out,
            )  # fmt: skip
            assert winner == winners[i]
        for name, got in (("delta", delta), ("bags", bags_after), ("made", made), ("scores", scores_after)):
            np.testing.assert_array_equal(got[1:], getattr(f, name), err_msg=name)
        np.testing.assert_array_equal(added[1:], f.bags_added)
        np.testing.assert_array_equal(penalties[1:], f.bag_penalties)
        assert (delta[0] == 7).all()  # row o = i + 1 only: row 0 untouched
