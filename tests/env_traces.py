"""Seeded AEC and Gymnasium episodes reduced to one short digest per step
(``tests/spades_env/envs/test_env_golden.py``).

A step's digest covers everything an agent or a critic can read after it: the observation and
mask of every live agent, ``last()``, rewards, cumulative rewards, terminations, truncations,
infos, ``state()``, the ansi render and every field of ``game_state`` (Gymnasium: the learner's
observation, reward, flags, info, ``action_masks()``, the render and the state). The actions
come from a NumPy generator of their own, so the trace pins the env, not the policy.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

import spades_env
from agents import HeuristicAgent, RandomAgent
from spades_env import IllegalActionError
from spades_env.envs import SpadesGymEnv
from tests.union_layout import union_arrays


def _put(h: Any, *items: Any) -> None:
    """Feed ``items`` to the hash ``h`` exactly: arrays by dtype, shape and bytes, floats by ``float.hex``."""
    for x in items:
        if isinstance(x, np.ndarray):
            h.update(f"{x.dtype}{x.shape}".encode())
            h.update(np.ascontiguousarray(x).tobytes())
        elif isinstance(x, float):
            h.update(x.hex().encode())
        elif isinstance(x, dict):
            for k in sorted(x):
                _put(h, f"{k}:", x[k])
        elif isinstance(x, (list, tuple)):
            h.update(b"[")
            _put(h, *x)
            h.update(b"]")
        else:
            h.update(f"{type(x).__name__}={x!r};".encode())


def _state_fields(state) -> list[Any]:
    return union_arrays(state)  # the layout the recorded digests hashed


def _aec_digest(env, raw, extra: Any = None) -> str:
    h = hashlib.blake2b(digest_size=4)
    _put(h, env.agents, extra)
    if env.agents:
        obs, reward, term, trunc, info = env.last()
        _put(h, env.agent_selection, obs["observation"], obs["action_mask"], float(reward), term, trunc, info)
    for agent in env.agents:
        obs = env.observe(agent)
        _put(h, agent, obs["observation"], obs["action_mask"])
    _put(h, raw.rewards, raw._cumulative_rewards, raw.terminations, raw.truncations, raw.infos)
    _put(h, env.state(), env.render(), _state_fields(raw.game_state))
    return h.hexdigest()


def aec_trace(
    rules: Any,
    seeds: list[int | None],
    policy_seed: int = 0,
    illegal_at: int | None = None,
    options: dict[str, Any] | None = None,
    **kwargs: Any,
) -> list[str]:
    """Digests of seeded AEC episodes (one per entry of ``seeds``, None: a seedless reset), random legal play.

    ``illegal_at``: at that step an illegal action is tried: with ``illegal="raise"`` the error
    message goes into the digest and play goes on, with ``"penalty"`` it ends the episode.
    """
    env = spades_env.env(rules=rules, render_mode="ansi", **kwargs)
    raw = env.unwrapped
    rng = np.random.default_rng(policy_seed)
    out: list[str] = []
    step = 0
    for seed in seeds:
        env.reset(seed=seed, options=options)
        out.append(_aec_digest(env, raw, "reset"))
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            extra = None
            if term or trunc:
                action = None
            else:
                mask = obs["action_mask"]
                action = int(rng.choice(np.flatnonzero(mask)))
                if step == illegal_at:
                    bad = int(np.flatnonzero(mask == 0)[0])
                    if raw.illegal == "raise":
                        for wrong in (bad, "1", mask.size):
                            try:
                                env.step(wrong)
                            except IllegalActionError as e:
                                extra = [extra, str(e)]
                    else:
                        action = bad
            env.step(action)
            step += 1
            out.append(_aec_digest(env, raw, extra))
    return out


def gym_opponents(kind: str) -> Any:
    """Opponents by name: ``random`` (the env's own draws), ``heuristic``, ``mixed`` (each kind of opponent)."""
    if kind == "random":
        return None
    if kind == "heuristic":
        return HeuristicAgent()
    if kind == "mixed":
        return {1: HeuristicAgent(), 2: lambda obs, mask: int(np.flatnonzero(mask)[-1]), 3: RandomAgent(seed=3)}
    raise ValueError(f"opponents kind must be random, heuristic or mixed, got {kind!r}")


def gym_trace(rules: Any, seeds: list[int | None], opponents: str, policy_seed: int = 0, **kwargs: Any) -> list[str]:
    """Digests of seeded Gymnasium episodes (learner: random legal play) against ``gym_opponents(opponents)``."""
    env = SpadesGymEnv(rules=rules, opponents=gym_opponents(opponents), render_mode="ansi", **kwargs)
    rng = np.random.default_rng(policy_seed)
    out: list[str] = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        out.append(_gym_digest(env, obs, [info]))
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            out.append(_gym_digest(env, obs, [float(reward), terminated, truncated, info]))
    return out


def _gym_digest(env: SpadesGymEnv, obs: dict[str, np.ndarray], flags: list[Any]) -> str:
    h = hashlib.blake2b(digest_size=4)
    state = _state_fields(env.game.game_state)  # (read first: the env before the adapter synced its state when read)
    _put(h, obs["observation"], obs["action_mask"], flags, env.action_masks(), env.render(), state)
    return h.hexdigest()
