"""Scoring [RULES 3, 5]: every worked example, bags, nil, set penalties and match end.

Each example is checked on ``score_hand`` directly and, where a deal can produce it,
through whole hands played by the engine.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import spades_env
from spades_env import Rules, SpadesEngine
from spades_env.engine import OVER
from spades_env.games.spades.reference import SpadesReferenceGame as ReferenceGame
from spades_env.games.spades.scoring import bag_adjusted_points, match_winner, score_hand, settle_bags
from spades_env.rules import resolve_rules

PARTNERSHIP = Rules.preset("partnership")
CUT = {n: Rules(n_players=n, partnership=False) for n in (3, 4, 5, 6)}
CUT_BONUS = {
    n: Rules(n_players=n, partnership=False, big_bid_bonus=True, exact_small_bid_bonus=n in (3, 4))
    for n in (3, 4, 5, 6)
}

# (id, rules, bids, blind seats, tricks, start bags, expected points, expected bags after)
EXAMPLES = [
    # [RULES 3, source 002]: seat 0 bids nil, partner (seat 2) bids 4.
    ("nil-made-partner-set-+60", PARTNERSHIP, [0, 3, 4, 3], (), [0, 5, 3, 5], [0, 0], [60, 64], [0, 4]),
    ("nil-failed-partner-made-(-58)", PARTNERSHIP, [0, 3, 4, 3], (), [1, 4, 5, 3], [0, 0], [-58, 61], [2, 1]),
    ("nil-failed-partner-set-(-139)", PARTNERSHIP, [0, 3, 4, 3], (), [1, 5, 3, 4], [0, 0], [-139, 63], [1, 3]),
    # plain contracts [RULES 3, sources 000, 002]
    ("bid-8-take-8-80", PARTNERSHIP, [4, 2, 4, 3], (), [4, 2, 4, 3], [0, 0], [80, 50], [0, 0]),
    ("bid-4-take-7-43", PARTNERSHIP, [2, 3, 2, 3], (), [3, 3, 4, 3], [0, 0], [43, 60], [3, 0]),
    ("bid-4-take-6-42", PARTNERSHIP, [2, 3, 2, 3], (), [3, 4, 3, 3], [0, 0], [42, 61], [2, 1]),
    ("bid-5-set-(-50)", PARTNERSHIP, [3, 4, 2, 4], (), [2, 5, 2, 4], [0, 0], [-50, 81], [0, 1]),
    # bag penalty when the bags reach 10, and twice when they reach 20
    ("bags-reach-10", PARTNERSHIP, [2, 3, 2, 3], (), [3, 3, 4, 3], [8, 0], [-57, 60], [1, 0]),
    ("bags-reach-exactly-10", PARTNERSHIP, [2, 3, 2, 3], (), [3, 3, 4, 3], [7, 0], [-57, 60], [0, 0]),
    ("bags-reach-20", PARTNERSHIP, [1, 0, 1, 0], (), [7, 0, 6, 0], [9, 0], [31 - 200, 200], [0, 0]),
    (
        "failed-nil-tricks-are-bags",
        PARTNERSHIP,
        [0, 3, 4, 3],
        (),
        [2, 3, 5, 3],
        [8, 0],
        [-100 + 41 + 2 - 100, 60],
        [1, 0],
    ),
    # double nil: each nil scores on its own
    ("double-nil-made-+200", PARTNERSHIP, [0, 6, 0, 6], (), [0, 6, 0, 7], [0, 0], [200, 121], [0, 1]),
    ("double-nil-failed-(-200)", PARTNERSHIP, [0, 6, 0, 6], (), [1, 5, 2, 5], [0, 0], [-200 + 3, -120], [3, 0]),
    ("double-nil-split-0", PARTNERSHIP, [0, 6, 0, 6], (), [0, 6, 1, 6], [0, 0], [0 + 1, 120], [1, 0]),
    # blind nil +/-200
    ("blind-nil-made-+200", PARTNERSHIP, [0, 3, 4, 3], (0,), [0, 5, 4, 4], [0, 0], [240, 63], [0, 3]),
    ("blind-nil-failed-(-200)", PARTNERSHIP, [0, 3, 4, 3], (0,), [2, 3, 4, 4], [0, 0], [-200 + 2 + 40, 61], [2, 1]),
    # set penalty options
    ("set-short", PARTNERSHIP.replace(set_penalty="short"), [3, 4, 2, 4], (), [2, 5, 2, 4], [0, 0], [-10, 81], [0, 1]),
    ("set-zero", PARTNERSHIP.replace(set_penalty="zero"), [3, 4, 2, 4], (), [2, 5, 2, 4], [0, 0], [0, 81], [0, 1]),
    (
        "set-zero-nil",
        PARTNERSHIP.replace(set_penalty="zero"),
        [0, 3, 4, 3],
        (),
        [0, 5, 3, 5],
        [0, 0],
        [100, 64],
        [0, 4],
    ),
    # bags off: overtricks still score a point, but nothing accumulates
    ("bags-off", PARTNERSHIP.replace(bags=False), [2, 3, 2, 3], (), [3, 3, 4, 3], [8, 0], [43, 60], [8, 0]),
    (
        "bag-limit-5",
        PARTNERSHIP.replace(bag_limit=5, bag_penalty=50),
        [2, 3, 2, 3],
        (),
        [3, 3, 4, 3],
        [4, 0],
        [-7, 60],
        [2, 0],
    ),
    # cutthroat [RULES 5]: 4 players, bid 10 take 11 -> 100 + 1 + 20 = 121
    (
        "cut4-bid-10-take-11-121",
        CUT_BONUS[4],
        [10, 1, 1, 1],
        (),
        [11, 1, 1, 0],
        [0] * 4,
        [121, 30, 30, -10],
        [1, 0, 0, 0],
    ),
    ("cut4-no-bonus", CUT[4], [10, 1, 1, 1], (), [11, 1, 1, 0], [0] * 4, [101, 10, 10, -10], [1, 0, 0, 0]),
    ("cut4-bid-2-take-3-21", CUT_BONUS[4], [2, 2, 1, 4], (), [3, 2, 4, 4], [0] * 4, [21, 40, 13, 40], [1, 0, 3, 0]),
    ("cut4-big-bid-set", CUT_BONUS[4], [10, 0, 1, 1], (), [9, 0, 2, 2], [0] * 4, [-100, 100, 11, 11], [0, 0, 1, 1]),
    ("cut3-threshold-10", CUT_BONUS[3], [11, 2, 1], (), [11, 4, 2], [0] * 3, [120, 22, 11], [0, 2, 1]),
    ("cut3-at-threshold", CUT_BONUS[3], [10, 2, 1], (), [11, 4, 2], [0] * 3, [101, 22, 11], [1, 2, 1]),
    ("cut5-threshold-7", CUT_BONUS[5], [8, 1, 0, 0, 1], (), [8, 1, 0, 0, 1], [0] * 5, [90, 10, 100, 100, 10], [0] * 5),
    (
        "cut6-threshold-6",
        CUT_BONUS[6],
        [7, 1, 0, 0, 0, 0],
        (),
        [7, 1, 0, 0, 0, 0],
        [0] * 6,
        [80, 10] + [100] * 4,
        [0] * 6,
    ),
    (
        "cut6-nil-failed",
        CUT[6],
        [7, 0, 0, 0, 0, 0],
        (),
        [6, 2, 0, 0, 0, 0],
        [0] * 6,
        [-70, -98] + [100] * 4,
        [0, 2, 0, 0, 0, 0],
    ),
]


@pytest.mark.parametrize(
    "rules, bids, blind, tricks, bags, points, new_bags", [e[1:] for e in EXAMPLES], ids=[e[0] for e in EXAMPLES]
)
def test_score_hand_worked_examples(rules, bids, blind, tricks, bags, points, new_bags):
    assert sum(tricks) == rules.hand_size
    blind_flags = [seat in blind for seat in range(rules.n_players)]
    score = score_hand(rules, [bids], [blind_flags], [tricks], [bags])
    assert score.delta[0].tolist() == points
    assert score.bags[0].tolist() == new_bags


@pytest.mark.parametrize(
    "rules, bids, blind, tricks, bags, points, new_bags", [e[1:] for e in EXAMPLES], ids=[e[0] for e in EXAMPLES]
)
def test_reference_engine_scores_the_worked_examples(rules, bids, blind, tricks, bags, points, new_bags):
    deck, k = list(rules.deck), rules.hand_size
    game = ReferenceGame(rules, [deck[i * k : (i + 1) * k] for i in range(rules.n_players)], 0, bags=bags)
    game.bids, game.tricks_won = list(bids), list(tricks)
    game.blind = [seat in blind for seat in range(rules.n_players)]
    game.score_hand()
    assert game.last_points == points
    assert game.bags == new_bags


def test_score_hand_is_vectorized_over_games():
    rows = [e for e in EXAMPLES if e[1] is PARTNERSHIP]
    bids = [e[2] for e in rows]
    blind = [[seat in e[3] for seat in range(4)] for e in rows]
    score = score_hand(PARTNERSHIP, bids, blind, [e[4] for e in rows], [e[5] for e in rows])
    assert score.delta.tolist() == [e[6] for e in rows]
    assert score.bags.tolist() == [e[7] for e in rows]


def test_bag_penalties_are_counted():
    score = score_hand(PARTNERSHIP, [[1, 0, 1, 0]], [[False] * 4], [[7, 0, 6, 0]], [[9, 0]])
    assert score.bag_penalties[0].tolist() == [2, 0]
    assert score.made[0].tolist() == [True, True]


# ------------------------------------------------------------------ match end
MATCH_END = [
    ("below-target-goes-on", PARTNERSHIP, [499, 300], 1, -1),
    ("reaching-target-wins", PARTNERSHIP, [500, 300], 1, 0),
    ("both-over-higher-wins", PARTNERSHIP, [510, 520], 1, 1),
    ("tie-at-target-plays-on", PARTNERSHIP, [510, 510], 1, -1),
    ("mercy-at-lose-score", PARTNERSHIP, [-200, 100], 1, 1),
    ("above-mercy-goes-on", PARTNERSHIP, [-199, 100], 1, -1),
    ("mercy-off", PARTNERSHIP.replace(lose_score=None), [-900, 100], 1, -1),
    ("mercy-negative-target", PARTNERSHIP.replace(lose_score="-target"), [-499, 0], 1, -1),
    ("mercy-negative-target-hit", PARTNERSHIP.replace(lose_score="-target"), [-500, 0], 1, 1),
    ("max-hands-not-yet", PARTNERSHIP.replace(max_hands=3), [100, 50], 2, -1),
    ("max-hands-higher-wins", PARTNERSHIP.replace(max_hands=3), [100, 50], 3, 0),
    ("max-hands-tie-plays-on", PARTNERSHIP.replace(max_hands=3), [50, 50], 3, -1),
    ("target-250", Rules.preset("partnership-250"), [250, 240], 4, 0),
    ("cutthroat-highest-wins", CUT[3], [505, 510, 300], 2, 1),
    ("cutthroat-tie-at-top-plays-on", CUT[3], [510, 510, 600 - 100], 2, -1),
    ("cutthroat-mercy-highest-wins", CUT[4], [-210, 40, 90, 10], 2, 2),
]


@pytest.mark.parametrize("rules, scores, hands, winner", [e[1:] for e in MATCH_END], ids=[e[0] for e in MATCH_END])
def test_match_winner(rules, scores, hands, winner):
    assert match_winner(rules, [scores], [hands]).tolist() == [winner]


# -------------------------------------------------------- through whole hands
def _played_hands(rules, bids, blind, bid_all, play_randomly, n_games=2048, bags=None):
    """Deal ``n_games`` random hands (dealer 0), bid as given, play randomly."""
    engine = SpadesEngine(rules)
    state = engine.reset(np.arange(n_games), dealers=0, bags=bags)
    bid_all(engine, state, bids, blind)
    (finished,) = play_randomly(engine, state, seed=1)
    return finished


THROUGH_GAMES = [
    # (id, bids, blind seats, side-0 condition on tricks (seat 0, seat 2), expected side-0 points)
    ("+60", [0, 3, 4, 3], (), (0, 3), 60),
    ("-58", [0, 3, 4, 3], (), (1, 5), -58),
    ("-139", [0, 3, 4, 3], (), (1, 3), -139),
    ("80", [4, 3, 4, 3], (), (4, 4), 80),
    ("43", [2, 3, 2, 3], (), (3, 4), 43),
    ("42", [2, 3, 2, 3], (), (3, 3), 42),
    ("-50", [3, 3, 2, 3], (), (2, 2), -50),
    ("blind+200", [0, 3, 4, 3], (0,), (0, 4), 240),
    ("blind-200", [0, 3, 4, 3], (0,), (1, 3), -200 - 40 + 1),
]


@pytest.mark.parametrize(
    "bids, blind, tricks, points", [e[1:] for e in THROUGH_GAMES], ids=[e[0] for e in THROUGH_GAMES]
)
def test_worked_examples_through_played_hands(bids, blind, tricks, points, bid_all, play_randomly):
    fin = _played_hands(PARTNERSHIP, bids, blind, bid_all, play_randomly)
    hit = (fin.tricks_won[:, 0] == tricks[0]) & (fin.tricks_won[:, 2] == tricks[1])
    assert hit.sum() >= 3, "too few random hands produced the example"
    assert np.all(fin.delta[hit, 0] == points)
    assert np.all(fin.scores[hit, 0] == points)
    assert np.all(fin.blind[:, 0] == (0 in blind))


def test_bag_penalty_through_played_hands(bid_all, play_randomly):
    fin = _played_hands(PARTNERSHIP, [1, 1, 1, 1], (), bid_all, play_randomly, n_games=256, bags=[9, 5])
    team0 = fin.tricks_won[:, 0] + fin.tricks_won[:, 2]
    over0 = np.where(team0 >= 2, team0 - 2, 0)
    penalties = (9 + over0) // 10
    assert np.any(penalties == 1) and np.any(team0 == 2)
    assert np.all(fin.bags[:, 0] == (9 + over0) % 10)
    expected = np.where(team0 >= 2, 20 + over0, -20) - 100 * penalties
    assert np.all(fin.delta[:, 0] == expected)


def test_cutthroat_bonuses_through_played_hands(suit_deal, bid_all, play_randomly):
    """Seat 3 takes all 13 tricks of the suit deal: bid 10 take 13 -> 100 + 3 + 20 (big bid)."""
    engine = SpadesEngine(CUT_BONUS[4])
    state = engine.reset(0, deals=[suit_deal], dealers=0)
    bid_all(engine, state, [0, 1, 2, 10])
    (fin,) = play_randomly(engine, state)
    assert fin.delta[0].tolist() == [100, -10, -20, 123]
    assert fin.bags[0].tolist() == [0, 0, 0, 3]


def test_score_hand_agrees_with_random_cutthroat_hands(bid_all, play_randomly):
    rules = CUT_BONUS[4]
    fin = _played_hands(rules, [10, 1, 2, 0], (), bid_all, play_randomly, n_games=1024)
    again = score_hand(rules, fin.bids, fin.blind, fin.tricks_won, np.zeros((len(fin.games), 4), np.int64))
    assert np.array_equal(again.delta, fin.delta)
    exact = fin.tricks_won[:, 1] == 1
    assert exact.any() and np.all(fin.delta[exact, 1] == 30)
    two = fin.tricks_won[:, 2]
    assert np.all(fin.delta[two == 2, 2] == 40) and np.all(fin.delta[two == 3, 2] == 21)


def test_double_nil_through_a_played_hand(suit_deal, bid_all, play_randomly):
    engine = SpadesEngine(PARTNERSHIP)
    state = engine.reset(0, deals=[suit_deal], dealers=0)
    bid_all(engine, state, [0, 0, 0, 5], blind=(0,))
    (fin,) = play_randomly(engine, state)
    assert fin.delta[0].tolist() == [200 + 100, 100 + 50 + 8]
    state = engine.reset(0, deals=[suit_deal], dealers=0)
    bid_all(engine, state, [4, 4, 4, 0])  # seat 3 nil takes 13: -100 + 13 bag points, 13 bags
    (fin,) = play_randomly(engine, state)
    assert fin.delta[0].tolist() == [-80, -100 + 13 - 40 - 100]
    assert fin.bags[0].tolist() == [0, 3]


# ---------------------------------------------------- match end in played games
def test_tie_at_target_plays_another_hand(suit_deal, bid_all, play_randomly):
    """Seat 3 takes all 13 tricks of the suit deal: side 1 bids 13 (+130), side 0 double
    nil (+200), seat 1 nil (+100); from 330 / 300 both sides end on 530 and another hand is dealt."""
    engine = SpadesEngine(PARTNERSHIP)
    state = engine.reset(0, deals=[suit_deal], dealers=0, scores=[330, 300])
    bid_all(engine, state, [0, 0, 0, 13])
    (fin,) = play_randomly(engine, state)
    assert fin.tricks_won[0].tolist() == [0, 0, 0, 13]
    assert fin.delta[0].tolist() == [200, 130 + 100]
    assert state.scores[0].tolist() == [530, 530]
    assert state.winner[0] == -1 and state.phase[0] != OVER
    assert state.hand_number[0] == 1 and state.dealer[0] == 1


def test_higher_score_wins_when_both_reach_target(suit_deal, bid_all, play_randomly):
    engine = SpadesEngine(PARTNERSHIP)
    state = engine.reset(0, deals=[suit_deal], dealers=0, scores=[330, 301])
    bid_all(engine, state, [0, 0, 0, 13])
    play_randomly(engine, state)
    assert state.scores[0].tolist() == [530, 531]
    assert state.phase[0] == OVER and state.winner[0] == 1


def test_mercy_ends_the_match(suit_deal, bid_all, play_randomly):
    engine = SpadesEngine(PARTNERSHIP)
    state = engine.reset(0, deals=[suit_deal], dealers=0, scores=[-150, 0])
    bid_all(engine, state, [3, 0, 3, 13])  # side 0 is set: -60
    play_randomly(engine, state)
    assert state.scores[0].tolist() == [-210, 230]
    assert state.phase[0] == OVER and state.winner[0] == 1


def test_max_hands_ends_the_match(suit_deal, bid_all, play_randomly):
    engine = SpadesEngine(PARTNERSHIP.replace(max_hands=1))
    state = engine.reset(0, deals=[suit_deal], dealers=0)
    bid_all(engine, state, [1, 0, 1, 13])
    play_randomly(engine, state)
    assert state.scores[0].tolist() == [-20, 230]
    assert state.phase[0] == OVER and state.winner[0] == 1


def test_set_penalty_options_through_a_played_hand(suit_deal, bid_all, play_randomly):
    for option, expected in (("bid", -50), ("short", -50), ("zero", 0)):
        engine = SpadesEngine(PARTNERSHIP.replace(set_penalty=option))
        state = engine.reset(0, deals=[suit_deal], dealers=0)
        bid_all(engine, state, [2, 0, 3, 13])  # side 0 bids 5 and takes nothing
        (fin,) = play_randomly(engine, state)
        assert fin.delta[0, 0] == expected, option


SPADES_PRESETS = [p.stem for p in sorted((Path(spades_env.__file__).parent / "presets").glob("*.yaml"))]
SPADES_PRESETS = [p for p in SPADES_PRESETS if resolve_rules(p).game != "hearts"]
OPTION_RULES = [
    Rules(set_penalty="short", boston=True, ten_for_two_hundred=True, max_hands=4),
    Rules(set_penalty="zero", bags=False, lose_score="-target"),
    Rules(boston=True, boston_wins_match=True, bemo=True, bag_limit=5, bag_penalty=50),
    CUT_BONUS[3],
    CUT_BONUS[5].replace(max_hands=3, lose_score=None),
]


@pytest.mark.parametrize(
    "rules", [resolve_rules(p) for p in SPADES_PRESETS] + OPTION_RULES, ids=SPADES_PRESETS + ["opt"] * 5
)
def test_score_hand_and_match_winner_agree_with_the_reference_engine(rules):
    """The compiled scoring (through ``score_hand`` and ``match_winner``) against the plain-Python
    statement of the rules in ``SpadesReferenceGame.score_hand``, on random bids (plenty of
    nils and blind nils), tricks, bags, scores, hands played, trick winners and Bemo declarations."""
    rng = np.random.default_rng(rules.n_players + 7 * rules.bags)
    n, s, h = rules.n_players, rules.n_sides, rules.hand_size
    deck = list(rules.deck)
    for _ in range(150):
        bids = rng.integers(0, h + 1, n) * (rng.random(n) > 0.3)
        blind = (bids == 0) & (rng.random(n) < 0.5)
        tricks = rng.multinomial(h, np.ones(n) / n)  # a played hand's tricks sum to the hand size
        bags = rng.integers(0, rules.bag_limit, s) if rules.bags else np.zeros(s, np.int64)
        scores = rng.integers(-300, rules.target_score + 30, s)
        winners = rng.integers(0, n, h)
        if rng.random() < 0.5:
            winners[:9] = rng.integers(0, n)  # one seat takes the first 9 tricks: a made Bemo
        bemo = rng.integers(0, 3, s) if rules.bemo else np.zeros(s, np.int64)
        hands_played = int(rng.integers(0, 6))
        hands = [deck[i * h : (i + 1) * h] for i in range(n)]
        face_up = [hand[:4] for hand in hands] if rules.face_up_deal else None
        if rules.two_player:
            game = ReferenceGame(rules, dealer=0, bags=bags.tolist(), pile=deck)
        else:
            game = ReferenceGame(rules, hands, 0, bags=bags.tolist(), face_up=face_up)
        game.bids, game.blind, game.tricks_won = bids.tolist(), blind.tolist(), tricks.tolist()
        game.trick_winners, game.bemo = winners.tolist(), bemo.tolist()
        game.scores, game.hand_number = scores.tolist(), hands_played
        game.score_hand()
        score = score_hand(rules, [bids], [blind], [tricks], [bags], trick_winners=[winners], bemo=[bemo])
        assert score.delta[0].tolist() == game.last_points
        assert score.bags[0].tolist() == game.bags
        after = scores + score.delta[0]
        assert match_winner(rules, [after], [hands_played + 1], boston=score.boston).tolist() == [game.winner]


def test_score_hand_of_counts_outside_a_played_hand():
    """Bids over the hand size (or tricks that do not sum to it) are scored by the same rule:
    bid 15 + 3, take 4 + 3: set, -180 under ``set_penalty`` bid; the other side 60 and bags."""
    score = score_hand(PARTNERSHIP, [[3, 3, 15, 3]], np.zeros((1, 4), bool), [[3, 3, 4, 3]], [[0, 0]])
    assert score.delta.tolist() == [[-180, 60]] and score.made.tolist() == [[False, True]]
    assert score.bags_added.tolist() == [[0, 0]]


def test_settle_bags_takes_off_every_bag_limit_bags_as_one_penalty():
    """[RULES 3]: 8 bags + 5 taken = 13: one penalty, 3 bags left; 9 + 21 = 30: three, none left."""
    assert settle_bags(PARTNERSHIP, 8, 5) == (3, 1)
    assert settle_bags(PARTNERSHIP, 2, 3) == (5, 0)
    bags, penalties = settle_bags(PARTNERSHIP, np.array([[8, 9]]), np.array([[5, 21]]))
    assert bags.tolist() == [[3, 0]] and penalties.tolist() == [[1, 3]]


def test_score_hand_breakdown_of_a_worked_example():
    """Side 0 bids 4 + nil, takes 7 + 1 (a failed nil): 3 overtricks + 1 bag from 8 bags: 12, one penalty.
    Side 1 bids 3 + blind nil, takes 5 + 0: made blind nil, no bag (5 bags taken: 5 - 3 = 2)."""
    score = score_hand(
        PARTNERSHIP, [[4, 3, 0, 0]], [[False, False, False, True]], [[7, 5, 1, 0]], [[8, 0]], in_range=True
    )
    assert score.bags_added.tolist() == [[4, 2]] and score.bag_penalties.tolist() == [[1, 0]]
    assert score.bags.tolist() == [[2, 2]]
    # 40 + 3 - 100 (failed nil) + 1 - 100 (penalty); 30 + 2 + 200 (blind nil)
    assert score.delta.tolist() == [[-156, 232]]
    adjusted = bag_adjusted_points(PARTNERSHIP, score.delta, score.bags_added, score.bag_penalties)
    assert adjusted.tolist() == [[-156 + 100 - 4 * 10.0, 232 - 2 * 10.0]]
    off = score_hand(PARTNERSHIP.replace(bags=False), [[4, 3, 0, 0]], [[False] * 4], [[7, 5, 1, 0]], [[0, 0]])
    assert off.bags_added.tolist() == [[0, 0]] and off.bag_penalties.tolist() == [[0, 0]]
