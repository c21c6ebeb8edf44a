"""Hearts [RULES 7]: rules options, the pass, the first trick, hearts breaking, scoring, match end."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env import HeartsRules, IllegalActionError, Rules, RulesError, SpadesEngine
from spades_env.cards import cards_to_mask, mask_to_cards, parse_card
from spades_env.engine import OVER, PLAY
from spades_env.engine.check import check_state
from spades_env.engine.records import hand_records, verify
from spades_env.games.hearts.phases import PASS
from spades_env.games.hearts.scoring import hearts_match_winner, score_hearts_hand

HEARTS = HeartsRules(name="hearts")
HEARTS_RULES = [HEARTS, HEARTS.replace(target_score=50), HEARTS.replace(partnership=True)]
ALL_HEARTS = list(range(26, 39))
QS, JD, TWO_CLUBS = parse_card("QS"), parse_card("JD"), parse_card("2C")

# Seat 0 holds every club but the two, and the ace of hearts: it wins every trick whatever
# anyone plays (nobody else has a club, and the ace of hearts is the top heart), so it
# takes every card: a moon. Seat 1 holds the two of clubs (and the jack of diamonds).
MOON_DEAL = [
    list(range(1, 13)) + [parse_card("AH")],
    [TWO_CLUBS] + list(range(13, 25)),
    [parse_card("AD")] + list(range(26, 38)),
    list(range(39, 52)),
]


def taken_masks(*seats: list[int]) -> np.ndarray:
    return np.array([[cards_to_mask(s) for s in seats]], dtype=np.uint64)


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


# ------------------------------------------------------------------------ rules
def test_hearts_defaults_and_presets():
    rules = HeartsRules()
    assert (rules.game, rules.partnership, rules.target_score, rules.max_hands) == ("hearts", False, 100, None)
    assert (rules.moon_subtracts, rules.jack_of_diamonds, rules.special_actions) == (False, False, ())
    assert not hasattr(rules, "blind_nil") and not hasattr(rules, "bags")  # Spades options only
    assert HeartsRules(partnership=True).n_sides == 2
    assert Rules().game == "spades" and Rules().target_score == 500 and Rules().partnership
    assert Rules.preset("hearts") == HeartsRules(name="hearts") and type(Rules.preset("hearts")) is HeartsRules


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"game": "hearts", "bemo": True}, "'bemo' is a Spades variant"),
        ({"game": "hearts", "blind_nil": True}, "'blind_nil' is a Spades option"),
        ({"game": "hearts", "lose_score": -100}, "'lose_score' is a Spades option"),
        ({"game": "hearts", "n_players": 3, "partnership": False}, "must be 4 for game 'hearts'"),
        ({"moon_subtracts": True}, "'moon_subtracts' is a Hearts option"),
        ({"jack_of_diamonds": True}, "'jack_of_diamonds' is a Hearts option"),
        ({"game": "bridge"}, "'game' must be one of"),
        ({"game": "hearts", "blind_nil": False}, "'blind_nil' is a Spades option and cannot be used with game 'hear"),
    ],
)
def test_options_of_the_other_game_are_rejected(fields, message):
    with pytest.raises(RulesError, match=message):
        Rules.from_dict(fields)
    rest = {k: v for k, v in fields.items() if k != "game"}
    builder = HeartsRules if fields.get("game") == "hearts" else Rules
    if fields.get("game") in (None, "hearts"):
        with pytest.raises(RulesError, match=message):
            builder(**rest)


def test_rules_builds_spades_and_points_a_hearts_construction_to_hearts_rules():
    with pytest.raises(RulesError, match=r"SpadesRules builds spades rules: use HeartsRules\(\.\.\.\), Rules.preset"):
        Rules(game="hearts")
    with pytest.raises(RulesError, match="HeartsRules builds hearts rules: use SpadesRules"):
        HeartsRules(game="spades")
    assert type(Rules.from_dict({"game": "hearts", "target_score": 50})) is HeartsRules
    assert type(HeartsRules.from_dict({"game": "spades"})) is Rules


def test_action_space_has_no_bids():
    engine = SpadesEngine(HEARTS)
    assert engine.layout.n_actions == 52 and engine.layout.specials == ()


# ------------------------------------------------------------------- the pass
@pytest.mark.parametrize("hand_number, offset", [(0, 1), (1, 3), (2, 2), (3, 0), (4, 1), (5, 3), (6, 2), (7, 0)])
def test_pass_direction_by_hand_number(hand_number, offset):
    """Left on hand 1, right on hand 2, across on hand 3, none on hand 4, and again [RULES 7]."""
    engine = SpadesEngine(HEARTS)
    state = engine.reset(5, hand_numbers=hand_number, dealers=0)
    assert int(engine.pass_offset(np.array([hand_number]))[0]) == offset
    dealt = [int(h) for h in state.deal[0]]
    if offset == 0:
        assert state.phase[0] == PLAY
        return
    passed = []
    for k in range(4):  # dealer+1 (seat 1) first, three cards each, clockwise
        seat = (1 + k) % 4
        chosen = mask_to_cards(dealt[seat])[-3:]  # the three highest card ids
        passed.append((seat, chosen))
        for c in chosen:
            assert state.phase[0] == PASS and state.to_move[0] == seat
            check_state(engine, state)
            engine.step(state, [c])
    assert state.phase[0] == PLAY
    check_state(engine, state)
    for seat, chosen in passed:
        receiver = (seat + offset) % 4
        held = mask_to_cards(int(state.hands[0, receiver]))
        assert set(chosen) <= set(held)
        assert not set(chosen) & set(mask_to_cards(int(state.hands[0, seat])))


def test_a_card_cannot_be_passed_twice_or_from_another_hand():
    engine = SpadesEngine(HEARTS)
    state = engine.reset(0, dealers=3, deals=[MOON_DEAL])  # seat 0 chooses first
    engine.step(state, [1])
    with pytest.raises(IllegalActionError, match="illegal action 1"):
        engine.step(state.copy(), [1])
    with pytest.raises(IllegalActionError, match="legal actions"):
        engine.step(state.copy(), [TWO_CLUBS])


def test_passed_cards_are_recorded_and_replay():
    engine = SpadesEngine(HEARTS)
    state = engine.reset(np.arange(6), hand_numbers=[0, 1, 2, 3, 0, 1])
    rng = np.random.default_rng(1)
    records = []
    while not len(records) >= 6:
        mask = engine.legal_action_mask(state)
        result = engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1))
        for f in result.finished:
            records += hand_records(engine, f)
    for rec in records:
        verify(rec)
        n_passed = [len(p) for p in rec["passed"]]
        assert n_passed == ([0] * 4 if rec["pass_offset"] == 0 else [3] * 4)
        assert sum(rec["points_taken"]) == 26


# -------------------------------------------------------------------- the play
def _no_pass_state(engine, deal, **kwargs):
    """A fourth hand (no pass) with a fixed deal."""
    return engine.reset(0, deals=[deal], hand_numbers=3, **kwargs)


def test_the_two_of_clubs_leads():
    engine = SpadesEngine(HEARTS)
    state = _no_pass_state(engine, MOON_DEAL, dealers=2)  # dealer+1 = seat 3, but seat 1 holds 2C
    assert state.phase[0] == PLAY and state.to_move[0] == 1
    assert np.flatnonzero(engine.legal_action_mask(state)[0]).tolist() == [TWO_CLUBS]


def test_first_trick_forbids_hearts_and_the_queen_unless_nothing_else():
    engine = SpadesEngine(HEARTS)
    # Seat 1 leads 2C; seat 2 has no club: hearts, QS and one diamond; seat 3 has no club and
    # only hearts and QS; seat 0 holds the other clubs.
    deal = [
        list(range(1, 13)) + cards("2D"),
        [TWO_CLUBS] + cards("3D 4D 5D 6D 7D 8D 9D TD JD QD KD 2S"),
        cards("AD 3S 4S 5S 6S 7S 8S 9S TS JS KS AS") + cards("2H"),
        ALL_HEARTS[1:] + [QS],
    ]
    state = _no_pass_state(engine, deal, dealers=0)
    engine.step(state, [TWO_CLUBS])  # seat 1
    legal = np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
    assert legal == sorted(cards("AD 3S 4S 5S 6S 7S 8S 9S TS JS KS AS"))  # not 2H
    engine.step(state, [parse_card("AD")])
    legal = np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
    assert legal == sorted(ALL_HEARTS[1:] + [QS])  # nothing else: any card
    check_state(engine, state)


def test_hearts_cannot_be_led_until_broken_unless_only_hearts():
    engine = SpadesEngine(HEARTS)
    state = _no_pass_state(engine, MOON_DEAL, dealers=0)
    # Trick 1: 2C, then seat 2 must play AD (no points on the first trick), seat 3 a spade, seat 0 a club.
    for card in (TWO_CLUBS, parse_card("AD"), parse_card("2S"), parse_card("3C")):
        engine.step(state, [card])
    assert state.to_move[0] == 0 and not state.spades_broken[0]
    legal = np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
    assert parse_card("AH") not in legal and legal == list(range(2, 13))
    # Seat 0 leads a club; seat 2 (only hearts left) discards one: hearts are broken.
    for card in (parse_card("4C"), parse_card("3D"), ALL_HEARTS[0], parse_card("3S")):
        engine.step(state, [card])
    assert state.spades_broken[0]  # Hearts: the field means hearts are broken
    assert state.broken is state.spades_broken  # its game-neutral name
    assert parse_card("AH") in np.flatnonzero(engine.legal_action_mask(state)[0]).tolist()
    check_state(engine, state)
    # A hand of only hearts may lead one before they are broken: seat 0 wins trick 1 with its
    # only club and is left with hearts alone.
    only_hearts = [
        cards("AC") + ALL_HEARTS[:-1],
        [TWO_CLUBS] + list(range(13, 25)),
        cards("AD AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS"),
        list(range(1, 12)) + cards("KS AS"),
    ]
    state = _no_pass_state(engine, only_hearts, dealers=0)
    for card in cards("2C AD 3C AC"):  # seats 1, 2, 3, 0
        engine.step(state, [card])
    assert state.to_move[0] == 0 and not state.spades_broken[0]
    assert np.flatnonzero(engine.legal_action_mask(state)[0]).tolist() == ALL_HEARTS[:-1]
    check_state(engine, state)


def test_highest_card_of_the_led_suit_wins_no_trump():
    engine = SpadesEngine(HEARTS)
    state = _no_pass_state(engine, MOON_DEAL, dealers=0)
    for card in (TWO_CLUBS, parse_card("AD"), parse_card("AS"), parse_card("3C")):
        engine.step(state, [card])
    assert state.trick_winners[0, 0] == 0  # the 3C beats the 2C; the aces are off-suit


# --------------------------------------------------------------------- scoring
@pytest.mark.parametrize(
    "options, seats, expected",
    [
        # 5 hearts; QS + 2 hearts; 6 hearts; nothing.
        ({}, [ALL_HEARTS[:5], [QS] + ALL_HEARTS[5:7], ALL_HEARTS[7:], []], [5, 15, 6, 0]),
        # Shooting the moon: the shooter 0, every opponent 26 ...
        ({}, [[], [], ALL_HEARTS + [QS], []], [26, 26, 0, 26]),
        # ... or the shooter -26 (moon_subtracts).
        ({"moon_subtracts": True}, [[], [], ALL_HEARTS + [QS], []], [0, 0, -26, 0]),
        # The jack of diamonds is worth -10 to its taker.
        ({"jack_of_diamonds": True}, [[QS], [JD] + ALL_HEARTS[:3], ALL_HEARTS[3:], []], [13, -7, 10, 0]),
        ({"jack_of_diamonds": True}, [ALL_HEARTS + [QS], [JD], [], []], [0, 16, 26, 26]),
        ({"jack_of_diamonds": True, "moon_subtracts": True}, [ALL_HEARTS + [QS, JD], [], [], []], [-36, 0, 0, 0]),
        # All 26 points between two players is no moon.
        ({}, [ALL_HEARTS, [QS], [], []], [13, 13, 0, 0]),
    ],
)
def test_score_hearts_hand_worked_examples(options, seats, expected):
    rules = HEARTS.replace(**options)
    score = score_hearts_hand(rules, taken_masks(*seats))
    assert score.seat_delta[0].tolist() == expected
    assert score.delta[0].tolist() == expected
    assert score.moon[0].any() == any(set(ALL_HEARTS + [QS]) <= set(s) for s in seats)


def test_partnership_scores_the_sum_of_the_team():
    rules = HEARTS.replace(partnership=True)
    plain = score_hearts_hand(rules, taken_masks(ALL_HEARTS[:5], [QS] + ALL_HEARTS[5:7], ALL_HEARTS[7:], []))
    assert plain.delta[0].tolist() == [5 + 6, 15 + 0]
    # Seat 1 shoots: both opponents (seats 0 and 2) get 26, the partner (seat 3) nothing.
    moon = score_hearts_hand(rules, taken_masks([], ALL_HEARTS + [QS], [], []))
    assert moon.seat_delta[0].tolist() == [26, 0, 26, 0] and moon.delta[0].tolist() == [52, 0]
    minus = score_hearts_hand(rules.replace(moon_subtracts=True), taken_masks([], ALL_HEARTS + [QS], [], []))
    assert minus.delta[0].tolist() == [0, -26]


@pytest.mark.parametrize(
    "scores, hands, max_hands, winner",
    [
        ([100, 50, 60, 70], 5, None, 1),  # a player reached 100: the lowest wins
        ([99, 50, 60, 70], 5, None, -1),  # nobody at 100 yet
        ([120, 50, 50, 70], 5, None, -1),  # tie for the lowest: play another hand
        ([20, 50, 60, 70], 3, 3, 0),  # max_hands reached
    ],
)
def test_match_ends_at_the_target_and_the_lowest_score_wins(scores, hands, max_hands, winner):
    rules = HEARTS.replace(max_hands=max_hands)
    assert hearts_match_winner(rules, np.array([scores]), np.array([hands])).tolist() == [winner]


@pytest.mark.parametrize(
    "options, start, after, winner",
    [
        ({}, [0, 0, 0, 0], [0, 26, 26, 26], -1),
        ({"moon_subtracts": True}, [0, 0, 0, 0], [-26, 0, 0, 0], -1),
        ({"jack_of_diamonds": True}, [0, 0, 0, 0], [-10, 26, 26, 26], -1),
        ({}, [0, 80, 90, 75], [0, 106, 116, 101], 0),  # the match ends, seat 0 lowest
        ({}, [40, 14, 80, 80], [40, 40, 106, 106], -1),  # tied for the lowest: play on
    ],
)
def test_engine_moon_and_match_end(options, start, after, winner):
    """The moon deal played out at random (seat 0 takes every trick whatever anyone plays)."""
    rules = HEARTS.replace(**options)
    engine = SpadesEngine(rules)
    state = engine.reset(np.arange(4), deals=[MOON_DEAL] * 4, hand_numbers=3, scores=[start] * 4)
    rng = np.random.default_rng(0)
    for _ in range(52):
        check_state(engine, state)
        mask = engine.legal_action_mask(state)
        result = engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1))
    assert result.hand_done.all()
    assert state.scores.tolist() == [after] * 4
    assert state.winner.tolist() == [winner] * 4
    assert (state.phase == OVER).all() == (winner >= 0)
    if winner < 0:
        assert (state.phase == PASS).all() and (state.hand_number == 4).all()  # hand 5 passes left again
    check_state(engine, state)


def test_random_hearts_matches_end_with_the_lowest_score_winning():
    for rules in HEARTS_RULES:
        engine = SpadesEngine(rules)
        state = engine.reset(np.arange(8))
        rng = np.random.default_rng(3)
        while not (state.phase == OVER).all():
            check_state(engine, state)
            mask = engine.legal_action_mask(state)
            engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1), validate=False)
        check_state(engine, state)
        target = engine.rules.target_score
        assert (state.scores.max(axis=1) >= target).all()
        lowest = state.scores.min(axis=1)
        assert (state.scores[np.arange(8), state.winner] == lowest).all()
        assert ((state.scores == lowest[:, None]).sum(axis=1) == 1).all()


# ------------------------------------------------------------- environments
HEARTS_PRESETS = ["hearts", "hearts-50", "hearts-partnership"]


def test_presets():
    assert Rules.preset("hearts").game == "hearts" and Rules.preset("hearts").target_score == 100
    assert Rules.preset("hearts-50").target_score == 50
    assert Rules.preset("hearts-partnership").partnership


@pytest.mark.parametrize("perfect", [False, True])
@pytest.mark.parametrize("preset", HEARTS_PRESETS)
def test_observation_blocks_read_the_state(preset, perfect):
    """Points per seat, the pass known to passer and receiver, the pass direction and phase."""
    from spades_env.games.hearts.observation import HeartsObservationEncoder
    from spades_env.observation import encoder_for

    engine = SpadesEngine(preset)
    enc = encoder_for(engine, perfect_information=perfect)
    assert isinstance(enc, HeartsObservationEncoder) and enc.VERSION == 1
    covered = np.zeros(enc.size, int)
    for sl in enc.slices.values():
        covered[sl] += 1
    assert (covered == 1).all() and ("all_hands" in enc.slices) == perfect
    assert "bid" not in enc.slices and "points" in enc.slices
    state = engine.reset(np.arange(4), hand_numbers=[0, 1, 2, 3])
    rng = np.random.default_rng(0)
    for _ in range(60):
        for seat in range(4):
            obs = enc.encode(state, np.arange(4), np.full(4, seat))
            assert ((obs >= enc.low) & (obs <= enc.high)).all()
            for g in range(4):
                offset = int(engine.pass_offset(state.hand_number[g : g + 1])[0])
                giver = (seat - offset) % 4
                passing = state.phase[g] == PASS
                got = mask_to_cards(int(state.passed[g, giver])) if offset and not passing else []
                assert np.flatnonzero(enc.view(obs[g], "received")).tolist() == got
                assert np.flatnonzero(enc.view(obs[g], "passed")).tolist() == mask_to_cards(int(state.passed[g, seat]))
                points = [state.points_taken[g, (seat + j) % 4] / 26 for j in range(4)]
                np.testing.assert_allclose(enc.view(obs[g], "points"), points)
                assert enc.view(obs[g], "pass_direction").tolist() == np.eye(4)[int(state.hand_number[g]) % 4].tolist()
                assert np.flatnonzero(enc.view(obs[g], "hand")).tolist() == mask_to_cards(int(state.hands[g, seat]))
            one = enc.encode(state, np.array([2]), np.array([seat]))
            np.testing.assert_array_equal(one[0], obs[2])
        mask = engine.legal_action_mask(state)
        engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1), validate=False)


def test_aec_env_is_hearts_v0_with_negative_point_rewards_and_a_points_render():
    import spades_env

    env = spades_env.env(rules="hearts", render_mode="ansi")
    env.reset(seed=3)
    assert env.unwrapped.metadata["name"] == "hearts_v0"
    assert spades_env.env(rules="partnership").unwrapped.metadata["name"] == "spades_v0"
    assert env.action_space("player_0").n == 52
    text = env.render()
    assert text.startswith("Hearts [hearts]") and "points" in text and "pass left" in text
    rng = np.random.default_rng(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = env.unwrapped.game_state.scores[0]
    assert [totals[f"player_{s}"] for s in range(4)] == [-float(x) for x in scores]
    assert "lowest wins" in env.render()
