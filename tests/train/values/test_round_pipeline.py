"""``pipeline``: a bid-values run collects its next round in a thread while the update trains
(``train.values.bid_values_round``)."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.heuristic import HeuristicAgent  # noqa: E402
from spades_env.engine import SpadesEngine  # noqa: E402
from spades_env.observation import encoder_for  # noqa: E402
from spades_env.rules import resolve_rules  # noqa: E402
from tests.run_logs import run_scalars  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402
from train.values.bid_values import BidLearner  # noqa: E402
from train.values.bid_values_config import BidValuesConfig  # noqa: E402
from train.values.bid_values_network import load_network  # noqa: E402
from train.values.bid_values_round import RoundCollector  # noqa: E402
from train.values.bid_values_train import train  # noqa: E402

RECIPES = ROOT / "configs" / "train"


def small(name: str, **changes) -> BidValuesConfig:
    recipe = BidValuesConfig.from_yaml(RECIPES / f"{name}.yaml")
    settings = {"rounds": 3, "deals": 16, "eval_every": 0, "eval_final": False, "pipeline": True} | changes
    return dataclasses.replace(recipe, **settings)


@pytest.mark.parametrize("name", ["card_values_torso", "bid_values_nil_cards"])
def test_a_pipelined_run_stopped_and_resumed_equals_one_never_stopped(tmp_path, name):
    config = small(name)
    full = load_checkpoint(train(dataclasses.replace(config, run_dir=str(tmp_path / "full")), quiet=True))
    assert full["update"] == 3 and full["pending"] is None  # nothing collected past the last round
    half_path = train(dataclasses.replace(config, run_dir=str(tmp_path / "half")), stop_at=1, quiet=True)
    half = load_checkpoint(half_path)
    assert half["pending"] is not None  # round 2, collected during round 1's update, kept for the resume
    resumed = load_checkpoint(train(resume=half_path, quiet=True))
    for key, value in full["model"].items():
        assert torch.equal(resumed["model"][key], value), key
    scalars = run_scalars(next((tmp_path / "full").iterdir()))
    assert {"time/round_s", "time/wait_collect_s", "time/update_s"} <= set(scalars)


def test_each_round_is_played_by_the_network_of_one_update_before(tmp_path):
    """The pipelined run's second round holds the positions a collector gives with the starting network; the run
    without the pipeline plays its second round with the network after the first update."""
    config = small("card_values_torso", rounds=2)
    engine = SpadesEngine(resolve_rules(config.rules))
    encoder = encoder_for(engine)
    rngs = {"explore": np.random.default_rng([config.seed, 1]), "cards": np.random.default_rng([config.seed, 4])}
    collector = RoundCollector(config, engine, HeuristicAgent(seed=config.seed), rngs)
    network = load_network(config, engine, encoder).eval()
    start = BidLearner(network, engine, encoder, torch.device("cpu"), config.card_margin, config.value_scale)
    collector.collect(0, start)
    second = collector.collect(1, start)
    half = load_checkpoint(train(dataclasses.replace(config, run_dir=str(tmp_path / "p")), stop_at=1, quiet=True))
    pending = half["pending"]["cards"]
    assert np.array_equal(pending["played"].numpy(), second.cards.played)
    assert np.array_equal(pending["values"].numpy(), second.cards.values)
    plain = load_checkpoint(
        train(dataclasses.replace(config, pipeline=False, run_dir=str(tmp_path / "s")), stop_at=1, quiet=True)
    )
    assert plain["pending"] is None
