"""A new game is one folder and one registry line: Tricks (``tests/toy_game``, a test-only game outside the
package) is registered here and plays through the engine, agreeing with its reference engine on random
games, through the PettingZoo AEC env (PettingZoo's ``api_test``), the records, the text and the random bot.
Its state has a field of its own (``best_hands``, declared in its folder's ``state_fields.py``), which its rules
keep, its hand end records and its observation shows; no other game's state has it."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

import spades_env
from agents.random_agent import RandomAgent
from spades_env import SpadesEngine
from spades_env.cards import mask_to_cards
from spades_env.core.phases import OVER, PLAY
from spades_env.engine.check import check_state
from spades_env.engine.records import hand_records
from spades_env.games import GAMES, game_parts, generate_loops
from spades_env.games.state_arrays_source import state_arrays_source
from spades_env.observation import encoder_for
from spades_env.playthrough import render_match
from spades_env.rules import BaseRules, RulesError, resolve_rules
from tests.paths import TESTS
from tests.reference_games import reference_for
from tests.toy_game import TRICKS
from tests.toy_game.rules import TricksRules
from train.evaluation.tournament_play import play_games

FOLDER = TESTS / "toy_game"


@pytest.fixture(autouse=True, scope="module")
def registered():
    """Tricks in the registry for this module's tests only (the other tests see the package's games)."""
    GAMES["tricks"] = TRICKS  # the one registry line
    yield
    del GAMES["tricks"]


#: Rule sets, as fields (a Tricks rule set is built once the game is registered).
RULE_SETS = [
    {"name": "tricks"},
    {"name": "tricks-partnership", "partnership": True, "target_score": 40},
    {"name": "tricks-2-hands", "target_score": 1000, "max_hands": 2},
]


def test_the_folder_is_a_game_folder_with_the_template_loops():
    assert TRICKS == game_parts("tests.toy_game", "TricksRules", "TricksObservationEncoder", "TricksReferenceGame",
                                "hand_score", has_state_fields=True)  # fmt: skip
    assert (FOLDER / "loops.py").read_text() == generate_loops.loops_source(FOLDER)
    assert (FOLDER / "state_arrays.py").read_text() == state_arrays_source(FOLDER)


def test_its_state_has_its_own_field_and_no_other_games():
    state = SpadesEngine(TricksRules()).reset([1, 2])
    assert type(state).__name__ == "TricksState" and state.best_hands.shape == (2, 4)
    assert [f.name for f in dataclasses.fields(state)][-1] == "best_hands"
    with pytest.raises(
        AttributeError, match=r"a tricks state has no field 'bids' \(its own fields: \['best_hands'\]\)"
    ):
        state.bids  # noqa: B018
    with pytest.raises(AttributeError, match="a spades state has no field 'best_hands'"):
        SpadesEngine("partnership").reset(0).best_hands  # noqa: B018


def test_the_rules_of_the_registered_game_are_built_by_name(monkeypatch):
    with monkeypatch.context() as unregistered:
        unregistered.delitem(GAMES, "tricks")
        with pytest.raises(RulesError, match=r"'game' must be one of \['spades', 'hearts'\], got 'tricks'"):
            TricksRules()
    rules = BaseRules.from_dict({"game": "tricks", "target_score": 13})
    assert type(rules) is TricksRules and rules.target_score == 13
    assert resolve_rules({"game": "tricks"}) == TricksRules()
    with pytest.raises(RulesError, match=r"rules field 'game' must be one of \['spades', 'hearts', 'tricks'\]"):
        BaseRules.from_dict({"game": "bridge"})
    with pytest.raises(RulesError, match="rules field 'bags' is a Spades option and cannot be used with game 'tricks'"):
        TricksRules(bags=False)


def _reference(rules, state, g: int):
    deal = [mask_to_cards(int(h)) for h in state.deal[g]]
    start = {
        "dealer": int(state.dealer[g]),
        "scores": state.scores[g].tolist(),
        "hand_number": int(state.hand_number[g]),
    }
    return reference_for(rules)(rules, deal, **start)


def _agree(engine: SpadesEngine, state, mask: np.ndarray, refs: list) -> None:
    player = engine.current_player(state)
    for g, ref in enumerate(refs):
        where = f"game {g} ({engine.rules.name}, hand {ref.hand_number}, phase {ref.phase})"
        assert {PLAY: "play", OVER: "over"}[int(state.phase[g])] == ref.phase, where
        assert int(player[g]) == ref.current_player(), where
        assert state.scores[g].tolist() == ref.scores, where
        assert int(state.winner[g]) == ref.winner, where
        assert int(state.hand_number[g]) == ref.hand_number, where
        if ref.phase == "over":
            continue
        assert int(state.dealer[g]) == ref.dealer, where
        assert state.tricks_won[g].tolist() == ref.tricks_won, where
        assert state.best_hands[g].tolist() == ref.best_hands, where
        assert [sorted(mask_to_cards(int(h))) for h in state.hands[g]] == [sorted(h) for h in ref.hands], where
        assert np.flatnonzero(mask[g]).tolist() == ref.legal_actions(), where


@pytest.mark.parametrize("fields", RULE_SETS, ids=lambda fields: fields["name"])
def test_the_engine_plays_random_matches_as_the_reference_does(fields):
    rules = TricksRules(**fields)
    engine = SpadesEngine(rules)
    rng = np.random.default_rng(7)
    state = engine.reset(np.arange(12) + 100)
    refs = [_reference(rules, state, g) for g in range(12)]
    hands_ended = 0
    for _ in range(3000):
        mask = engine.legal_action_mask(state)
        _agree(engine, state, mask, refs)
        check_state(engine, state)
        if (state.phase == OVER).all():
            break
        actions = engine.random_actions(state, rng)
        best_before = state.best_hands.copy()
        result = engine.step(state, actions, validate=not (state.phase == OVER).any())  # an over match: left alone
        for g, ref in enumerate(refs):
            if ref.phase != "over":
                ref.step(int(actions[g]))
            if ref.phase == "deal":  # the hand ended and the match goes on: the engine's next deal
                ref.start_hand([mask_to_cards(int(h)) for h in state.deal[g]])
        for f in result.finished:
            hands_ended += len(f.games)
            assert (f.delta.sum(axis=1) == engine.hand_size).all()
            most = f.tricks_won == f.tricks_won.max(axis=1, keepdims=True)
            np.testing.assert_array_equal(f.best_hands, best_before[f.games] + most)  # the hand's own record
            assert len(hand_records(engine, f)) == len(f.games)
    assert (state.phase == OVER).all() and (state.winner >= 0).all()
    assert hands_ended >= 2 * 12 and state.best_hands.any()


def test_the_random_bot_plays_matches_with_observations():
    engine = SpadesEngine(TricksRules(target_score=20))
    encoder = encoder_for(engine)
    state = engine.reset(np.arange(4))
    obs = encoder.encode(state, np.arange(4), state.to_move)
    assert obs.shape == (4, encoder.size) and (obs >= encoder.low).all() and (obs <= encoder.high).all()
    seeds = np.arange(16) + 5
    for _ in range(60):  # into the second hand: the seats' best hands are in the observation
        engine.step(state, engine.random_actions(state, np.random.default_rng(1)))
    assert (state.hand_number == 1).all() and (state.best_hands.sum(axis=1) >= 1).all()
    obs = encoder.encode(state, np.arange(4), state.to_move)
    best = obs[:, encoder.slices["best_hands"]]
    relative = (state.to_move[:, None] + np.arange(4)) % 4  # the observer's seat first
    np.testing.assert_array_equal(best, state.best_hands[np.arange(4)[:, None], relative])  # hand_number 1
    tally, winners = play_games(engine, seeds, np.zeros((16, 4), np.int64), [RandomAgent(seed=3)], "match")
    assert (winners >= 0).all() and (tally.hands >= 2).all()
    assert (tally.points.max(axis=1) >= 20).all()


def test_the_pettingzoo_env_passes_the_api_test_and_renders():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PettingZoo's advice on Dict observations
        api_test(spades_env.env(rules=TricksRules()), num_cycles=200)
    env = spades_env.env(rules=TricksRules(), render_mode="ansi")
    env.reset(seed=3)
    for _agent in env.agent_iter(4 * 13 + 1):  # one hand and the first card of the next
        obs, _, _, _, _ = env.last()
        mask = obs["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
        if env.unwrapped.game_state.hand_number[0] == 1:
            break
    state = env.unwrapped.game_state
    assert state.best_hands[0].sum() >= 1  # the first hand's best seats, kept by the engine under the env
    env.reset(seed=3)
    assert env.metadata["name"] == "tricks_v0"
    assert env.render().startswith("Tricks [custom] hand 1, dealer player_")


def test_a_seeded_playthrough_renders_every_hand():
    text = render_match(TricksRules(max_hands=1), seed=11, policy_seed=12)
    assert "# rules changed from the defaults: game=tricks, max_hands=1" in text
    assert "--- hand 1: dealer seat" in text and "trick 13:" in text and "winner: seat" in text
