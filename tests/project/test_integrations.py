"""RL libraries on the envs: sb3-contrib's MaskablePPO, TorchRL, Tianshou, and RLlib's unmasked pre-check."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import spades_env
from spades_env.envs import SpadesGymEnv
from tests.paths import ROOT

RL_PAGE = ROOT / "docs" / "rl-libraries.md"  # the RL libraries' snippets (```py blocks)


def test_maskable_ppo_trains_a_few_hundred_steps_on_the_masks():
    from sb3_contrib import MaskablePPO

    env = SpadesGymEnv(rules="partnership", seat=0, episode="hand", illegal="raise")  # an unmasked action raises
    model = MaskablePPO("MultiInputPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs, _ = env.reset(seed=1)
    for _ in range(13):
        action, _ = model.predict(obs, action_masks=env.action_masks())
        assert obs["action_mask"][int(action)]
        obs, _, done, _, _ = env.step(int(action))
        if done:
            break


def test_torchrl_rollouts_play_legal_actions():
    from torchrl.envs import PettingZooWrapper

    env = PettingZooWrapper(env=spades_env.env(rules="partnership"), use_mask=True, categorical_actions=True, seed=0)
    rollout = env.rollout(60)  # the default illegal="raise": any unmasked action would raise
    acted = 0
    for agent in env.group_map:
        moved = rollout[agent, "mask"].reshape(-1)  # the player was to move
        actions = rollout[agent, "action"].reshape(-1)[moved]
        masks = rollout[agent, "action_mask"].reshape(-1, 68)[moved]
        assert masks[np.arange(len(actions)), actions].all()
        acted += int(moved.sum())
    assert acted == rollout.batch_size[0]  # one player moves per step (the rollout stops when the game ends)


@pytest.mark.slow
def test_the_readme_tianshou_snippet_runs():
    """The RL-libraries page's Tianshou block as written, in a subprocess without numba's ~10 s compilation."""
    blocks = [b for b in re.findall(r"```py\n(.*?)```", RL_PAGE.read_text(), re.S) if "tianshou" in b]
    assert len(blocks) == 1
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_DISABLE_JIT": "1"}
    run = subprocess.run(
        [sys.executable, "-c", blocks[0]], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    episodes, _ = run.stdout.strip().split(" ", 1)
    assert episodes == "2"


def test_unmasked_sampled_actions_end_the_game_with_illegal_penalty():
    """What RLlib's environment pre-check does: actions sampled from the space, masks ignored.
    With ``illegal="penalty"`` (the RLlib set-up of docs/rl-libraries.md) they end games instead of raising."""
    env = spades_env.env(rules="partnership", illegal="penalty")
    env.reset(seed=0)
    for agent in env.action_spaces:
        env.action_space(agent).seed(0)
    penalised = 0
    for _ in range(5):
        env.reset()
        for agent in env.agent_iter():
            _, _, term, trunc, info = env.last()
            if term or trunc:
                penalised += bool(info.get("illegal_action"))
                env.step(None)
            else:
                env.step(env.action_space(agent).sample())
    assert penalised == 5
    raising = spades_env.env(rules="partnership")
    raising.reset(seed=0)
    with pytest.raises(spades_env.IllegalActionError):
        for _ in range(50):
            raising.step(raising.action_space(raising.agent_selection).sample())


def test_the_readme_rllib_snippet_trains_with_action_masking():
    """The RL page's RLlib block as written, in the RLlib venv `make setup` makes (RLlib pins gymnasium 1.2.2)."""
    python = ROOT / ".venv-rllib" / "bin" / "python"
    assert python.exists(), f"{python} is missing: `make setup` makes the RLlib venv"
    blocks = [b for b in re.findall(r"```py\n(.*?)```", RL_PAGE.read_text(), re.S) if "ray.rllib" in b]
    assert len(blocks) == 1
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_DISABLE_USAGE_STATS": "1", "RAY_AUTH_MODE": "disabled"}
    run = subprocess.run([str(python), "-c", blocks[0]], capture_output=True, text=True, env=env, cwd=ROOT, timeout=400)
    assert run.returncode == 0, run.stderr[-3000:]
    assert float(run.stdout.strip().splitlines()[-1]) >= 256
