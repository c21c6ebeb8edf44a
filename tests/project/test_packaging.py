"""The environment package stays light: numpy, numba, gymnasium, pettingzoo and PyYAML only."""

import subprocess
import sys

import pytest

from tests.paths import ROOT

HEAVY = (
    "torch",
    "tensorboard",
    "matplotlib",
    "agents",
    "train",
    "rich",
    "typer",
    "pyspiel",
    "stable_baselines3",
    "sb3_contrib",
    "torchrl",
    "tianshou",
    "ray",
    "fastapi",
)


def test_importing_spades_env_loads_no_heavy_package():
    code = (
        "import sys, spades_env, spades_env.envs, spades_env.playthrough\n"
        "import spades_env.games.spades.reference, spades_env.games.hearts.reference\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"import spades_env pulled in: {out}"


def test_numba_is_a_core_dependency_and_the_engine_step_runs_compiled():
    """numba (the compiled card play, ``spades_env.core``) is allowed on the import path, and declared."""
    import re

    from spades_env.core import trick_play

    pyproject = (ROOT / "pyproject.toml").read_text()
    core_dependencies = re.search(r"^dependencies = \[(.*?)\]", pyproject, re.S | re.M).group(1)
    assert '"numba>=' in core_dependencies
    assert "numba" not in HEAVY
    assert hasattr(trick_play.play_cards, "py_func"), "play_cards is not a Numba dispatcher"


def test_every_preset_builds_an_engine_and_envs():
    import spades_env
    from spades_env import SpadesEngine, VectorSpades

    for name in spades_env.list_presets():
        engine = SpadesEngine(name)
        assert engine.layout.n_actions >= engine.layout.n_card_ids
        env = VectorSpades(name, num_envs=2, seed=0)
        obs, info = env.reset()
        assert obs.shape == (2, env.encoder.size)
        assert info["action_mask"].any(axis=1).all()


_INSTALLED_CHECK = """
import pathlib, sys
import gymnasium, numpy as np
import spades_env

here = pathlib.Path(spades_env.__file__).resolve()
assert here.is_relative_to(pathlib.Path(sys.prefix).resolve()), f"spades_env imported from {here}"
presets = spades_env.list_presets()
assert presets == sorted(sys.argv[1].split(",")), presets
from spades_env.games import generate_loops
assert generate_loops.main(["--check"]) == 0  # the loops' template ships, and the installed loops are its text
rng = np.random.default_rng(0)

aec = spades_env.env()  # the default rules: the 'partnership' preset
aec.reset(seed=0)
for agent in aec.agent_iter():
    obs, reward, terminated, truncated, info = aec.last()
    aec.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
assert not aec.agents

gym = gymnasium.make("spades_env/Spades-v0")
obs, info = gym.reset(seed=0)
done = False
while not done:
    obs, reward, terminated, truncated, info = gym.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    done = terminated or truncated
print("installed ok:", len(presets), "presets")
"""

_INSTALLED_LEARNED_CHECK = """
import pathlib, sys
import numpy as np
from agents import make_agent
from agents.base import DecisionContext
from spades_env import VectorSpades

bot = make_agent("learned", seed=0)
where = pathlib.Path(sys.prefix).resolve() / "share" / "spades_env" / "checkpoints"
assert all(path.parent.resolve() == where for path in bot.paths.values()), bot.paths
env = VectorSpades("hearts", num_envs=2, seed=0)
obs, info = env.reset()
bot.check_supports(env.engine)
mask = info["action_mask"]
actions = bot.act(obs, mask, DecisionContext(env.engine, env.state, np.arange(2), info["to_play"]))
assert mask[np.arange(2), actions].all() and bot.bound is bot.agent_for("hearts")
print("learned ok:", sorted(bot.paths), "from share/spades_env/checkpoints")
"""

# The compiled side from the install: a kernel compiles, equals its NumPy twin, and caches beside the
# installed module (the matches above run with NUMBA_DISABLE_JIT=1: compiling the whole engine in the
# fresh venv took ~2.5 min of the suite's CPU and tests nothing the checkout's compiled tests do not).
_INSTALLED_COMPILED_CHECK = """
import pathlib
import numpy as np
from spades_env.core import hashing
from spades_env.engine import dealing

keys = np.array([0, 1, 2**63 + 5], np.uint64)
assert [hashing.stream(k, 3, 7) for k in keys] == list(dealing.stream(keys, 3, 7))
cache = pathlib.Path(hashing.__file__).parent / "__pycache__"
assert any(cache.glob("hashing.stream-*.nbi")), sorted(p.name for p in cache.iterdir())
print("compiled ok")
"""


#: The files of ``train`` a wheel ships: its modules (every subpackage) and its package data (the web table's page and
#: API reference, expert iteration's family configs).
SHIPPED_SUFFIXES = (".py", ".yaml", ".md", ".js", ".css", ".html")


@pytest.mark.slow
def test_a_built_wheel_ships_the_presets_and_plays_from_a_fresh_venv(tmp_path):
    """Build the wheel (every module and data file of ``train`` in it), install it alone in a fresh venv (dependencies
    seen through a .pth), and from outside the repository list the presets, play through both env entry points and let
    the ``learned`` bot (its checkpoints installed with the wheel) pick the Hearts network and play."""
    import os
    import shutil
    import sysconfig
    import zipfile
    from pathlib import Path

    import spades_env
    from agents.guided import POSITION_VALUE_CHECKPOINTS
    from agents.learned import LEARNED_CHECKPOINTS

    root = ROOT
    src = tmp_path / "src"  # build a copy, so that no build/ or egg-info lands in the checkout
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, src / name)
    for name in ("spades_env", "agents", "train", "checkpoints"):
        shutil.copytree(root / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    pip = [sys.executable, "-m", "pip"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path / "dist"), str(src)],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("spades_env-*.whl")
    shipped = set(zipfile.ZipFile(wheel).namelist())
    ours = sorted((root / "train").rglob("*"))
    ours = [
        p.relative_to(root).as_posix() for p in ours if p.suffix in SHIPPED_SUFFIXES and "__pycache__" not in p.parts
    ]
    assert [name for name in ours if name not in shipped] == [], "train modules or package data missing from the wheel"
    checkpoints = {Path(name).name for name in shipped if name.endswith(".pt")}
    played = {p.name for p in (*LEARNED_CHECKPOINTS.values(), *POSITION_VALUE_CHECKPOINTS.values())}
    assert checkpoints == played, "the wheel ships exactly the checkpoints the bots play"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", str(python), "install", "--no-deps", "-q", str(wheel)], check=True)
    get_purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    fresh_site = subprocess.run([python, "-c", get_purelib], capture_output=True, text=True, check=True).stdout
    # A plain path line: the dependencies are importable, the editable finder of this checkout is not.
    (Path(fresh_site.strip()) / "_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    presets = ",".join(spades_env.list_presets())
    out = subprocess.run(
        [python, "-c", _INSTALLED_CHECK, presets],
        cwd=outside,
        env={**env, "NUMBA_DISABLE_JIT": "1"},
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"installed ok: {len(spades_env.list_presets())} presets" in out.stdout
    out = subprocess.run(
        [python, "-c", _INSTALLED_LEARNED_CHECK], cwd=outside, env={**env, "NUMBA_DISABLE_JIT": "1"},
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    learned = [
        "cutthroat-3",
        "cutthroat-4",
        "cutthroat-5",
        "cutthroat-6",
        "hearts",
        "hearts-partnership",
        "partnership",
        "partnership-house",
        "two-player",
    ]
    assert f"learned ok: {learned} from share/spades_env/checkpoints" in out.stdout
    check = [python, "-c", _INSTALLED_COMPILED_CHECK]
    out = subprocess.run(check, cwd=outside, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "compiled ok" in out.stdout
    spades = [venv / "bin" / "spades", "presets"]  # the console script: the entry point train.cli.app:app
    out = subprocess.run(spades, cwd=outside, env={**env, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert all(name in out.stdout for name in spades_env.list_presets())
