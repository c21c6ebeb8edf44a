"""``make bench``: throughput of the engine, environments and bots on one core.

Every figure is measured in the same run as its baseline (OpenSpiel through
pyspiel, and our readable reference engine), so the ratios hold on a shared,
noisy machine. The Hearts rows are compared with OpenSpiel's ``hearts`` (its
decisions include the passes), the VectorSpades rows with OpenSpiel plus its
observation tensor (Hearts: information-state tensor). Run ``python -m bench.run --help`` for options.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable

import numpy as np

from spades_env import SpadesEngine
from spades_env.engine import PLAY


def pin_to_one_core() -> None:
    """Measure on one core, as the targets are stated."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})


def timed(run_for: float, body: Callable[[], int]) -> float:
    """Call ``body`` (returns units of work done) until ``run_for`` seconds pass; units/s."""
    body()  # warm-up
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < run_for:
        done += body()
    return done / elapsed


def engine_card_plays(rules: str, batch: int, seconds: float, seed: int = 0) -> float:
    """Card plays/s of uniformly random legal play (legal moves and sampling included).

    Every step each game draws a uniformly random legal action (``random_actions``: the
    legal cards of the player to move as a uint64 mask and a random one of them; bids and
    blind-nil choices from their ranges; rarer decisions from the legal-action mask).
    ``step`` validates every action and starts a new match where one ended
    (``auto_reset``). Only card plays are counted.
    """
    engine = SpadesEngine(rules)
    rng = np.random.default_rng(seed)
    state = engine.reset(np.arange(batch))

    def body() -> int:
        plays = 0
        for _ in range(64):
            plays += int(np.count_nonzero(state.phase == PLAY))
            engine.step(state, engine.random_actions(state, rng), auto_reset=True)
        return plays

    return timed(seconds, body)


def openspiel_decisions(seconds: float, observe: bool = False, seed: int = 0, game: str = "spades") -> float | None:
    """Decisions/s of OpenSpiel's ``spades`` (or ``hearts``) with random legal play (None if not installed).

    With ``observe`` every decision also encodes the player's observation tensor (Hearts has
    none in OpenSpiel: its information-state tensor instead).
    """
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(game)
    rng = np.random.default_rng(seed)
    tensor_of = "observation_tensor" if game.get_type().provides_observation_tensor else "information_state_tensor"

    def body() -> int:
        state, n = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            if observe:
                getattr(state, tensor_of)()
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            n += 1
        return n

    return timed(seconds, body)


def reference_decisions(seconds: float, seed: int = 0) -> float | None:
    """Decisions/s of the plain-Python reference engine (one game at a time)."""
    try:
        from bench.reference_driver import random_reference_decisions
    except ImportError:
        return None
    return random_reference_decisions(seconds, seed)


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


def aec_steps(seconds: float, seed: int = 0) -> float | None:
    """Steps/s of the PettingZoo AEC env on one game (observe + mask + step).

    The policy is the cheapest uniform random legal pick (the indices of the mask, one
    ``rng.random()``), so that the figure is the env's; resets (a new seeded match when one
    ends) are included but not counted as steps.
    """
    try:
        from spades_env import env as make_env
    except ImportError:
        return None
    aec = make_env(rules="partnership", episode="match")
    rng = np.random.default_rng(seed)
    aec.reset(seed=seed)

    def body() -> int:
        n = 0
        for _ in range(500):
            obs, _, term, trunc, _ = aec.last()
            if term or trunc:
                aec.reset(seed=int(rng.integers(1 << 30)))
                continue
            legal = np.flatnonzero(obs["action_mask"])
            aec.step(int(legal[int(rng.random() * len(legal))]))
            n += 1
        return n

    return timed(seconds, body)


def heuristic_hands(seconds: float) -> float | None:
    """Duplicate heuristic-vs-heuristic hands/s (both cores, as a tournament runs)."""
    try:
        from train.tournament import benchmark_heuristic
    except ImportError:
        return None
    start = time.perf_counter()
    rate = benchmark_heuristic(hands=4096)
    if time.perf_counter() - start < seconds:
        rate = benchmark_heuristic(hands=8192)
    return rate


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 256, 4096, 16384])
    parser.add_argument("--json", type=str, default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    pin_to_one_core()
    s = args.seconds
    rows: list[tuple[str, str, float | None, str]] = []
    spiel = openspiel_decisions(s)
    spiel_obs = openspiel_decisions(s, observe=True)
    rows.append(("OpenSpiel spades (pyspiel)", "1", spiel, "decisions/s"))
    rows.append(("OpenSpiel spades + observation_tensor()", "1", spiel_obs, "decisions/s"))
    spiel_hearts = openspiel_decisions(s, game="hearts")
    rows.append(("OpenSpiel hearts (pyspiel)", "1", spiel_hearts, "decisions/s"))
    spiel_hearts_obs = openspiel_decisions(s, observe=True, game="hearts")
    rows.append(("OpenSpiel hearts + information_state_tensor()", "1", spiel_hearts_obs, "decisions/s"))
    rows.append(("reference engine (plain Python)", "1", reference_decisions(s), "decisions/s"))
    for b in args.batches:
        rows.append(("engine, random legal play", str(b), engine_card_plays("partnership", b, s), "card plays/s"))
    # Without blind nil every hand takes the same number of steps, so the games stay in
    # lockstep and every card play takes the full-batch fast path.
    lockstep = engine_card_plays("partnership-no-blind-nil", 4096, s)
    rows.append(("engine, lockstep (no blind nil)", "4096", lockstep, "card plays/s"))
    for preset in ("cutthroat-4", "two-player", "hearts"):
        rows.append((f"engine, {preset}", "4096", engine_card_plays(preset, 4096, s), "card plays/s"))
    for b in args.batches:
        rows.append(("VectorSpades, obs + masks", str(b), vector_decisions(b, s), "decisions/s"))
    rows.append(("VectorSpades, hearts", "4096", vector_decisions(4096, s, rules="hearts"), "decisions/s"))
    rows.append(("PettingZoo AEC env", "1", aec_steps(s), "steps/s"))
    rows.append(("heuristic duplicate tournament", "-", heuristic_hands(s), "hands/s"))
    print(f"{'measurement':44s} {'B':>6s} {'rate':>14s}  {'unit':14s} {'x OpenSpiel':>11s}")
    figures = {}
    for name, b, rate, unit in rows:
        if "VectorSpades" in name or "_tensor()" in name:
            base = spiel_hearts_obs if "hearts" in name else spiel_obs
        else:
            base = spiel_hearts if "hearts" in name else spiel
        ratio = f"{rate / base:11.1f}" if rate and base and unit != "hands/s" else f"{'-':>11s}"
        text = f"{rate:14,.0f}" if rate is not None else f"{'n/a':>14s}"
        print(f"{name:44s} {b:>6s} {text}  {unit:14s} {ratio}")
        figures[f"{name} [B={b}]"] = rate
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    return figures


if __name__ == "__main__":
    main()
