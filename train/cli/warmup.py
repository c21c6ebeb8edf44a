"""Compile the suite's Numba kernels into the cache, in two processes at once: ``spades warmup``.

Numba compiles the engine, the bots and the search on first use and caches the result beside the installed code,
so only the first process pays (~285 s of CPU on a fresh checkout: the Spades engine ~135 s, Hearts ~55, the
heuristic ~19, the search rollouts ~70, the endgame solver ~25). ``make setup`` runs ``spades warmup`` so that the
first ``spades demo`` loads the cache; ``make test`` runs it too (``tests/conftest.py``) so that its two workers do
not compile the same kernels at once. Part ``a`` compiles the Spades engine, the heuristic, the search's card-play
model and the endgame solver while ``b`` compiles Hearts and its bots, then the Spades search's rollouts once ``a``
has cached the engine they play on: ~180 s of wall time instead of ~260. On a warm cache each part takes seconds.

By hand: ``python -m train.cli.warmup a|b MARKER_DIR`` runs one part.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numba
import numpy as np


def play(rules: str, bot_spec: str | None = None, steps: int = 400, num_envs: int = 4) -> None:
    """``steps`` decisions in ``num_envs`` seeded games of ``rules``, random legal actions or ``bot_spec``'s."""
    from agents import make_agent
    from spades_env.envs.vector import VectorSpades

    env = VectorSpades(rules, num_envs, seed=0)
    obs, info = env.reset(seed=0)
    bot = make_agent(bot_spec, seed=0) if bot_spec else None
    rng = np.random.default_rng(0)
    for _ in range(steps):
        mask = info["action_mask"]
        action = np.argmax(rng.random(mask.shape) * mask, axis=1) if bot is None else bot.act(obs, mask, env.context())
        obs, _, _, _, info = env.step(action)


def solve_endgames(rules: str = "partnership", games: int = 4) -> None:
    """The exact endgame solver (``agents.spades.endgame``, both its searches) on positions two tricks from the end."""
    from agents.spades.endgame import solve_positions
    from spades_env.engine import PLAY, SpadesEngine
    from spades_env.rules import resolve_rules

    engine = SpadesEngine(resolve_rules(rules))
    state = engine.reset(np.arange(games))
    rng = np.random.default_rng(0)
    while not (late := (state.phase == PLAY) & (engine.hand_size - state.n_tricks <= 2)).any():
        engine.step(state, engine.random_actions(state, rng), validate=False, auto_reset=True)
    solve_positions(engine, state, np.flatnonzero(late), state.hands[late])


def wait_for(marker: Path, limit_s: float = 900.0) -> None:
    """Until the other process has written ``marker`` (or ``limit_s`` passed: then compile it here)."""
    start = time.monotonic()
    while not marker.exists() and time.monotonic() - start < limit_s:
        time.sleep(0.5)


def main(part: str, markers: Path) -> None:
    spades_done = markers / "spades_engine"
    if part == "a":
        play("partnership")
        spades_done.touch()
        play("partnership", "heuristic")
        play("partnership", "search:samples=4", steps=60, num_envs=2)  # the card-play model of its samples
        solve_endgames()  # the search bot's endgame=K solver
    elif part == "b":
        play("hearts")
        play("hearts", "heuristic")
        play("hearts", "search:samples=4", steps=60, num_envs=2)
        wait_for(spades_done)
        play("partnership", "search:fast,bid_samples=2", steps=60, num_envs=2)  # the rollouts, the lookahead bids
        threads = min(2, numba.config.NUMBA_NUM_THREADS)  # the rollouts on threads (enough candidates to split)
        play("partnership", f"search:fast,threads={threads}", steps=30, num_envs=8)
        play("hearts", f"search:samples=4,threads={threads}", steps=30, num_envs=8)
    else:
        raise SystemExit(f"part: 'a' or 'b', not {part!r}")


def warm_up() -> list[tuple[str, int, str]]:
    """Both parts in parallel subprocesses; ``(part, return code, output tail)`` of each, in order."""
    import subprocess
    import tempfile

    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT}
    with tempfile.TemporaryDirectory() as markers:
        parts = ("a", "b")
        procs = [subprocess.Popen([sys.executable, "-m", "train.cli.warmup", part, markers], **pipes) for part in parts]
        outputs = [proc.communicate()[0].decode(errors="replace") for proc in procs]
    return [(part, proc.returncode, text[-2000:]) for part, proc, text in zip(parts, procs, outputs, strict=True)]


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
