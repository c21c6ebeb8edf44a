"""The Hearts recipes run end to end on tiny sizes: ``configs/train/hearts.yaml`` clones the heuristic (the pass
included), fine-tunes with PPO, evaluates and keeps the network that takes the fewest points; ``hearts_finetune.yaml``
goes on from it; the committed ``checkpoints/hearts_ppo.pt`` plays Hearts."""

import dataclasses
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from spades_env.rules import resolve_rules  # noqa: E402
from train.checkpoint import load_checkpoint  # noqa: E402
from train.ppo import PPOConfig, train  # noqa: E402
from train.ppo_eval import eval_gain  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HEARTS = ROOT / "configs" / "train" / "hearts.yaml"
HEARTS_FINETUNE = ROOT / "configs" / "train" / "hearts_finetune.yaml"
HEARTS_CHECKPOINT = ROOT / "checkpoints" / "hearts_ppo.pt"


def tiny(config: PPOConfig, tmp_path: Path) -> PPOConfig:
    """``config`` with its sizes cut to seconds: a tiny network, a few games, two rounds and two updates.
    80 decisions per game finish one Hearts hand (12 passed cards + 52 plays), so the value head has targets."""
    return dataclasses.replace(
        config,
        run_dir=str(tmp_path),
        num_envs=4,
        num_steps=16,
        hidden=32,
        depth=1,
        imitation_updates=2,
        imitation_num_envs=4,
        imitation_num_steps=80,
        imitation_minibatch=64,
        imitation_heldout=64,
        total_updates=2,
        eval_every=1,
        eval_deals=4,
        checkpoint_every=1,
    )


@pytest.fixture(scope="module")
def hearts_run(tmp_path_factory):
    """One tiny run of the Hearts recipe: its config, its run directory and its TensorBoard scalars."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = tiny(PPOConfig.from_yaml(HEARTS), tmp_path_factory.mktemp("hearts"))
    run = train(config, quiet=True).parent.parent
    scalars = {}
    for logdir in (run, run / "imitation"):
        events = EventAccumulator(str(logdir))
        events.Reload()
        scalars |= {tag: [e.value for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}
    return config, run, scalars


def test_hearts_recipe_smoke(hearts_run):
    config, run, scalars = hearts_run
    assert config.rules == "hearts" and config.imitation_updates > 0 and config.heuristic_prob == 1.0
    assert config.keep_best and config.eval_every > 0
    # Behaviour cloning learned the heuristic's passes and plays, and the hand returns (minus the points).
    assert all(0 <= a <= 1 for a in scalars["imitation/heldout_accuracy"])
    assert scalars["imitation/value_loss"][0] > 0
    assert len(scalars["losses/value_loss"]) == config.total_updates
    # One evaluation after behaviour cloning and one per update, of Hearts points (0..26 a seat and hand).
    assert len(scalars["eval/diff"]) == config.total_updates + 1
    assert all(0 <= p <= 26 for p in scalars["eval/points_per_hand"])
    latest = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert latest["rules"]["name"] == "hearts" and latest["update"] == config.total_updates


def test_keep_best_keeps_the_network_with_the_fewest_hearts_points(hearts_run):
    _, run, scalars = hearts_run
    diffs = scalars["eval/diff"]
    assert len(set(diffs)) > 1  # the evaluations differ, so the highest diff is not the best one
    best = load_checkpoint(run / "checkpoints" / "best.pt")
    assert best["best_diff"] == pytest.approx(min(diffs))
    assert best["update"] == diffs.index(min(diffs))  # evaluation k follows update k (0: behaviour cloning)


def test_hearts_finetune_recipe_smoke(hearts_run, tmp_path):
    _, run, _ = hearts_run
    start = str(run / "checkpoints" / "best.pt")
    config = dataclasses.replace(
        tiny(PPOConfig.from_yaml(HEARTS_FINETUNE), tmp_path), imitation_updates=0, init_from=start
    )
    assert config.rules == "hearts" and config.learning_rate > PPOConfig.from_yaml(HEARTS).learning_rate
    latest = load_checkpoint(train(config, quiet=True))
    assert latest["update"] == config.total_updates and latest["config"]["init_from"] == start
    assert (Path(config.run_dir) / latest["run_name"] / "checkpoints" / "best.pt").exists()


def test_hearts_checkpoint_is_slim_and_takes_fewer_points_than_random():
    from agents import make_agent
    from spades_env.engine import SpadesEngine
    from train.tournament import TournamentConfig, run_tournament

    assert HEARTS_CHECKPOINT.stat().st_size <= 5 * 2**20
    spec = f"neural:path={HEARTS_CHECKPOINT}"
    agent = make_agent(spec, seed=0)
    assert agent.supports(SpadesEngine("hearts")) and not agent.supports(SpadesEngine("partnership"))
    config = TournamentConfig(bots=(spec, "random"), rules="hearts", boards=8, chunk=8)
    pair = run_tournament(config, None, progress=False)["pairs"][0]
    assert pair["diff"] < 0  # Hearts points are penalties: fewer than random play takes


def test_eval_gain_is_minus_the_diff_in_hearts_only():
    assert eval_gain(2.5, resolve_rules("hearts")) == -2.5
    assert eval_gain(2.5, resolve_rules("partnership")) == 2.5
    assert eval_gain(-float("inf"), resolve_rules("hearts")) == float("inf")
