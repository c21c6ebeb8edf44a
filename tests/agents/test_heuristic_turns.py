"""The heuristic's compiled turns (``agents.heuristic_turns``) play the games the Python loop plays.

The Gymnasium env with heuristic opponents runs their moves (and the learner's) in one compiled
call per learner step; an opponent without ``compiled_turns`` (here the same heuristic seen through
its ``act`` alone, ``ActOnly``) is asked one decision at a time, each stepped through the AEC env.
Both must show the same episode, step for step: observation, mask, reward, flags, info, the AEC
env's bookkeeping and every field of the engine state.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent
from agents.heuristic_turns import HeuristicTurns
from spades_env import list_presets
from spades_env.engine import SpadesEngine
from spades_env.envs import SpadesGymEnv
from spades_env.envs.hand_end import last_card_pending


class ActOnly:
    """A bot seen through its ``act`` alone (no ``compiled_turns``): the env's Python loop asks it every decision."""

    def __init__(self, bot) -> None:
        self.bot = bot

    def act(self, observations, masks, context=None):
        return self.bot.act(observations, masks, context)


class Counted(HeuristicAgent):
    """The heuristic, counting the decisions it is asked for through ``act`` (none where its turns run compiled)."""

    asked = 0

    def act(self, observations, masks, context=None):
        self.asked += len(masks)
        return super().act(observations, masks, context)


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
        compiled, asked = Counted(), Counted()
        fast = SpadesGymEnv(rules=rules, seat=seat, opponents=compiled)
        slow = SpadesGymEnv(rules=rules, seat=seat, opponents=ActOnly(asked))
        _assert_same(_episode(fast, seed, seed), _episode(slow, seed, seed))
        assert compiled.asked == 0 and asked.asked > 0  # every heuristic decision of ``fast`` ran compiled


@pytest.mark.parametrize("rules", ["partnership-250", "hearts-50", "two-player"])
def test_compiled_turns_play_the_python_loops_match(rules):
    kwargs = dict(rules=rules, seat=1, episode="match", reward="scaled")
    compiled = Counted()
    fast = SpadesGymEnv(opponents=compiled, **kwargs)
    slow = SpadesGymEnv(opponents=ActOnly(HeuristicAgent()), **kwargs)
    _assert_same(_episode(fast, 5, 5, steps=120), _episode(slow, 5, 5, steps=120))
    assert compiled.asked == 0


def test_mixed_opponents_only_the_heuristics_seats_run_compiled():
    def make(heuristic):
        return SpadesGymEnv(rules="partnership", seat=0, opponents={1: heuristic, 2: RandomAgent(seed=2), 3: heuristic})

    compiled = Counted(set_opponents=1)
    fast, slow = make(compiled), make(ActOnly(HeuristicAgent(set_opponents=1)))
    _assert_same(_episode(fast, 7, 7), _episode(slow, 7, 7))
    assert compiled.asked == 0  # seats 1 and 3 ran compiled; seat 2 (random) through ``act`` and the AEC env


def test_changed_options_are_read_at_every_call():
    compiled, python_bot = HeuristicAgent(), HeuristicAgent()
    fast = SpadesGymEnv(rules="partnership", opponents=compiled)
    slow = SpadesGymEnv(rules="partnership", opponents=ActOnly(python_bot))
    for bot in (compiled, python_bot):
        bot.bid_bias = 0.95  # the bot's option changed after the env was made
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


def test_a_state_the_engine_cannot_pack_is_refused_before_any_move():
    engine = SpadesEngine("partnership")
    state = engine.reset(1)
    state.bids.setflags(write=False)  # a field the engine cannot pack (``core.packed.state_table``)
    before = state.copy()
    with pytest.raises(ValueError, match="C-contiguous"):
        HeuristicAgent().compiled_turns(engine).play(state, -1, np.ones(engine.n_players, bool))
    for f in dataclasses.fields(state):
        np.testing.assert_array_equal(getattr(state, f.name), getattr(before, f.name))


def test_refused_turns_are_played_through_the_aec_env(monkeypatch):
    """Where the compiled turns refuse a state (one the engine cannot pack), the env plays the turn the Python way."""

    def refuse(self, state, first, seats):
        raise ValueError("state's arrays must be C-contiguous, aligned and writeable, of their fields' dtypes")

    monkeypatch.setattr(HeuristicTurns, "play", refuse)
    asked = Counted()
    fast = SpadesGymEnv(rules="partnership", opponents=asked)
    slow = SpadesGymEnv(rules="partnership", opponents=ActOnly(HeuristicAgent()))
    _assert_same(_episode(fast, 4, 4), _episode(slow, 4, 4))
    assert asked.asked > 0
