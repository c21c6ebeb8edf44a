"""The heuristic's compiled turns (``agents.heuristic_turns``) play the games the Python loop plays.

The Gymnasium env with heuristic opponents runs their moves (and the learner's) in one compiled
call per learner step; with ``_turns`` switched off it runs them one ``act`` and one AEC step at
a time, as before. Both must show the same episode, step for step: observation, mask, reward,
flags, info, the AEC env's bookkeeping and every field of the engine state.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent
from spades_env import list_presets
from spades_env.engine import SpadesEngine
from spades_env.envs import SpadesGymEnv
from spades_env.envs.hand_end import last_card_pending


def _python_loop(env: SpadesGymEnv) -> SpadesGymEnv:
    """``env`` with its compiled turns switched off: every opponent decision through ``act`` and the AEC env."""
    env._turns = env._turn_seats = None
    return env


def _snapshot(env: SpadesGymEnv, out: tuple) -> list:
    obs, *flags = out
    game = env.game
    state = [getattr(game.game_state, f.name).copy() for f in dataclasses.fields(game.game_state)]
    aec = [game.agent_selection, dict(game.rewards), dict(game._cumulative_rewards), dict(game.terminations)]
    return [obs["observation"], obs["action_mask"], flags, env.action_masks(), aec, state]


def _episode(env: SpadesGymEnv, seed: int, policy_seed: int, steps: int = 400) -> list:
    """Snapshots of a seeded episode (or its first ``steps`` steps), the learner playing random legal actions."""
    rng = np.random.default_rng(policy_seed)
    out = env.reset(seed=seed)
    trace = [_snapshot(env, out)]
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(out[0]["action_mask"])))
        out = env.step(action if len(trace) % 2 else np.int64(action))  # a NumPy integer takes the same path
        trace.append(_snapshot(env, out))
        if out[2]:
            break
    return trace


def _assert_same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        np.testing.assert_equal(x, y, err_msg=f"step {k}")


@pytest.mark.parametrize("rules", list_presets())
def test_compiled_turns_play_the_python_loops_hand_on_every_preset(rules):
    n = SpadesEngine(rules).n_players
    for seed in (11, 12):
        seat = seed % n
        fast = SpadesGymEnv(rules=rules, seat=seat, opponents=HeuristicAgent())
        slow = _python_loop(SpadesGymEnv(rules=rules, seat=seat, opponents=HeuristicAgent()))
        assert fast._turns is not None
        _assert_same(_episode(fast, seed, seed), _episode(slow, seed, seed))


@pytest.mark.parametrize("rules", ["partnership-250", "hearts-50", "two-player"])
def test_compiled_turns_play_the_python_loops_match(rules):
    kwargs = dict(rules=rules, seat=1, episode="match", reward="scaled")
    fast = SpadesGymEnv(opponents=HeuristicAgent(), **kwargs)
    slow = _python_loop(SpadesGymEnv(opponents=HeuristicAgent(), **kwargs))
    _assert_same(_episode(fast, 5, 5, steps=120), _episode(slow, 5, 5, steps=120))


def test_mixed_opponents_only_the_heuristics_seats_run_compiled():
    def make():
        heuristic = HeuristicAgent(set_opponents=1)
        return SpadesGymEnv(rules="partnership", seat=0, opponents={1: heuristic, 2: RandomAgent(seed=2), 3: heuristic})

    fast = make()
    np.testing.assert_array_equal(fast._turn_seats, [False, True, False, True])
    _assert_same(_episode(fast, 7, 7), _episode(_python_loop(make()), 7, 7))


def test_changed_options_are_read_at_every_call():
    fast, slow = (SpadesGymEnv(rules="partnership", opponents=HeuristicAgent()) for _ in range(2))
    _python_loop(slow)
    for env in (fast, slow):
        env.opponents[1].bid_bias = 0.95  # the bot's option changed after the env was made
    _assert_same(_episode(fast, 9, 9), _episode(slow, 9, 9))


def test_play_stops_before_the_last_card_and_returns_it():
    env = SpadesGymEnv(rules="cutthroat-3", seat=0, opponents=HeuristicAgent())
    engine = env.game.engine
    state = engine.reset(3)
    turns = HeuristicAgent().compiled_turns(engine)
    every_seat = np.ones(engine.n_players, bool)
    pending, moved = turns.play(state, -1, every_seat)
    assert moved == 0b111 and pending >= 0 and last_card_pending(engine, state)[0]
    assert engine.legal_action_mask(state)[0, pending]
    seat = int(state.to_move[0])
    assert turns.play(state, -1, np.arange(3) != seat) == (-1, 0)  # the seat to move is not the bot's
    with pytest.raises(ValueError, match="one game"):
        turns.play(engine.reset([1, 2]), -1, every_seat)


def test_a_state_the_engine_cannot_pack_is_played_through_the_aec_env(monkeypatch):
    fast = SpadesGymEnv(rules="partnership", opponents=HeuristicAgent())
    slow = _python_loop(SpadesGymEnv(rules="partnership", opponents=HeuristicAgent()))
    monkeypatch.setattr(fast.game.engine, "_state_table", lambda state: None)  # as for a strided array
    with pytest.raises(ValueError, match="C-contiguous"):
        fast._turns.play(fast.game.engine.reset(1), -1, fast._turn_seats)
    _assert_same(_episode(fast, 4, 4), _episode(slow, 4, 4))
