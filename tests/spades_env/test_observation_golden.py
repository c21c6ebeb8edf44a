"""Observations pinned to a fixture: every preset, both games, every seat, both information modes.

``tests/golden/observations.npz`` holds, for each preset, the observations (and the
perfect-information ``state()`` encoding) of every seat at positions of seeded random games,
as the NumPy encoders of layout ``VERSION`` 2 (Spades) and ``HEARTS_VERSION`` 1 wrote them
before the encoders were compiled. The positions come from the engine alone (seeded deals
and ``random_actions``), which must not change for a seeded game, so the fixture pins the
encoders bit for bit (float32 bytes): the batched call, the one-game call, any order of games.

Regenerate only after a deliberate layout change (with a new layout version), and review it:
``PYTHONPATH=. .venv/bin/python tests/spades_env/test_observation_golden.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from spades_env import SpadesEngine, list_presets
from spades_env.observation import encoder_for
from tests.paths import GOLDEN

FIXTURE = GOLDEN / "observations.npz"
#: Games per preset, random steps played, and every how many steps a position is recorded.
GAMES, STEPS, EVERY = 3, 368, 23


def positions(preset: str):
    """Yield (k, state) at every ``EVERY``-th of ``STEPS`` seeded random steps of ``GAMES`` games
    (a match that ends starts a new one in the first half; in the second it stays over)."""
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(GAMES) + 17)
    rng = np.random.default_rng(5)
    for t in range(STEPS):
        if t % EVERY == 0:
            yield t // EVERY, state
        engine.step(state, engine.random_actions(state, rng), validate=False, auto_reset=t < STEPS // 2)


def observations(preset: str, perfect: bool) -> np.ndarray:
    """(positions, GAMES, N, size) float32: the observation of every seat of every game."""
    engine = SpadesEngine(preset)
    enc = encoder_for(engine, perfect_information=perfect)
    n = engine.n_players
    games, seats = np.repeat(np.arange(GAMES), n), np.tile(np.arange(n), GAMES)
    rows = [enc.encode(state, games, seats).reshape(GAMES, n, enc.size) for _, state in positions(preset)]
    return np.stack(rows)


def _key(preset: str, perfect: bool) -> str:
    return f"{preset}{'-perfect' if perfect else ''}"


@pytest.fixture(scope="module")
def golden():
    with np.load(FIXTURE) as data:
        return {name: data[name] for name in data.files}


def test_the_fixture_covers_every_preset(golden):
    assert set(golden) == {_key(p, perfect) for p in list_presets() for perfect in (False, True)}


@pytest.mark.parametrize("perfect", [False, True])
@pytest.mark.parametrize("preset", list_presets())
def test_observations_equal_the_fixture(golden, preset, perfect):
    """The batched encoder gives the recorded float32 bytes of every seat at every position."""
    want = golden[_key(preset, perfect)]
    got = observations(preset, perfect)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), f"{preset}: first difference at {np.argwhere(got != want)[0]}"


@pytest.mark.parametrize("perfect", [False, True])
@pytest.mark.parametrize("preset", list_presets())
def test_one_game_and_shuffled_calls_equal_the_fixture(golden, preset, perfect):
    """One (game, seat) at a time, and the rows of a call in any order (repeats too), give the
    same bytes: the single-game path the AEC env uses is the batched one."""
    want = golden[_key(preset, perfect)]
    engine = SpadesEngine(preset)
    enc = encoder_for(engine, perfect_information=perfect)
    rng = np.random.default_rng(3)
    for k, state in positions(preset):
        g, seat = int(rng.integers(GAMES)), int(rng.integers(engine.n_players))
        one = enc.encode(state, np.array([g]), np.array([seat]))
        assert one.tobytes() == want[k, g, seat].tobytes()
        games = rng.integers(0, GAMES, 7)
        seats = rng.integers(0, engine.n_players, 7)
        out = np.full((7, enc.size), np.nan, np.float32)
        assert enc.encode(state, games, seats, out=out) is out
        assert out.tobytes() == want[k, games, seats].tobytes()
    assert k == STEPS // EVERY - 1


def write_fixture() -> None:
    """Record today's encoders' outputs for every preset (see the module docstring)."""
    arrays = {_key(p, perfect): observations(p, perfect) for p in list_presets() for perfect in (False, True)}
    np.savez_compressed(FIXTURE, **arrays)
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size} bytes)")


if __name__ == "__main__":
    write_fixture()
