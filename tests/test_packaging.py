"""The environment package stays light: numpy, gymnasium, pettingzoo and PyYAML only."""

import subprocess
import sys

HEAVY = ("torch", "tensorboard", "matplotlib", "agents", "train", "rich", "typer", "openskill", "pyspiel")


def test_importing_spades_env_loads_no_heavy_package():
    code = (
        "import sys, spades_env, spades_env.envs, spades_env.reference, spades_env.playthrough\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"import spades_env pulled in: {out}"


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
