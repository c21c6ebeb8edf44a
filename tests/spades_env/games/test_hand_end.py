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
from spades_env.games.hearts import hand_score as hearts_hand_score
from spades_env.games.hearts.hand_score import MOON_MASK
from spades_env.games.hearts.reference import HeartsReferenceGame
from spades_env.games.spades import hand_score as spades_hand_score
from spades_env.rules import HeartsRules, resolve_rules

PRESETS = [p.stem for p in sorted((Path(spades_env.__file__).parent / "presets").glob("*.yaml"))]
SPADES_PRESETS = [p for p in PRESETS if resolve_rules(p).game != "hearts"]


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


HEARTS_PRESETS = [p for p in PRESETS if resolve_rules(p).game == "hearts"]
HEARTS_OPTIONS = [
    HeartsRules(moon_subtracts=True, jack_of_diamonds=True, max_hands=2),
    HeartsRules(partnership=True, jack_of_diamonds=True),
    HeartsRules(partnership=True, moon_subtracts=True, target_score=40),
]


def hearts_outputs(g: int, n: int, s: int) -> list[np.ndarray]:
    """Output rows of ``hearts_hand_score.finish_hand`` for g games (row 0 a sentinel, left alone)."""
    return [
        np.zeros((g + 1, n), np.uint64),
        np.full((g + 1, n), 7, np.int64),
        np.zeros((g + 1, n), bool),
        np.full((g + 1, n), 7, np.int64),
        np.full((g + 1, s), 7, np.int64),
        np.full((g + 1, s), 7, np.int64),
    ]


@pytest.mark.parametrize("preset", HEARTS_PRESETS)
def test_hearts_finish_hand_reproduces_the_engines_hand_end(preset):
    rules = resolve_rules(preset)
    t = hearts_hand_score.hearts_tables(rules)
    hands = played_hands(rules, start_scores=[[rules.target_score - 15] * rules.n_sides] * 12)
    assert any((w >= 0).any() for _, w in hands) and any((w < 0).any() for _, w in hands)
    for f, winners in hands:
        g = len(f.games)
        out = hearts_outputs(g, rules.n_players, rules.n_sides)
        taken, points, _, _, delta, scores_after = out
        for i in range(g):
            winner = hearts_hand_score.finish_hand(
                i, f.history, f.trick_winners, f.start_scores, f.hand_number, t, i + 1, *out
            )
            assert winner == winners[i]
        np.testing.assert_array_equal(delta[1:], f.delta)
        np.testing.assert_array_equal(scores_after[1:], f.scores)
        np.testing.assert_array_equal(points[1:], f.points_taken)  # the trick play's running count
        assert (delta[0] == 7).all() and not taken[0].any()


@pytest.mark.parametrize("rules", [resolve_rules(p) for p in HEARTS_PRESETS] + HEARTS_OPTIONS)
def test_hearts_finish_hand_agrees_with_the_reference_engine(rules):
    """Random tricks (a shuffled deck, random winners; a third of the hands one seat takes every
    trick with a heart or the queen: a moon), scored by ``finish_hand`` and by the plain-Python
    ``HeartsReferenceGame.score_hand``: the same points, scores and winner."""
    rng = np.random.default_rng(len(rules.name) + rules.moon_subtracts)
    n, s, t = rules.n_players, rules.n_sides, hearts_hand_score.hearts_tables(rules)
    for _ in range(100):
        history = rng.permutation(52).reshape(1, 13, n)
        winners = rng.integers(0, n, (1, 13))
        if rng.random() < 1 / 3:
            moon_tricks = [k for k in range(13) if any(int(MOON_MASK) >> c & 1 for c in history[0, k])]
            winners[0, moon_tricks] = rng.integers(0, n)
        scores = rng.integers(0, rules.target_score + 10, (1, s))
        hand_number = np.array([rng.integers(0, 4)])
        game = HeartsReferenceGame(
            rules, [list(range(13 * k, 13 * k + 13)) for k in range(n)], 0, scores=scores[0].tolist()
        )
        game.history = [[(seat, int(c)) for seat, c in enumerate(trick)] for trick in history[0]]
        game.trick_winners, game.hand_number = winners[0].tolist(), int(hand_number[0])
        game.score_hand()
        out = hearts_outputs(1, n, s)
        winner = hearts_hand_score.finish_hand(0, history, winners, scores, hand_number, t, 1, *out)
        assert out[4][1].tolist() == game.last_points
        assert out[5][1].tolist() == game.scores
        assert winner == game.winner
