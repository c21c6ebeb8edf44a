"""What each row of ``make bench`` measures: one function per kind of row, returning its rate (units/s), or None
where the package it drives is not installed. ``bench.run`` lists the rows and their baselines; ``bench.timing``
times them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from bench import openspiel_driver
from bench.timing import THREAD_CORES, on_cores, timed
from spades_env import SpadesEngine
from spades_env.engine import PLAY


def engine_card_plays(rules: str, batch: int, seconds: float, seed: int = 0, threads: int = 0) -> float:
    """Card plays/s of uniformly random legal play (legal moves and sampling included).

    Every step each game draws a uniformly random legal action (``random_actions``: the
    legal cards of the player to move as a uint64 mask and a random one of them; bids and
    blind-nil choices from their ranges; rarer decisions from the legal-action mask).
    ``step`` validates every action and starts a new match where one ended
    (``auto_reset``). Only card plays are counted. ``threads`` > 0: the engine's ``threads``
    setting, timed by the wall clock on ``THREAD_CORES`` cores (0: one thread, CPU time).
    """
    engine = SpadesEngine(rules, threads=max(threads, 1))
    rng = np.random.default_rng(seed)
    state = engine.reset(np.arange(batch))
    plays_now = play_counter(state.phase)

    def body() -> int:
        plays = 0
        for _ in range(64):
            plays += plays_now()
            engine.step(state, engine.random_actions(state, rng), auto_reset=True)
        return plays

    if threads:
        return on_cores(THREAD_CORES, lambda: timed(seconds, body, clock=time.perf_counter))
    return timed(seconds, body)


def play_counter(phase: np.ndarray) -> Callable[[], int]:
    """How many games of ``phase`` (a state's (B,) phases, stepped in place) are playing a card now,
    the cheapest way: one element's test for one game (a count over the batch costs about 1 µs,
    a few percent of a B = 1 decision), else a count."""
    if len(phase) == 1:
        return lambda: int(phase[0] == PLAY)
    return lambda: int(np.count_nonzero(phase == PLAY))


def openspiel_decisions(seconds: float, observe: bool = False, seed: int = 0, game: str = "spades") -> float | None:
    """Decisions/s of OpenSpiel's ``spades`` (or ``hearts``) with random legal play (None if not installed).

    Driven the cheapest way pyspiel offers (``bench.openspiel_driver``: one
    ``current_player()``, one ``legal_actions()`` and one Python ``random.random()`` per node,
    chance nodes included). With ``observe`` every decision also writes the player's
    observation through OpenSpiel's ``Observer`` into a preallocated float32 buffer (Hearts has
    no observation tensor in OpenSpiel: its information-state tensor instead).
    """
    spiel = openspiel_driver.load_game(game)
    if spiel is None:
        return None
    rand = random.Random(seed).random
    write = openspiel_driver.observer(spiel)[1] if observe else None
    return timed(seconds, lambda: openspiel_driver.play_random(spiel.new_initial_state(), rand, write))


def reference_decisions(seconds: float, seed: int = 0) -> float | None:
    """Decisions/s of the plain-Python reference engine (one game at a time)."""
    try:
        from bench.reference_driver import random_reference_play
    except ImportError:
        return None
    return timed(seconds, random_reference_play(seed))


def vector_decisions(batch: int, seconds: float, seed: int = 0, rules: str = "partnership") -> float | None:
    """Decisions/s of VectorSpades: every step applies one action per game and returns the full
    observations, action masks and rewards of all ``batch`` games.

    The env runs with ``copy=False`` (observations and masks written into reused buffers: the
    documented fastest mode, for loops that use each step's arrays before the next step; the
    default ``copy=True`` adds a copy of them). Actions are uniformly random legal ones drawn
    by ``spades_env.envs.vector.sample_legal``, whose cost (a few array operations) is included.
    """
    try:
        from spades_env import VectorSpades
        from spades_env.envs.vector import sample_legal
    except ImportError:
        return None
    env = VectorSpades(rules, num_envs=batch, seed=seed, copy=False)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    holder = {"mask": info["action_mask"]}

    def body() -> int:
        for _ in range(16):
            _, _, _, _, info = env.step(sample_legal(holder["mask"], rng))
            holder["mask"] = info["action_mask"]
        return 16 * batch

    return timed(seconds, body)


def aec_steps(seconds: float, seed: int = 0, rules: str = "partnership") -> float | None:
    """Steps/s of the PettingZoo AEC env on one game (observe + mask + step).

    The policy is the cheapest uniform random legal pick: the indices of the observation's
    ``action_mask`` (``mask.nonzero()[0]``) and one Python ``random.random()``, so that the
    figure is the env's; resets (a new seeded match when one ends) are included but not
    counted as steps.
    """
    try:
        from spades_env import env as make_env
    except ImportError:
        return None
    aec = make_env(rules=rules, episode="match")
    rng = random.Random(seed)
    rand = rng.random
    aec.reset(seed=seed)

    def body() -> int:
        n = 0
        for _ in range(500):
            obs, _, term, trunc, _ = aec.last()
            if term or trunc:
                aec.reset(seed=rng.getrandbits(30))
                continue
            legal = obs["action_mask"].nonzero()[0]
            aec.step(int(legal[int(rand() * len(legal))]))
            n += 1
        return n

    return timed(seconds, body)


def gym_heuristic_steps(seconds: float, seed: int = 0, rules: str = "partnership") -> float | None:
    """Learner steps/s of the Gymnasium env (``SpadesGymEnv``, one game) against heuristic opponents.

    Hand episodes (the default), seedless resets after the first (as a training loop runs it);
    the learner's policy is the AEC row's cheapest uniform random legal pick (the indices of the
    observation's ``action_mask`` and one Python ``random.random()``). The opponents' moves,
    the resets and the hands' ends are in the time; only the learner's steps are counted.
    """
    try:
        from agents import HeuristicAgent
        from spades_env.envs import SpadesGymEnv
    except ImportError:
        return None
    env = SpadesGymEnv(rules=rules, opponents=HeuristicAgent())
    rand = random.Random(seed).random
    holder = {"obs": env.reset(seed=seed)[0]}

    def body() -> int:
        obs = holder["obs"]
        for _ in range(200):
            legal = obs["action_mask"].nonzero()[0]
            obs, _, terminated, _, _ = env.step(int(legal[int(rand() * len(legal))]))
            if terminated:
                obs = env.reset()[0]
        holder["obs"] = obs
        return 200

    return timed(seconds, body)


def heuristic_hands(seconds: float, hands: int = 4096) -> float | None:
    """Duplicate heuristic-vs-heuristic hands/s (``train.evaluation.tournament.benchmark_heuristic``: engine plus
    bots, hand mode, one batch of ``hands`` games, no log or report), by this process's CPU time like
    every one-core row (the function's own figure is by the wall clock)."""
    try:
        from train.evaluation.tournament import benchmark_heuristic
    except ImportError:
        return None

    def body() -> int:
        benchmark_heuristic(hands=hands)
        return hands

    return timed(seconds, body)


def learned_decisions(seconds: float, batch: int = 4096, seed: int = 0, spec: str = "learned") -> float | None:
    """Decisions/s of the committed learned bot (``agents.learned.LEARNED_CHECKPOINTS["partnership"]``: 512 x 3 with
    its card value head on a 512 x 3 torso of its own, and the margin rule; greedy, one torch thread) on one batch of
    real positions: ``batch`` partnership games after 20 random legal steps (card play: ``act`` skips the bid head
    when no row may bid), its ``act`` on their observations and masks. ``spec``: the bot (``learned:precision=int8``:
    its int8 network, ``agents.neural_int8``)."""
    try:
        import torch

        from agents import make_agent
        from spades_env import VectorSpades
        from spades_env.envs.vector import sample_legal
    except ImportError:
        return None
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        agent = make_agent(spec, seed=seed)
        env = VectorSpades("partnership", num_envs=batch, seed=seed)
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        agent.check_supports(env.engine)
        for _ in range(20):
            obs, _, _, _, info = env.step(sample_legal(info["action_mask"], rng))
        masks = info["action_mask"]
        return timed(seconds, lambda: len(agent.act(obs, masks)))
    finally:
        torch.set_num_threads(threads)
