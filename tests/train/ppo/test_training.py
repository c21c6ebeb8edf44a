"""PPO self-play end to end with the smoke config: checkpoints, exact resume, the neural agent, the CLI."""

import dataclasses
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.neural import NeuralAgent  # noqa: E402
from tests.checkpoint_compare import assert_same, without_run_identity  # noqa: E402
from tests.run_logs import run_scalars  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402
from train.runs.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402

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


def resume_later(checkpoint, seconds=100, **options):
    """Resume as if ``seconds`` later: TensorBoard reads a run's event files in the order of the
    time in their names, so a resumed run's file must not carry the first run's second."""
    now = time.time
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(time, "time", lambda: now() + seconds)
        return train(None, resume=checkpoint, quiet=True, **options)


def full_and_resumed(make_config, tmp_path):
    """The checkpoints (without the run's identity) of a run of ``make_config(folder)`` to its end and of the same run
    stopped after half its updates, then resumed to the end: resuming must give the same bits."""
    from tests.checkpoint_compare import assert_same, without_run_identity

    full = train(make_config(tmp_path / "full"), quiet=True)
    cfg = make_config(tmp_path / "resumed")
    resumed = resume_later(train(cfg, stop_at=cfg.total_updates // 2, quiet=True))
    a, b = load_checkpoint(full), load_checkpoint(resumed)
    assert_same(without_run_identity(a), without_run_identity(b))
    return a, b


@pytest.fixture(scope="module")
def resumed_run(tmp_path_factory):
    """The smoke run stopped after half its updates, then resumed to the end."""
    cfg = smoke_config(tmp_path_factory.mktemp("resumed"))
    half = train(cfg, stop_at=cfg.total_updates // 2, quiet=True)
    assert load_checkpoint(half)["update"] == cfg.total_updates // 2
    return resume_later(half)


def test_resumed_run_matches_the_uninterrupted_run_exactly(full_run, resumed_run):
    a, b = load_checkpoint(full_run), load_checkpoint(resumed_run)
    assert b["update"] == a["update"] and b["global_step"] == a["global_step"]
    assert len(a["pool"]) == len(b["pool"]) > 0
    # Everything, the torch RNG state, optimizer, games in progress and pool included.
    assert_same(without_run_identity(a), without_run_identity(b))
    assert torch.equal(a["rng"]["torch"], b["rng"]["torch"])


def test_full_checkpoints_are_plain_data_that_loads_with_weights_only(full_run):
    ckpt = torch.load(full_run, weights_only=True)
    assert ckpt["format"] == 2 and "slim" not in ckpt
    assert set(ckpt["env"]) >= {"hands", "scores", "key"} and ckpt["env"]["hands"].dtype == torch.uint64
    assert isinstance(ckpt["rng"]["actions"]["state"]["state"], int)


def assert_same_scalars(a, b):
    assert a.keys() == b.keys()
    for tag, values in a.items():
        np.testing.assert_array_equal(np.array(values), np.array(b[tag]), err_msg=tag)  # NaN equals NaN


def test_resumed_run_logs_the_scalars_of_the_uninterrupted_run(full_run, resumed_run):
    full, resumed = run_scalars(full_run.parent.parent), run_scalars(resumed_run.parent.parent)
    assert "losses/value_loss" in full and len(full["losses/value_loss"]) == PPOConfig.from_yaml(SMOKE).total_updates
    assert_same_scalars(full, resumed)


def test_a_run_killed_after_its_checkpoint_resumes_to_the_uninterrupted_scalars(tmp_path, full_run):
    cfg = smoke_config(tmp_path, eval_final=False)
    half = train(cfg, stop_at=2, quiet=True)
    kept = half.with_name("kept.pt")
    kept.write_bytes(half.read_bytes())
    resume_later(half, stop_at=3)  # logs update 3, then is "killed"
    resume_later(kept, seconds=200)  # resumes from update 2: logs 3 and 4 again
    full = {k: v for k, v in run_scalars(full_run.parent.parent).items() if not k.startswith("eval/")}
    assert_same_scalars(run_scalars(half.parent.parent), full)


def test_resuming_keeps_the_behaviour_cloning_scalars(tmp_path):
    # Behaviour cloning logs by examples seen (here 1024 per round), far past the resumed step (256).
    bc = {"imitation_updates": 2, "imitation_num_envs": 64, "eval_final": False}
    full = train(smoke_config(tmp_path / "full", **bc), quiet=True)
    half = train(smoke_config(tmp_path / "half", **bc), stop_at=2, quiet=True)
    resume_later(half)
    scalars = run_scalars(full.parent.parent)
    assert [step for step, _ in scalars["imitation/cross_entropy"]] == [1024, 2048]
    assert_same_scalars(run_scalars(half.parent.parent), scalars)


def test_cuda_without_a_gpu_fails_before_any_work(tmp_path, monkeypatch, full_run):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(ValueError, match="device 'cuda': no CUDA device is available"):
        train(smoke_config(tmp_path, device="cuda"), quiet=True)
    with pytest.raises(ValueError, match="device 'cuda': no CUDA device is available"):
        train(None, resume=full_run, device="cuda", quiet=True)
    assert not list(tmp_path.iterdir())  # no run directory, no log


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


def test_a_broken_training_config_names_the_file_and_the_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("num_envs: 8\nlearning_rate: [0.001\n")
    with pytest.raises(ValueError, match=r"bad\.yaml, line \d+: not valid YAML"):
        PPOConfig.from_yaml(bad)


def test_cli_train_runs_the_smoke_config(tmp_path):
    cmd = [sys.executable, "-m", "train.cli.app", "train", "--config", str(SMOKE), "--run-dir", str(tmp_path)]
    out = subprocess.run(cmd + ["--stop-at", "1"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "checkpoint:" in out.stdout
    (ckpt,) = tmp_path.glob("*/checkpoints/latest.pt")
    assert load_checkpoint(ckpt)["update"] == 1


def test_cli_resumes_a_run_from_outside_the_project_root(tmp_path):
    latest = train(smoke_config(tmp_path / "runs"), stop_at=1, quiet=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    resume = [sys.executable, "-m", "train.cli.app", "train", "--resume", str(latest), "--stop-at", "2"]
    out = subprocess.run(resume, cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert load_checkpoint(latest)["update"] == 2
    assert not list(elsewhere.iterdir())  # everything went on beside the checkpoint


@pytest.mark.parametrize("flag", ["--config", "--run-dir", "--init-from"])
def test_cli_refuses_options_a_resumed_run_would_ignore(tmp_path, flag):
    from typer.testing import CliRunner

    from train.cli.app import app

    result = CliRunner().invoke(app, ["train", "--resume", str(tmp_path / "latest.pt"), flag, str(SMOKE)])
    assert result.exit_code != 0
    message = str(result.exception) + result.output
    assert f"{flag} cannot be combined with --resume" in message
    assert not list(tmp_path.iterdir())


def test_evaluation_against_the_heuristic_reports_points_with_a_confidence_interval(full_run):
    from train.ppo.trainer import evaluate_against_heuristic

    result = evaluate_against_heuristic(NeuralAgent.from_checkpoint(full_run), "partnership", boards=8, seed=5)
    assert set(result) == {"points_per_hand", "heuristic_points_per_hand", "diff", "diff_ci95", "board_win_rate"}
    assert np.isfinite(result["diff"]) and result["diff_ci95"] > 0
    assert result["diff"] == pytest.approx(result["points_per_hand"] - result["heuristic_points_per_hand"])


def test_slim_checkpoint_plays_like_the_full_one_and_can_seed_a_run(tmp_path, full_run):
    from spades_env.envs.vector import VectorSpades
    from train.runs.checkpoint import export_slim

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


def test_an_evaluation_can_also_play_a_second_opponent(tmp_path, full_run):
    from train.ppo.trainer import evaluate

    policy = NeuralAgent.from_checkpoint(full_run).policy
    config = smoke_config(tmp_path, eval_deals=4, eval_search="heuristic", eval_search_deals=4)
    result = evaluate(policy, config)
    assert {"eval/diff", "eval_search/diff", "eval_search/diff_ci95", "eval_search/board_win_rate"} <= set(result)
    assert result["eval_search/diff"] == result["eval/diff"]  # the same opponent on the same deals
    other = evaluate(policy, dataclasses.replace(config, eval_search="random"))
    assert other["eval/diff"] == result["eval/diff"] and other["eval_search/diff"] != result["eval/diff"]
    assert "eval_search/diff" not in evaluate(policy, dataclasses.replace(config, eval_search=""))
    with pytest.raises(ValueError, match="eval_search='serch:fast': unknown bot 'serch'"):
        smoke_config(tmp_path, eval_search="serch:fast")
