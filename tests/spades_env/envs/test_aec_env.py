"""The PettingZoo AEC env: PettingZoo's own API and seed tests for every preset, rewards, render."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.test.state_test import test_state as pz_state_check
from pettingzoo.test.state_test import test_state_space as pz_state_space_check

import spades_env
from spades_env import IllegalActionError, Rules, list_presets
from spades_env import cards as C
from spades_env.observation import encoder_for
from tests.paths import ROOT

RULE_SETS = list_presets() + [Rules(partnership=False, n_players=3), Rules(partnership=False, n_players=6)]


def _id(rules):
    return rules if isinstance(rules, str) else f"cutthroat{rules.n_players}-object"


def play_random(env, seed: int = 0, max_steps: int = 100_000) -> dict[str, float]:
    """Random legal play until every agent is done; returns each agent's total reward."""
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for steps, agent in enumerate(env.agent_iter()):
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert steps < max_steps
    return totals


@pytest.mark.parametrize("rules", RULE_SETS, ids=_id)
def test_pettingzoo_api_and_seed_tests_pass(rules):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PettingZoo's advice on Dict observations
        api_test(spades_env.env(rules=rules), num_cycles=200)
        seed_test(lambda: spades_env.env(rules=rules), num_cycles=100)


@pytest.mark.parametrize("kwargs", [{"episode": "hand"}, {"reward": "win"}, {"perfect_information": True}])
def test_api_test_passes_for_the_options(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(spades_env.env(**kwargs), num_cycles=150)


def test_metadata_agents_and_spaces():
    env = spades_env.env(rules="partnership")
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.metadata == {
        "name": "spades_v0",
        "render_modes": ["ansi", "human"],
        "render_fps": 4,
        "is_parallelizable": False,
    }
    assert env.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    space = env.observation_space("player_0")
    assert space["observation"].shape == (raw.encoder.size,) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (68,) and space["action_mask"].dtype == np.int8
    assert env.action_space("player_3").n == 68
    cut = spades_env.env(rules=Rules(partnership=False, n_players=6))
    assert cut.possible_agents == [f"player_{i}" for i in range(6)]


def test_rules_accept_a_preset_a_rules_object_and_a_yaml_path(tmp_path):
    path = tmp_path / "short.yaml"
    path.write_text("target_score: 100\nblind_nil: false\n")
    for rules in ("partnership-250", Rules(target_score=250), str(path)):
        env = spades_env.env(rules=rules)
        env.reset(seed=1)
    assert env.unwrapped.rules.target_score == 100 and env.unwrapped.rules.name == "short"


@pytest.mark.parametrize("rules", ["partnership", "cutthroat-3", "two-player", "partnership-house", "jokers"])
def test_match_rewards_add_up_to_the_final_scores(rules):
    env = spades_env.env(rules=rules)
    env.reset(seed=4)
    totals = play_random(env, seed=4)
    raw = env.unwrapped
    scores = raw.game_state.scores[0]
    assert raw.game_state.winner[0] >= 0
    for name, total in totals.items():
        assert total == scores[raw.rules.side_of_seat(raw.agent_name_mapping[name])]


def test_scaled_and_win_rewards():
    env = spades_env.env(rules="partnership-250", reward="scaled")
    env.reset(seed=2)
    totals = play_random(env, seed=2)
    scores = env.unwrapped.game_state.scores[0]
    assert totals["player_0"] == pytest.approx(scores[0] / 100) and totals["player_1"] == pytest.approx(scores[1] / 100)
    env = spades_env.env(rules="partnership-250", reward="win")
    env.reset(seed=2)
    totals = play_random(env, seed=2)
    winner = int(env.unwrapped.game_state.winner[0])
    assert totals == {f"player_{s}": (1.0 if s % 2 == winner else -1.0) for s in range(4)}
    with pytest.raises(ValueError, match="episode='match'"):
        spades_env.env(reward="win", episode="hand")


def test_hand_episode_ends_after_one_hand_and_shows_the_finished_hand():
    env = spades_env.env(rules="partnership", episode="hand")
    env.reset(seed=9)
    totals = play_random(env, seed=9)
    raw = env.unwrapped
    assert raw.game_state.hand_number[0] == 1  # the engine dealt hand 2; the episode stopped
    assert sum(totals.values()) == 2 * raw.game_state.scores[0].sum()
    obs = raw.observe("player_0")
    enc = raw.encoder
    assert not enc.view(obs["observation"], "hand").any()
    assert enc.view(obs["observation"], "phase").tolist() == [0, 0, 0, 1, 0, 0, 0]
    assert enc.view(obs["observation"], "tricks_won").sum() * raw.engine.hand_size == pytest.approx(13)
    assert enc.view(obs["observation"], "played").sum() == 52
    assert not obs["action_mask"].any()


def test_reset_options_fix_the_deal_dealer_and_scores():
    deal = [list(range(s * 13, s * 13 + 13)) for s in range(4)]  # seat s holds suit s
    env = spades_env.env(rules="partnership-no-blind-nil")
    env.reset(seed=0, options={"deal": deal, "dealer": 2, "scores": [120, 80], "bags": [3, 0]})
    raw = env.unwrapped
    assert env.agent_selection == "player_3"
    assert raw.game_state.scores[0].tolist() == [120, 80]
    hand = raw.encoder.view(env.observe("player_3")["observation"], "hand")
    assert set(np.flatnonzero(hand)) == set(range(39, 52))


def test_reset_option_pile_fixes_the_two_player_draw():
    pile = list(range(52))[::-1]  # the big cards come off first
    env = spades_env.env(rules="two-player")
    env.reset(seed=0, options={"pile": pile, "dealer": 1})
    raw = env.unwrapped
    assert raw.game_state.pile[0].tolist() == pile
    assert env.agent_selection == "player_0"  # the non-dealer decides blind nil first
    env.step(raw.engine.layout.look)
    env.step(raw.engine.layout.look)
    assert env.agent_selection == "player_1"  # then the dealer draws
    shown = raw.encoder.view(env.observe("player_1")["observation"], "shown")
    assert np.flatnonzero(shown).tolist() == [51]
    assert not raw.encoder.view(env.observe("player_0")["observation"], "shown").any()


def test_illegal_action_raises_the_engine_error_by_default():
    env = spades_env.env(rules="partnership-no-blind-nil")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(0)  # a card during bidding


def test_illegal_action_penalty_ends_the_game():
    env = spades_env.env(rules="partnership-no-blind-nil", illegal="penalty", reward="scaled")
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(0)
    assert all(env.terminations.values())
    assert env.infos[offender]["illegal_action"]
    assert env.unwrapped._cumulative_rewards[offender] == pytest.approx(-5.0)
    totals = play_random(env)
    assert totals[offender] == pytest.approx(-5.0) and sum(totals.values()) == pytest.approx(-5.0)


def test_observations_of_other_agents_have_an_empty_mask():
    env = spades_env.env()
    env.reset(seed=3)
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


def test_ansi_render_of_a_random_game_is_readable():
    env = spades_env.env(rules="partnership", render_mode="ansi")
    env.reset(seed=5)
    text = env.render()
    assert "♠" in text and "player_0" in text and "scores" in text
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    text = env.render()
    assert "bid" in text and "tricks" in text and "trick:" in text or "tricks played" in text
    hand = C.format_hand(int(env.unwrapped.game_state.hands[0, 0]))
    assert hand in text
    play_random(env)
    assert "match over" in env.render()


def test_human_render_prints(capsys):
    env = spades_env.env(render_mode="human")
    env.reset(seed=1)
    assert "Spades" in capsys.readouterr().out


def test_same_seed_same_game_as_the_engine():
    env = spades_env.env()
    env.reset(seed=77)
    state = spades_env.SpadesEngine("partnership").reset(77)
    np.testing.assert_array_equal(env.unwrapped.game_state.deal, state.deal)


@pytest.mark.parametrize("rules", ["partnership", "hearts", "two-player"])
def test_state_is_seat_0s_perfect_information_observation(rules):
    env = spades_env.env(rules=rules)
    env.reset(seed=3)
    raw = env.unwrapped
    full = encoder_for(raw.engine, perfect_information=True)
    assert env.state_space == gymnasium.spaces.Box(full.low, full.high, dtype=np.float32)
    rng = np.random.default_rng(3)
    for _ in range(40):
        state = env.state()
        np.testing.assert_array_equal(state, full.encode(raw.game_state, [0], [0])[0])
        assert env.state_space.contains(state)
        hands = full.view(state, "all_hands")  # relative seat j of seat 0 is seat j
        for seat in range(raw.engine.n_players):
            assert hands[seat].sum() == bin(int(raw.game_state.hands[0, seat])).count("1")
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_pettingzoo_state_tests_pass():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env = spades_env.env(illegal="penalty")  # the test steps random actions
        pz_state_space_check(env)
        pz_state_check(env, num_cycles=30)
    assert not caught, [str(w.message) for w in caught]
    with pytest.raises(RuntimeError, match="reset"):
        spades_env.raw_env().state()


def test_api_test_warns_only_of_the_dict_observation():
    """Every PettingZoo ``api_test`` warning that is ours to fix is fixed: what is left is its
    advice on Dict observations, which action masks need."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(spades_env.env(rules="hearts"), num_cycles=30)
    assert {str(w.message) for w in caught} <= {
        "Observation is not a NumPy array",
        "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    }


def test_unknown_reset_options_are_refused_naming_the_allowed_keys():
    env = spades_env.env()
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['dealr'\].*'dealer'"):
        env.reset(seed=0, options={"dealr": 2})
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(seed=0, options="dealer=2")
    env.reset(seed=0, options={"dealer": 2})
    assert env.unwrapped.game_state.dealer[0] == 2


def test_hearts_rewards_are_never_minus_zero():
    env = spades_env.env(rules="hearts", episode="hand")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    zeros = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if all(env.terminations.values()) and env.rewards:
            rewards = list(env.rewards.values())
            zeros += rewards.count(0.0)
            assert all(math.copysign(1.0, r) == 1.0 for r in rewards if r == 0), rewards
    assert zeros


OPTIMIZED_ACTIONS = """
import spades_env
for illegal in ("raise", "penalty"):
    env = spades_env.env(illegal=illegal)
    env.reset(seed=0)
    legal = [a for a, ok in enumerate(env.last()[0]["action_mask"]) if ok]
    for bad in (legal[0] + 0.25, str(legal[0]), 10_000):
        env.reset(seed=0)
        try:
            env.step(bad)
        except spades_env.IllegalActionError as e:
            if illegal != "raise" or "not in the action space" not in str(e):
                raise SystemExit(f"{illegal} {bad!r}: {e}")
        else:
            if illegal != "penalty" or not all(env.terminations.values()):
                raise SystemExit(f"{illegal} {bad!r} was played")
print("checked")
"""


@pytest.mark.slow
def test_actions_outside_the_action_space_are_illegal_under_python_O():
    """``python -O`` strips asserts: the action checks are real ones (an illegal action still
    raises or is penalised as ``illegal`` says)."""
    root = ROOT
    env = {**os.environ, "PYTHONPATH": str(root)}
    run = subprocess.run(
        [sys.executable, "-O", "-c", OPTIMIZED_ACTIONS], capture_output=True, text=True, env=env, cwd=root, timeout=120
    )
    assert run.returncode == 0 and run.stdout.strip() == "checked", run.stderr


@pytest.mark.parametrize("seed", ["5", 1.5, True, -1, 2**64, [3]])
def test_reset_refuses_bad_seeds_naming_the_argument(seed):
    env = spades_env.env()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)


def test_collect_reward_gives_the_accumulated_reward_once():
    env = spades_env.env(rules="partnership", episode="hand")
    env.reset(seed=9)
    raw = env.unwrapped
    rng = np.random.default_rng(9)
    while not all(raw.terminations.values()):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = raw.game_state.scores[0].tolist()
    assert scores[0] != 0 and scores[1] != 0
    assert raw.collect_reward("player_1") == scores[1]
    assert raw.collect_reward("player_1") == 0.0  # collected once
    assert raw.collect_reward("player_2") == scores[0]  # the others keep theirs until collected
