"""``make bench``: throughput of the engine, environments and bots on one core.

Every figure is measured in the same run as its baseline (OpenSpiel through
pyspiel, and our readable reference engine), in interleaved rounds (``--rounds``):
each round measures every row, a rate is the median over rounds and a ratio the
median of the rounds' ratios, so the ratios hold on a shared, noisy machine whose
speed drifts during the run. The Hearts rows are compared with OpenSpiel's ``hearts`` (its
decisions include the passes), the VectorSpades rows with OpenSpiel plus its observation
(Hearts: information state) written by its ``Observer``. Every row is driven the cheapest way
it offers (Python's ``random`` for one game at a time, see ``bench.openspiel_driver``; the
engine's own samplers for batches), and the table says how. Run ``python -m bench.run --help``
for options.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from bench import openspiel_driver
from spades_env import SpadesEngine
from spades_env.engine import PLAY


def pin_to_one_core() -> None:
    """Measure on one core, as the targets are stated."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def timed(run_for: float, body: Callable[[], int], clock: Callable[[], float] = time.process_time) -> float:
    """Call ``body`` (returns units of work done) until ``run_for`` seconds of CPU time pass; units/s.

    The clock is this process's CPU time (``time.process_time``): on a shared machine the time
    its core spends on other people's work is not counted, so the rates, and more so the
    ratios, move much less with the machine's load than wall-clock rates. Rows that run on
    several threads pass the wall clock (``time.perf_counter``): CPU time adds up the threads.
    """
    body()  # warm-up
    done, start = 0, clock()
    while (elapsed := clock() - start) < run_for:
        done += body()
    return done / elapsed


#: Cores the thread rows run on (the other rows run on one).
THREAD_CORES = 2
#: The cores this process may use, before ``pin_to_one_core``.
ALL_CORES = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def on_cores(n: int, measure: Callable[[], float]) -> float:
    """``measure()`` with this thread allowed ``n`` cores (Numba's worker threads, started on the
    first parallel call, keep the cores of the thread that started them), then one core again."""
    if not ALL_CORES:
        return measure()
    os.sched_setaffinity(0, set(ALL_CORES[:n]))
    try:
        return measure()
    finally:
        pin_to_one_core()


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
    """Duplicate heuristic-vs-heuristic hands/s (``train.tournament.benchmark_heuristic``: engine plus
    bots, hand mode, one batch of ``hands`` games, no log or report), by this process's CPU time like
    every one-core row (the function's own figure is by the wall clock)."""
    try:
        from train.tournament import benchmark_heuristic
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


class Row(NamedTuple):
    """One measurement of the table: its rate is compared with ``base``'s, measured in the same round."""

    name: str
    batch: str
    unit: str
    measure: Callable[[float], float | None]
    base: str | None
    how: str

    @property
    def key(self) -> str:
        return f"{self.name} [B={self.batch}]"


SPIEL, SPIEL_OBS = "OpenSpiel spades (pyspiel)", "OpenSpiel spades + observation"
HEARTS, HEARTS_OBS = "OpenSpiel hearts (pyspiel)", "OpenSpiel hearts + information state"
CHEAP_PICK = "random.random() on legal_actions()"


