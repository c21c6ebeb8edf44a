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
for options. What each row measures is ``bench.rates``; how it is timed, ``bench.timing``.
"""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from bench.rates import (
    aec_steps,
    engine_card_plays,
    gym_heuristic_steps,
    heuristic_hands,
    learned_decisions,
    openspiel_decisions,
    reference_decisions,
    vector_decisions,
)
from bench.timing import pin_to_one_core


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


def rows(batches: list[int], learned_batch: int = 4096) -> list[Row]:
    """Every row of ``make bench``, with how it is driven (the learned bot's rows on ``learned_batch``
    positions). Without blind nil every hand takes the same number of steps, so the games stay in
    lockstep and every card play takes the full-batch fast path."""
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
    learned_how = f"act on {learned_batch} card-play positions (20 random steps in), torch 1 thread"
    play = functools.partial(learned_decisions, batch=learned_batch)
    learned = Row("learned bot (two 512 x 3 torsos)", str(learned_batch), "decisions/s", play, None, learned_how)
    table.append(learned)
    int8 = functools.partial(learned_decisions, batch=learned_batch, spec="learned:precision=int8")
    int8_how = "the same positions, x the float32 row"
    table.append(Row("learned bot, precision=int8", str(learned_batch), "decisions/s", int8, learned.key, int8_how))
    tournament_how = "benchmark_heuristic(hands=4096): one batch of 4096 games"
    table.append(Row("heuristic duplicate tournament", "-", "hands/s", heuristic_hands, None, tournament_how))
    return table


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement (split over the rounds)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 256, 4096, 16384])
    parser.add_argument("--learned-batch", type=int, default=4096, help="positions of the learned bot's rows")
    parser.add_argument("--json", type=str, default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.learned_batch < 1:
        parser.error(f"--learned-batch must be at least 1, got {args.learned_batch}")
    pin_to_one_core()
    table = rows(args.batches, args.learned_batch)
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
