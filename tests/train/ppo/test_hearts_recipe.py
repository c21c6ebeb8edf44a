"""The Hearts recipe is one run, ``configs/train/hearts.yaml``: it clones the heuristic (the pass included), goes
straight on with PPO at the fine-tuning settings, evaluates and keeps the network that takes the fewest points;
the committed ``checkpoints/hearts_ppo.pt`` is that run's network and plays Hearts."""

import dataclasses
from pathlib import Path

import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from spades_env.rules import resolve_rules  # noqa: E402
from tests.checkpoint_compare import committed_checkpoint  # noqa: E402
from train.evaluation.network_eval import eval_gain  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402

RECIPES = ROOT / "configs" / "train"
HEARTS = RECIPES / "hearts.yaml"
HEARTS_CHECKPOINT = ROOT / "checkpoints" / "hearts_ppo.pt"

#: Sizes cut to seconds: a tiny network, a few games, two rounds of cloning and two PPO updates, evaluated after
#: each. 80 decisions per game finish one Hearts hand (12 passed cards + 52 plays), so the value head has targets.
TINY = dict(
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


def tiny(recipe: Path, tmp_path: Path, **overrides) -> PPOConfig:
    """The recipe at ``recipe`` with ``TINY``'s sizes (and ``overrides``), writing its run under ``tmp_path``."""
    return dataclasses.replace(PPOConfig.from_yaml(recipe), run_dir=str(tmp_path), **(TINY | overrides))


@pytest.fixture(scope="module")
def hearts_run(tmp_path_factory):
    """One tiny run of the Hearts recipe: its config, its run directory and its TensorBoard scalars."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = tiny(HEARTS, tmp_path_factory.mktemp("hearts"))
    run = train(config, quiet=True).parent.parent
    scalars = {}
    for logdir in (run, run / "imitation"):
        events = EventAccumulator(str(logdir))
        events.Reload()
        scalars |= {tag: [e.value for e in events.Scalars(tag)] for tag in events.Tags()["scalars"]}
    return config, run, scalars


def test_hearts_has_one_recipe_cloning_then_ppo_at_the_fine_tuning_settings():
    # One PPO recipe; hearts_expert_iteration.yaml goes on from its network
    # (tests/train/expert_iteration/test_hearts_expert_iteration.py), hearts_card_values.yaml from that one's,
    # hearts_card_values_torso.yaml from that, the iterated ones from that (tests/train/values/test_card_values.py),
    # each from the one before.
    wanted = [
        "hearts.yaml", "hearts_card_values.yaml", "hearts_card_values_iterated.yaml",
        "hearts_card_values_iterated2.yaml", "hearts_card_values_iterated3.yaml",
        "hearts_card_values_torso.yaml", "hearts_expert_iteration.yaml",
    ]  # fmt: skip
    assert sorted(p.name for p in RECIPES.glob("hearts*.yaml")) == wanted
    recipe = PPOConfig.from_yaml(HEARTS)
    assert recipe.rules == "hearts" and recipe.init_from is None
    assert recipe.imitation_updates > 0 and recipe.total_updates > 0 and recipe.heuristic_prob == 1.0
    # The settings that moved the cloned policy (lr 5e-5 moved it by a KL of ~0.0005 an update).
    assert recipe.learning_rate == 2.5e-4 and recipe.anneal_lr
    assert (recipe.ent_coef, recipe.target_kl) == (0.003, 0.02)
    assert recipe.keep_best and recipe.eval_every > 0


def test_hearts_recipe_smoke(hearts_run):
    config, run, scalars = hearts_run
    # Behaviour cloning learned the heuristic's passes and plays, and the hand returns (minus the points).
    assert all(0 <= a <= 1 for a in scalars["imitation/heldout_accuracy"])
    assert scalars["imitation/value_loss"][0] > 0
    # Then PPO in the same run, from the recipe's own learning rate (not cloning's), annealed.
    assert len(scalars["losses/value_loss"]) == config.total_updates
    lrs = scalars["charts/learning_rate"]
    assert lrs[0] == pytest.approx(config.learning_rate) and lrs[-1] < lrs[0]
    # One evaluation after behaviour cloning and one per update, of Hearts points (0..26 a seat and hand).
    assert len(scalars["eval/diff"]) == config.total_updates + 1
    assert all(0 <= p <= 26 for p in scalars["eval/points_per_hand"])
    latest = load_checkpoint(run / "checkpoints" / "latest.pt")
    assert latest["rules"]["name"] == "hearts" and latest["update"] == config.total_updates
    assert latest["config"]["init_from"] is None


def test_keep_best_keeps_the_network_with_the_fewest_hearts_points(hearts_run):
    _, run, scalars = hearts_run
    diffs = scalars["eval/diff"]
    assert len(set(diffs)) > 1  # the evaluations differ, so the highest diff is not the best one
    best = load_checkpoint(run / "checkpoints" / "best.pt")
    assert best["best_diff"] == pytest.approx(min(diffs))
    assert best["update"] == diffs.index(min(diffs))  # evaluation k follows update k (0: behaviour cloning)


def test_hearts_checkpoint_is_the_recipes_network_slim_and_takes_fewer_points_than_random():
    from agents import make_agent
    from spades_env.engine import SpadesEngine
    from train.evaluation.tournament import TournamentConfig, run_tournament

    keys = ("imitation_updates", "total_updates", "learning_rate", "ent_coef", "target_kl", "init_from")
    committed_checkpoint(HEARTS_CHECKPOINT, PPOConfig.from_yaml(HEARTS), "hearts", keys)
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