def rows(batches: list[int]) -> list[Row]:
    """Every row of ``make bench``, with how it is driven. Without blind nil every hand takes the
    same number of steps, so the games stay in lockstep and every card play takes the full-batch
    fast path."""
    observed = "+ Observer.set_from into a float32 buffer"
    table = [
        Row(SPIEL, "1", "decisions/s", openspiel_decisions, SPIEL, CHEAP_PICK),
        Row(SPIEL_OBS, "1", "decisions/s", _spiel_observed("spades"), SPIEL_OBS, observed),
        Row(HEARTS, "1", "decisions/s", lambda t: openspiel_decisions(t, game="hearts"), HEARTS, CHEAP_PICK),
        Row(HEARTS_OBS, "1", "decisions/s", _spiel_observed("hearts"), HEARTS_OBS, observed),
        Row("reference engine (plain Python)", "1", "decisions/s", reference_decisions, SPIEL, CHEAP_PICK),
    ]
    engine_how = "random_actions + step(auto_reset)"
    for b in batches:
        table.append(
            Row("engine, random legal play", str(b), "card plays/s", _engine("partnership", b), SPIEL, engine_how)
        )
    table.append(
        Row(
            "engine, lockstep (no blind nil)",
            "4096",
            "card plays/s",
            _engine("partnership-no-blind-nil"),
            SPIEL,
            engine_how,
        )
    )
    # Threads: 2 against 1, both by the wall clock on the same two cores, at the largest batch.
    big = max(batches)
    one = Row("engine, 1 thread, wall clock", str(big), "card plays/s", _threaded(1, big), None, engine_how)
    table.append(one)
    how = f"{engine_how}; x the 1-thread row"
    table.append(Row("engine, 2 threads", str(big), "card plays/s", _threaded(2, big), one.key, how))
    for preset, base in (("cutthroat-4", SPIEL), ("two-player", SPIEL), ("hearts", HEARTS)):
        table.append(Row(f"engine, {preset}", "4096", "card plays/s", _engine(preset), base, engine_how))
    vector_how = "sample_legal on the returned mask, copy=False"
    for b in batches:
        table.append(
            Row("VectorSpades, obs + masks", str(b), "decisions/s", _vector("partnership", b), SPIEL_OBS, vector_how)
        )
    table.append(Row("VectorSpades, hearts", "4096", "decisions/s", _vector("hearts", 4096), HEARTS_OBS, vector_how))
    aec_how = "last(), random.random() on mask.nonzero()"
    table.append(Row("PettingZoo AEC env", "1", "steps/s", aec_steps, SPIEL, aec_how))
    table.append(
        Row("PettingZoo AEC env, hearts", "1", "steps/s", lambda t: aec_steps(t, rules="hearts"), HEARTS, aec_how)
    )
    # Its baseline: the raw engine stepping random legal actions one game at a time (when measured).
    engine_one = "engine, random legal play [B=1]"
    gym_base, gym_how = (engine_one, "x the engine B=1 row; ") if 1 in batches else (SPIEL, "")
    gym_how += "hand episodes, learner: random.random() on mask.nonzero()"
    table.append(Row("Gymnasium env, heuristic opponents", "1", "steps/s", gym_heuristic_steps, gym_base, gym_how))
    learned_how = "act on 4096 card-play positions (20 random steps in), torch 1 thread"
    learned = Row("learned bot (two 512 x 3 torsos)", "4096", "decisions/s", learned_decisions, None, learned_how)
    table.append(learned)
    int8 = functools.partial(learned_decisions, spec="learned:precision=int8")
    int8_how = "the same positions, x the float32 row"
    table.append(Row("learned bot, precision=int8", "4096", "decisions/s", int8, learned.key, int8_how))
    tournament_how = "benchmark_heuristic(hands=4096): one batch of 4096 games"
    table.append(Row("heuristic duplicate tournament", "-", "hands/s", heuristic_hands, None, tournament_how))
    return table


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement (split over the rounds)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 256, 4096, 16384])
    parser.add_argument("--json", type=str, default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    pin_to_one_core()
    table = rows(args.batches)
    # Round-robin: each round measures every row for its share of the time, and a row's ratio
    # is the median over rounds of its rate over its baseline's in the same round, so that
    # the machine's drift during the run (it can be 2x on a shared host) cancels.
    rates: dict[str, list[float | None]] = {row.key: [] for row in table}
    for _ in range(args.rounds):
        for row in table:
            rates[row.key].append(row.measure(args.seconds / args.rounds))
    print(f"{'measurement':44s} {'B':>6s} {'rate':>14s}  {'unit':14s} {'x OpenSpiel':>11s}  driven by")
    figures = {}
    for row in table:
        runs = rates[row.key]
        rate = None if None in runs else float(np.median(runs))
        base_key = row.base if row.base is None or row.base.endswith("]") else f"{row.base} [B=1]"
        base_runs = rates[base_key] if base_key else [None]
        if rate is not None and None not in base_runs:
            ratio = f"{np.median([r / q for r, q in zip(runs, base_runs, strict=True)]):11.3g}"
        else:
            ratio = f"{'-':>11s}"
        text = f"{rate:14,.0f}" if rate is not None else f"{'n/a':>14s}"
        print(f"{row.name:44s} {row.batch:>6s} {text}  {row.unit:14s} {ratio}  {row.how}")
        figures[row.key] = rate
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    return figures


def _engine(rules: str, batch: int = 4096) -> Callable[[float], float]:
    return lambda seconds: engine_card_plays(rules, batch, seconds)


def _threaded(threads: int, batch: int) -> Callable[[float], float]:
    return lambda seconds: engine_card_plays("partnership", batch, seconds, threads=threads)


def _spiel_observed(game: str) -> Callable[[float], float | None]:
    return lambda seconds: openspiel_decisions(seconds, observe=True, game=game)


def _vector(rules: str, batch: int) -> Callable[[float], float | None]:
    return lambda seconds: vector_decisions(batch, seconds, rules=rules)


if __name__ == "__main__":
    main()
