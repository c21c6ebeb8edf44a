"""PPO self-play end to end with the smoke config: checkpoints, exact resume, the neural agent, the CLI."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.neural import NeuralAgent  # noqa: E402
from train.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from train.ppo import PPOConfig, train  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SMOKE = ROOT / "configs" / "train" / "smoke.yaml"


def smoke_config(tmp_path, **changes) -> PPOConfig:
    return dataclasses.replace(PPOConfig.from_yaml(SMOKE), run_dir=str(tmp_path), **changes)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    """The smoke run, uninterrupted."""
    tmp = tmp_path_factory.mktemp("full")
    return train(smoke_config(tmp), quiet=True)


def test_smoke_run_writes_a_complete_checkpoint_and_tensorboard_logs(full_run):
    ckpt = load_checkpoint(full_run)
    cfg = PPOConfig.from_yaml(SMOKE)
    assert ckpt["update"] == cfg.total_updates
    assert ckpt["global_step"] == cfg.total_updates * cfg.num_envs * cfg.num_steps
    assert ckpt["rules"]["name"] == "partnership"
    assert ckpt["config"] == cfg.to_dict() | {"run_dir": ckpt["config"]["run_dir"]}
    for key in ("obs_version", "model", "optimizer", "rng", "env", "buffer", "pool"):
        assert key in ckpt
    run = full_run.parent.parent
    assert run.name.startswith("partnership__smoke__1__")
    assert list(run.glob("events.out.tfevents.*"))


def test_resumed_run_matches_the_uninterrupted_run_exactly(tmp_path, full_run):
    cfg = smoke_config(tmp_path)
    half = train(cfg, stop_at=cfg.total_updates // 2, quiet=True)
    assert load_checkpoint(half)["update"] == cfg.total_updates // 2
    resumed = train(cfg, resume=half, quiet=True)
    a, b = load_checkpoint(full_run), load_checkpoint(resumed)
    assert b["update"] == a["update"] and b["global_step"] == a["global_step"]
    for name, tensor in a["model"].items():
        assert torch.equal(tensor, b["model"][name]), name
    assert len(a["pool"]) == len(b["pool"]) > 0
    np.testing.assert_array_equal(a["next_obs"], b["next_obs"])


def test_neural_agent_from_checkpoint_plays_only_legal_actions(full_run):
    from spades_env.envs.vector import VectorSpades

    agent = NeuralAgent.from_checkpoint(full_run)
    assert agent.uses_observations
    env = VectorSpades("partnership", num_envs=4, seed=3)
    assert agent.supports(env.engine)
    obs, info = env.reset()
    for _ in range(80):  # env.step raises IllegalActionError on an illegal action
        actions = agent.act(obs, info["action_mask"], env.context())
        assert info["action_mask"][np.arange(4), actions].all()
        obs, _, _, _, info = env.step(actions)
    from agents.neural import make_neural_agent

    sampler = make_neural_agent(seed=0, path=str(full_run), greedy=0)
    assert not sampler.greedy
    assert info["action_mask"][np.arange(4), sampler.act(obs, info["action_mask"])].all()


def test_neural_agent_refuses_a_checkpoint_of_another_observation_version(tmp_path, full_run):
    ckpt = load_checkpoint(full_run)
    ckpt["obs_version"] = -1
    path = save_checkpoint(tmp_path / "old.pt", ckpt)
    with pytest.raises(ValueError, match="observation VERSION"):
        NeuralAgent.from_checkpoint(path)


def test_checkpoint_save_is_atomic(tmp_path, monkeypatch):
    payload = {"format": 2, "rules": {}, "obs_version": 0, "config": {}, "model_hparams": {}, "model": {}}
    payload["global_step"] = 0
    path = save_checkpoint(tmp_path / "c.pt", payload)
    assert load_checkpoint(path)["global_step"] == 0

    def broken_save(obj, f):
        f.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError):
        save_checkpoint(path, payload | {"global_step": 5})
    assert load_checkpoint(path)["global_step"] == 0  # the old checkpoint survives
    assert [p.name for p in tmp_path.iterdir()] == ["c.pt"]  # no temp file left behind


def test_config_rejects_unknown_keys_and_bad_values():
    with pytest.raises(ValueError, match="unknown training config key"):
        PPOConfig.from_dict({"learning_rat": 1e-3})
    with pytest.raises(ValueError, match="credit"):
        PPOConfig(credit="trick")


def test_cli_train_runs_the_smoke_config(tmp_path):
    cmd = [sys.executable, "-m", "train.cli", "train", "--config", str(SMOKE), "--run-dir", str(tmp_path)]
    out = subprocess.run(cmd + ["--stop-at", "1"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "checkpoint:" in out.stdout
    (ckpt,) = tmp_path.glob("*/checkpoints/latest.pt")
    assert load_checkpoint(ckpt)["update"] == 1


def test_evaluation_against_the_heuristic_reports_points_with_a_confidence_interval(full_run):
    from train.ppo import evaluate_against_heuristic

    result = evaluate_against_heuristic(NeuralAgent.from_checkpoint(full_run), "partnership", boards=8, seed=5)
    assert set(result) == {"points_per_hand", "heuristic_points_per_hand", "diff", "diff_ci95", "board_win_rate"}
    assert np.isfinite(result["diff"]) and result["diff_ci95"] > 0
    assert result["diff"] == pytest.approx(result["points_per_hand"] - result["heuristic_points_per_hand"])


def test_slim_checkpoint_plays_like_the_full_one_and_can_seed_a_run(tmp_path, full_run):
    from spades_env.envs.vector import VectorSpades
    from train.checkpoint import export_slim

    slim = export_slim(full_run, tmp_path / "slim.pt")
    data = torch.load(slim, weights_only=True)
    assert data["slim"] and "env" not in data and "optimizer" not in data
    assert slim.stat().st_size < full_run.stat().st_size
    full, small = NeuralAgent.from_checkpoint(full_run), NeuralAgent.from_checkpoint(slim)
    env = VectorSpades("partnership", num_envs=8, seed=4)
    obs, info = env.reset()
    for _ in range(30):
        actions = full.act(obs, info["action_mask"])
        np.testing.assert_array_equal(actions, small.act(obs, info["action_mask"]))
        obs, _, _, _, info = env.step(actions)
    with pytest.raises(ValueError, match="slim"):
        train(smoke_config(tmp_path), resume=slim, quiet=True)
    # init_from starts a run from the slim weights (before any update they are the same network).
    seeded = train(smoke_config(tmp_path, init_from=str(slim), total_updates=1, eval_final=False), quiet=True)
    assert load_checkpoint(seeded)["update"] == 1
    with pytest.raises(ValueError, match="network"):
        train(smoke_config(tmp_path, init_from=str(slim), hidden=16, total_updates=1), quiet=True)


def test_evaluation_keeps_the_best_checkpoint(full_run):
    best = full_run.parent / "best.pt"
    assert best.exists()  # the smoke config evaluates at the end; the first evaluation is the best so far
    assert load_checkpoint(best)["best_diff"] > -float("inf")
