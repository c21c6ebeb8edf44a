"""``configs/train/hearts_expert_iteration.yaml`` (expert iteration on Hearts from ``checkpoints/hearts_ppo.pt``)
runs end to end on tiny sizes: the search teacher values the card play, the passes it does not value keep the
starting network's probabilities, and the run evaluates in Hearts points and keeps its best network; the committed
``checkpoints/hearts_expit.pt`` is that recipe's network."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.neural import NeuralAgent  # noqa: E402
from tests.checkpoint_compare import committed_checkpoint  # noqa: E402
from train.expert_iteration.config import ExpertIterationConfig  # noqa: E402
from train.expert_iteration.trainer import train  # noqa: E402
from train.ppo.core import MaskedCategorical  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402

RECIPE = ROOT / "configs" / "train" / "hearts_expert_iteration.yaml"
PASSES = 12  # decisions before the first card of hand 1: four seats pass 3 cards each, one at a time [RULES 7]

#: Seconds: a few games of one Hearts hand and a little more (80 decisions: 12 passes, 52 cards, the next hand's
#: first passes), a 2-layout teacher, small chunks and minibatches, an evaluation after each round.
TINY = dict(
    rounds=1,
    num_envs=4,
    num_steps=80,
    teacher="search:samples=2,oversample=1",
    label_chunk=64,
    minibatch=64,
    eval_every=1,
    eval_deals=4,
)


@pytest.fixture(scope="module")
def hearts_expit_run(tmp_path_factory):
    recipe = ExpertIterationConfig.from_yaml(RECIPE)
    config = dataclasses.replace(recipe, run_dir=str(tmp_path_factory.mktemp("hearts_expit")), **TINY)
    return config, train(config, quiet=True)


def test_the_recipe_distils_search_into_the_committed_hearts_network():
    recipe = ExpertIterationConfig.from_yaml(RECIPE)
    assert recipe.algorithm == "expert_iteration" and recipe.rules == "hearts"
    assert recipe.init_from == "checkpoints/hearts_ppo.pt" and (ROOT / recipe.init_from).exists()
    assert recipe.teacher.split(":")[0] == "search" and recipe.heuristic_rounds == 0
    # The passes search leaves unvalued keep the starting network's probabilities; Hearts values are small.
    assert (recipe.unvalued, recipe.anchor_to) == ("behaviour", "initial") and recipe.temperature < 2.0
    assert recipe.keep_best and recipe.eval_every > 0 and recipe.reward_scale == 0.04


def test_a_tiny_hearts_run_keeps_the_starting_passes_and_learns_the_teachers_cards(hearts_expit_run):
    config, latest = hearts_expit_run
    ckpt = load_checkpoint(latest)
    assert ckpt["rules"]["name"] == "hearts" and ckpt["update"] == config.rounds
    first = {
        k: np.asarray(v) for k, v in ckpt["replay"][0].items()
    }  # round 1: every game's first 80 decisions, step-major (row t * B + b)
    b = config.num_envs
    passes = slice(0, PASSES * b)
    assert first["mask"][:b].sum(axis=1).tolist() == [13] * b  # any of the 13 cards may be passed
    assert not first["valued"][passes].any() and first["valued"][PASSES * b :].any()
    start = NeuralAgent.from_checkpoint(ROOT / config.init_from)

    def start_probs(rows: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = start.policy(torch.as_tensor(first["obs"][rows]))
        return MaskedCategorical(logits, torch.as_tensor(first["mask"][rows])).probs.numpy()

    np.testing.assert_allclose(first["target"][passes], start_probs(passes), atol=1e-5)
    # The valued cards' targets are the teacher's softmax mixed half and half with the start: they move.
    valued = np.flatnonzero(first["valued"])
    assert np.abs(first["target"][valued] - start_probs(valued)).max() > 0.05


def test_a_tiny_hearts_run_evaluates_in_hearts_points_and_keeps_the_fewest(hearts_expit_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config, latest = hearts_expit_run
    events = EventAccumulator(str(latest.parent.parent))
    events.Reload()
    diffs = [e.value for e in events.Scalars("eval/diff")]
    assert len(diffs) == config.rounds + 1  # eval_initial, then one per round
    assert all(0 <= e.value <= 26 for e in events.Scalars("eval/points_per_hand"))
    best = load_checkpoint(latest.parent / "best.pt")
    assert best["best_diff"] == pytest.approx(min(diffs))  # Hearts: the fewest points is the best
    assert best["update"] == diffs.index(min(diffs))


def test_the_committed_hearts_expit_checkpoint_is_the_recipes_network_and_plays_hearts_only():
    from agents import make_agent
    from spades_env.engine import SpadesEngine
    from train.evaluation.tournament import TournamentConfig, run_tournament

    path = ROOT / "checkpoints" / "hearts_expit.pt"
    recipe = ExpertIterationConfig.from_yaml(RECIPE)
    keys = ("algorithm", "teacher", "temperature", "anchor", "anchor_to", "unvalued", "init_from", "rounds")
    assert committed_checkpoint(path, recipe, "hearts", keys)["update"] <= recipe.rounds
    spec = f"neural:path={path}"
    agent = make_agent(spec, seed=0)
    assert agent.supports(SpadesEngine("hearts")) and not agent.supports(SpadesEngine("partnership"))
    config = TournamentConfig(bots=(spec, "random"), rules="hearts", boards=8, chunk=8)
    assert run_tournament(config, None, progress=False)["pairs"][0]["diff"] < 0  # fewer penalty points than random
