"""How ``make bench`` times a row: this process's CPU time on one core (``timed``, ``pin_to_one_core``), or the
wall clock on ``THREAD_CORES`` cores for the rows that run on several threads (``on_cores``)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable


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
