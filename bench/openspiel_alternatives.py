"""The ways to drive OpenSpiel, measured side by side: why ``bench.openspiel_driver`` is the baseline.

``python -m bench.openspiel_alternatives [--seconds 0.5] [--rounds 5]`` prints decisions per
CPU second of random legal play in ``spades`` and ``hearts`` for each way (one core,
interleaved rounds, medians), without and with observations.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import openspiel_driver
from bench.timing import pin_to_one_core, timed


def generator_driven(game: Any, observe: Callable[[Any], Any] | None = None) -> Callable[[], int]:
    """The bench before 2026-12-01: a NumPy ``Generator`` call per node, ``chance_outcomes()``."""
    rng = np.random.default_rng(0)

    def body() -> int:
        state, decisions = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            if observe is not None:
                observe(state)
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            decisions += 1
        return decisions

    return body


def choice_driven(game: Any) -> Callable[[], int]:
    """``random.choice`` on ``legal_actions()``, and on ``chance_outcomes()`` at chance nodes."""

    def body() -> int:
        state, decisions = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(random.choice(state.chance_outcomes())[0])
                continue
            state.apply_action(random.choice(state.legal_actions()))
            decisions += 1
        return decisions

    return body


def ways(game: Any) -> dict[str, Callable[[], int]]:
    """Every way measured, by name."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    rand = random.Random(0).random
    tensor = openspiel_driver.tensor_name(game)

    def driven(observe: Callable[[Any, int], Any] | None = None) -> Callable[[], int]:
        return lambda: openspiel_driver.play_random(game.new_initial_state(), rand, observe)

    table = {
        "NumPy Generator per node (the bench before 2026-12-01)": generator_driven(game),
        "random.choice on legal_actions() / chance_outcomes()": choice_driven(game),
        "openspiel_driver.play_random (the bench)": driven(),
        f"Generator + {tensor}() list (before)": generator_driven(game, lambda s: getattr(s, tensor)()),
        f"play_random + {tensor}() list": driven(lambda s, p: getattr(s, tensor)(p)),
    }
    if game.get_type().provides_observation_tensor:
        buffer = np.zeros(game.observation_tensor_size(), np.float32)
        table["play_random + write_observation_tensor(buffer)"] = driven(
            lambda s, p: s.write_observation_tensor(buffer)
        )
    kind = None if game.get_type().provides_observation_tensor else pyspiel.IIGObservationType(perfect_recall=True)
    table["play_random + make_observation(game).set_from"] = driven(make_observation(game, kind).set_from)
    table["play_random + Observer set_from (the bench)"] = driven(openspiel_driver.observer(game)[1])
    return table


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="CPU seconds per way and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; medians are reported")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    pin_to_one_core()
    figures = {}
    for name in ("spades", "hearts"):
        game = openspiel_driver.load_game(name)
        if game is None:
            parser.error("pyspiel is not installed (pip install open_spiel, or the bench extra)")
        table = ways(game)
        rates: dict[str, list[float]] = {way: [] for way in table}
        for _ in range(args.rounds):
            for way, body in table.items():
                rates[way].append(timed(args.seconds, body))
        figures[name] = {way: float(np.median(runs)) for way, runs in rates.items()}
        for way, rate in figures[name].items():
            print(f"{name:7s} {way:56s} {rate:10,.0f} decisions/s")
    return figures


if __name__ == "__main__":
    main()
