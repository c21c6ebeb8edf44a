"""The AEC env's fast single-game path (``spades_env.envs.single``) against the engine's path.

Spades envs step one game with Python scalars and keep observations incrementally; the
env's original path (batched ``engine.step`` and ``ObservationEncoder.encode`` with B = 1)
is what Hearts still uses and what ``raw_env._single = None`` selects. Both must give the
same observations bit for bit, masks, rewards, terminations, states and renders.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spades_env
from spades_env import EngineInputError, Rules, list_presets
from spades_env.engine.check import check_state
from spades_env.envs.single import SingleGame

SPADES_RULES = [p for p in list_presets() if not Rules.preset(p).hearts] + [
    Rules(partnership=False, n_players=3),
    Rules(partnership=False, n_players=6),
]


def _pair(rules, **kwargs):
    """The fast env and the same env on the engine's path."""
    fast = spades_env.raw_env(rules=rules, render_mode="ansi", **kwargs)
    slow = spades_env.raw_env(rules=rules, render_mode="ansi", **kwargs)
    assert fast._single is not None
    slow._single = None
    return fast, slow


def _assert_same(fast, slow, state: bool = True) -> None:
    """Same agents, rewards, observations and masks; the same state and render if ``state``
    (reading the fast env's state brings it up to date, so tests skip it on some steps)."""
    assert fast.agent_selection == slow.agent_selection
    assert fast.agents == slow.agents
    assert fast.rewards == slow.rewards
    assert fast._cumulative_rewards == slow._cumulative_rewards
    assert fast.terminations == slow.terminations
    assert fast.truncations == slow.truncations
    assert fast.infos == slow.infos
    if state:
        for f in dataclasses.fields(fast.game_state):
            np.testing.assert_array_equal(
                getattr(fast.game_state, f.name), getattr(slow.game_state, f.name), err_msg=f.name
            )
        assert fast.render() == slow.render()
    for agent in fast.agents:  # observable until its dead step removes it
        a, b = fast.observe(agent), slow.observe(agent)
        assert a["observation"].dtype == b["observation"].dtype == np.float32
        assert a["observation"].tobytes() == b["observation"].tobytes(), agent  # bit for bit
        assert a["action_mask"].dtype == b["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(a["action_mask"], b["action_mask"])
    if fast.agents and not fast.terminations[fast.agent_selection]:
        np.testing.assert_array_equal(fast.legal_mask(), slow.legal_mask())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(SPADES_RULES),
    episode=st.sampled_from(["match", "hand"]),
    reward=st.sampled_from(["points", "scaled", "win"]),
    illegal=st.sampled_from(["raise", "penalty"]),
    perfect_information=st.booleans(),
    seed=st.integers(0, 2**31),
    scores=st.none() | st.integers(-400, 600),
    dealer=st.none() | st.integers(0, 5),
)
def test_fast_path_matches_the_engine_path(rules, episode, reward, illegal, perfect_information, seed, scores, dealer):
    if reward == "win" and episode == "hand":
        reward = "points"
    kwargs = dict(episode=episode, reward=reward, illegal=illegal, perfect_information=perfect_information)
    fast, slow = _pair(rules, **kwargs)
    rng = np.random.default_rng(seed)
    n_sides = fast.engine.n_sides
    for game in range(3):
        options = {}  # reset options take the engine's reset, then the fast path plays on
        if scores is not None:
            options["scores"] = [scores - 70 * s for s in range(n_sides)]
        if dealer is not None:
            options["dealer"] = dealer % fast.engine.n_players
        try:
            fast.reset(seed=seed + game, options=options)
        except EngineInputError:  # starting scores that already end the match are refused, on both paths
            with pytest.raises(EngineInputError, match="already end the match"):
                slow.reset(seed=seed + game, options=options)
            continue
        slow.reset(seed=seed + game, options=options)
        _assert_same(fast, slow)
        for _ in range(500 if game == 0 else 150):
            agent = fast.agent_selection
            if fast.terminations[agent] or fast.truncations[agent]:
                action = None
            else:
                mask = fast.observe(agent)["action_mask"]
                legal = np.flatnonzero(mask)
                if illegal == "penalty" and rng.random() < 0.002:
                    action = int(np.flatnonzero(mask == 0)[0])  # an illegal action: the game ends
                else:
                    action = int(legal[rng.integers(len(legal))])
            fast.step(action)
            slow.step(action)
            _assert_same(fast, slow, state=rng.random() < 0.2)
            if not fast.agents:
                break


@pytest.mark.parametrize("rules", ["partnership", "two-player", "partnership-house", "cutthroat-3"])
def test_illegal_action_raises_the_same_error_on_both_paths(rules):
    fast, slow = _pair(rules)
    fast.reset(seed=3)
    slow.reset(seed=3)
    bad = int(np.flatnonzero(fast.observe(fast.agent_selection)["action_mask"] == 0)[0])
    errors = []
    for env in (fast, slow):
        with pytest.raises(spades_env.IllegalActionError, match="legal actions") as info:
            env.step(bad)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    _assert_same(fast, slow)


def test_hearts_keeps_the_engine_path_and_spades_takes_the_fast_one():
    assert not SingleGame.supports(Rules.preset("hearts"))
    assert spades_env.raw_env(rules="hearts")._single is None
    for rules in SPADES_RULES:
        assert spades_env.raw_env(rules=rules)._single is not None


def test_a_copied_env_plays_on_by_itself():
    env = spades_env.env(rules="partnership")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    twin = copy.deepcopy(env)
    before = env.last()[0]["observation"].copy()
    for _ in range(40):
        obs, _, term, trunc, _ = twin.last()
        if term or trunc:
            break
        np.testing.assert_array_equal(
            obs["observation"],
            twin.unwrapped.encoder.encode(
                twin.unwrapped.game_state, [0], [twin.unwrapped.agent_name_mapping[twin.agent_selection]]
            )[0],
        )
        twin.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    np.testing.assert_array_equal(env.last()[0]["observation"], before)


def test_assigning_a_state_makes_it_the_game():
    env = spades_env.env(rules="partnership")
    env.reset(seed=8)
    raw = env.unwrapped
    saved = raw.game_state.copy()
    rng = np.random.default_rng(8)
    for _ in range(25):
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raw.game_state = saved.copy()
    raw.agent_selection = raw.possible_agents[int(saved.to_move[0])]
    seat = int(saved.to_move[0])
    obs = env.observe(raw.agent_selection)
    np.testing.assert_array_equal(obs["observation"], raw.encoder.encode(saved, [0], [seat])[0])
    np.testing.assert_array_equal(obs["action_mask"], raw.engine.legal_action_mask(saved)[0])


def test_the_state_is_the_engine_state_updated_in_place():
    env = spades_env.env(rules="partnership")
    env.reset(seed=11)
    state = env.unwrapped.game_state
    rng = np.random.default_rng(0)
    for _ in range(300):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert env.unwrapped.game_state is state
        check_state(env.unwrapped.engine, state)


def test_the_wrapper_asserts_the_action_space_and_enforces_the_order():
    env = spades_env.env(rules="partnership")
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    env.reset(seed=0)
    assert str(env) == str(env.unwrapped)
    for bad in (68, -1, 3.0, None, "1"):
        with pytest.raises(spades_env.IllegalActionError, match="not in the action space"):
            env.step(bad)
    obs, *_ = env.last()
    env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))  # NumPy integers are actions too
    assert isinstance(env, spades_env.envs.aec.wrappers.OrderEnforcingWrapper)
