"""A process about to compile a game's Numba kernels says so in one line on stderr, once per game; a cached one
says nothing (``spades_env.core.compile_notice``)."""

import subprocess
import sys
from types import SimpleNamespace

import pytest

from spades_env.core import compile_notice


def fake_dispatcher(index_path) -> SimpleNamespace:
    return SimpleNamespace(_cache=SimpleNamespace(_cache_file=SimpleNamespace(_index_path=str(index_path))))


@pytest.fixture(autouse=True)
def nothing_announced(monkeypatch):
    monkeypatch.setattr(compile_notice, "_announced", set())


def test_a_missing_cache_is_announced_once_per_game(tmp_path, capsys):
    missing = fake_dispatcher(tmp_path / "loops.step_packed-1.py311.nbi")
    assert compile_notice.announce_compile("spades", 135, missing)
    assert not compile_notice.announce_compile("spades", 135, missing)  # once per process and game
    assert compile_notice.announce_compile("hearts", 55, missing)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert "compiling the spades engine with Numba" in lines[0] and "135 s" in lines[0]
    assert "spades warmup" in lines[0]


def test_a_cached_game_says_nothing(tmp_path, capsys):
    index = tmp_path / "loops.step_packed-1.py311.nbi"
    index.write_bytes(b"")
    assert not compile_notice.announce_compile("spades", 135, fake_dispatcher(index))
    assert capsys.readouterr().err == ""


def test_the_engine_of_a_warm_cache_is_silent():
    """Once a game's kernels are cached (here by one step of each game; ``make test`` compiles them all first), a
    new process's engine is silent."""
    import numpy as np

    from spades_env import SpadesEngine

    for rules in ("partnership", "hearts"):
        engine = SpadesEngine(rules)
        state = engine.reset(np.arange(2))
        engine.step(state, engine.random_actions(state, np.random.default_rng(0)))
    code = "from spades_env import SpadesEngine; SpadesEngine('partnership'); SpadesEngine('hearts')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "compiling" not in done.stderr


def test_a_fresh_cache_is_announced(tmp_path):
    """With an empty NUMBA_CACHE_DIR the engine announces the compile when it is built (nothing compiled here)."""
    import os

    code = "from spades_env import SpadesEngine; SpadesEngine('partnership')"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("compiling the spades engine with Numba") == 1
