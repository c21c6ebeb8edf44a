"""Behaviour cloning of HeuristicAgent: the collected examples, the loss going down, the PPO warm start."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.neural import SpadesPolicy  # noqa: E402
from spades_env.engine import SpadesEngine  # noqa: E402
from train.ppo.imitation import HeuristicStream, ImitationConfig, behaviour_clone  # noqa: E402

SMOKE = ROOT / "configs" / "train" / "smoke.yaml"


def test_heuristic_stream_gives_legal_actions_and_hand_returns():
    stream = HeuristicStream("partnership", num_envs=4, seed=2, episode="hand")
    batch = stream.collect(70, reward_scale=0.01)  # more than one hand (56 decisions) per game
    assert batch["mask"][np.arange(len(batch["action"])), batch["action"]].all()
    assert batch["has_ret"][: 56 * 4].all() and not batch["has_ret"].all()
    # In the first hand (the first 56 decisions at least) partners share one return, opponents another.
    side = stream.env.engine.side_of_seat[batch["seat"].reshape(70, 4)[:56]]
    ret = batch["ret"].reshape(70, 4)[:56]
    for s in (0, 1):
        per_game = np.where(side == s, ret, np.nan)
        np.testing.assert_allclose(np.nanmin(per_game, axis=0), np.nanmax(per_game, axis=0))
    assert np.all(np.abs(ret) <= 5)


def test_behaviour_cloning_lowers_the_cross_entropy():
    engine = SpadesEngine("partnership")
    torch.manual_seed(0)
    stream = HeuristicStream("partnership", 8, seed=1)
    policy = SpadesPolicy.for_engine(engine, stream.obs.shape[1], hidden=32, depth=1)
    first = behaviour_clone(policy, ImitationConfig(updates=1, num_envs=8, num_steps=32, minibatch=64, epochs=1))
    later = behaviour_clone(policy, ImitationConfig(updates=4, num_envs=8, num_steps=32, minibatch=64, epochs=2))
    assert later["cross_entropy"] < first["cross_entropy"]
    assert 0 <= later["accuracy"] <= 1


def test_ppo_with_imitation_updates_logs_the_warm_start(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from train.ppo.trainer import PPOConfig, train

    cfg = dataclasses.replace(
        PPOConfig.from_yaml(SMOKE), run_dir=str(tmp_path), imitation_updates=2, total_updates=1, eval_final=False
    )
    path = train(cfg, quiet=True)
    events = EventAccumulator(str(path.parent.parent / "imitation"))  # out of reach of a resume's purge
    events.Reload()
    assert "imitation/cross_entropy" in events.Tags()["scalars"]
    with pytest.raises(ValueError, match="imitation_updates"):
        PPOConfig(imitation_updates=-1)


def test_heldout_agreement_is_reported_per_phase():
    engine = SpadesEngine("partnership")
    torch.manual_seed(0)
    policy = SpadesPolicy.for_engine(engine, HeuristicStream("partnership", 1, seed=1).obs.shape[1], hidden=32, depth=1)
    cfg = ImitationConfig(updates=2, num_envs=8, num_steps=32, minibatch=64, epochs=1, heldout=128, heldout_every=1)
    stats = behaviour_clone(policy, cfg)
    for key in ("heldout_accuracy", "heldout_bid_accuracy", "heldout_play_accuracy"):
        assert 0 <= stats[key] <= 1
