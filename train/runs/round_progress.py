"""A progress bar over a training run's rounds, with its ETA (tqdm, as ``spades tournament``'s bar): shown only when
asked for and when standard error is a terminal, so logs and pipes get the plain round lines alone."""

from __future__ import annotations

import sys


def round_bar(total: int, done: int, enabled: bool, desc: str = "rounds"):
    """A tqdm bar of ``total`` rounds, ``done`` of them already run (a resumed run), or None when ``enabled`` is
    False or standard error is no terminal. Print beside it with ``say(bar)``."""
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=done, unit="round", desc=desc, dynamic_ncols=True)


def say(bar):
    """How to print a line while ``bar`` (or None) is shown: above the bar, or a plain flushed print."""
    if bar is None:
        return lambda line: print(line, flush=True)
    return bar.write
