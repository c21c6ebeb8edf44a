"""One line on stderr when a process is about to compile a game's Numba kernels (the first use after an install).

Numba caches compiled code beside the source (``__pycache__``) or in ``NUMBA_CACHE_DIR``; a process that finds no
cache index for a game's step loop compiles the game's kernels (about 2 minutes of CPU for Spades, 1 for Hearts),
which would otherwise look like a hang. ``spades warmup`` (run by ``make setup``) compiles everything ahead.
"""

from __future__ import annotations

import os
import sys

import numba

_announced: set[str] = set()


def is_cached(dispatcher) -> bool:
    """Whether ``dispatcher`` (a ``@njit(cache=True)`` function) has a cache index on disk: True where Numba
    runs without compiling (``NUMBA_DISABLE_JIT``) or the cache cannot be told."""
    if numba.config.DISABLE_JIT:
        return True
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return True


def announce_compile(game: str, seconds: int, dispatcher) -> bool:
    """Say once per process and game, on stderr, that ``game``'s kernels are being compiled (about ``seconds`` of
    CPU: the game's spec says, ``GameSpec.compile_seconds``) when ``dispatcher`` has no cache yet; whether it said
    so."""
    if game in _announced or is_cached(dispatcher):
        return False
    _announced.add(game)
    print(
        f"spades_env: compiling the {game} engine with Numba, once per installation (about {seconds} s of CPU; "
        "later runs load it from the cache; `spades warmup` compiles every kernel ahead)",
        file=sys.stderr,
        flush=True,
    )
    return True
