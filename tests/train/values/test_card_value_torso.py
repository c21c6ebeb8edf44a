"""The card value head on a torso of its own (``card_value_torso``), and float16 exports that make room for it (the
torso recipes' smoke runs and resumes: ``tests/train/values/test_card_values.py``)."""

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.neural import NeuralAgent  # noqa: E402
from spades_env.engine import SpadesEngine  # noqa: E402
from spades_env.envs.vector import VectorSpades, sample_legal  # noqa: E402
from spades_env.observation import encoder_for  # noqa: E402
from spades_env.rules import resolve_rules  # noqa: E402
from train.runs.checkpoint import export_slim, load_checkpoint  # noqa: E402
from train.values.bid_values import BidLearner, deal_and_bid, play_card_positions  # noqa: E402
from train.values.bid_values_config import BidValuesConfig  # noqa: E402
from train.values.bid_values_network import load_network  # noqa: E402

RECIPES = ROOT / "configs" / "train"


def card_positions(engine, encoder, policy, n: int = 8):
    """Some card decisions of the learner's seat, played by ``policy``, and their observations."""
    learner = BidLearner(policy, engine, encoder, torch.device("cpu"))
    heuristic = HeuristicAgent()
    _, state = deal_and_bid(engine, np.arange(n), learner, heuristic, 0.0, np.random.default_rng(0))
    positions = play_card_positions(engine, state, learner, heuristic, 1.0, np.random.default_rng(0))
    return torch.as_tensor(positions.obs)


def test_a_new_value_torso_starts_as_a_copy_of_the_shared_one_so_the_loaded_head_values_as_before():
    recipe = BidValuesConfig.from_yaml(RECIPES / "cutthroat4_card_values_torso.yaml")
    assert recipe.init_from == "checkpoints/cutthroat4_card_values.pt" and recipe.card_value_torso
    engine = SpadesEngine(resolve_rules(recipe.rules))
    encoder = encoder_for(engine)
    policy = load_network(recipe, engine, encoder).eval()
    loaded = NeuralAgent.from_checkpoint(ROOT / recipe.init_from).policy
    assert policy.hyperparameters() == loaded.hyperparameters() | {"card_value_torso": True}
    assert "card_value_torso" not in loaded.hyperparameters()  # the networks before it keep their hyperparameters
    obs = card_positions(engine, encoder, loaded)
    with torch.no_grad():
        assert torch.equal(policy.card_values(obs), loaded.card_values(obs))
        assert torch.equal(policy.action_logits(obs), loaded.action_logits(obs))
        logits, values = policy.play_outputs(obs)
        assert torch.equal(values, loaded.card_values(obs)) and torch.equal(logits, loaded.action_logits(obs))
    policy.card_value_torso[0].weight.data.add_(0.5)  # its own weights: the shared torso and the card head keep theirs
    with torch.no_grad():
        assert not torch.equal(policy.card_values(obs), loaded.card_values(obs))
        assert torch.equal(policy.action_logits(obs), loaded.action_logits(obs))


def test_a_value_torso_needs_a_value_head():
    with pytest.raises(ValueError, match="card_value_torso needs card_value_hidden > 0"):
        BidValuesConfig(card_value_torso=True, card_value_hidden=0)


def test_a_half_export_stores_float16_weights_and_plays_them_rounded_as_float32(tmp_path):
    src = ROOT / "checkpoints" / "cutthroat4_card_values.pt"
    out = export_slim(src, tmp_path / "half.pt", play_only=True, half=True)
    stored = load_checkpoint(out)["model"]
    assert all(v.dtype == torch.float16 for v in stored.values() if v.is_floating_point())
    assert out.stat().st_size < 0.55 * src.stat().st_size
    played, full = NeuralAgent.from_checkpoint(out), NeuralAgent.from_checkpoint(src)
    for (name, p), (_, q) in zip(played.policy.named_parameters(), full.policy.named_parameters(), strict=True):
        assert p.dtype == torch.float32 and torch.equal(p, q.half().float()), name
    env = VectorSpades("cutthroat-4", num_envs=64, seed=4)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    same = total = 0
    for _ in range(20):  # bids and cards: rounding moves at most a rare close call
        a, b = played.act(obs, info["action_mask"]), full.act(obs, info["action_mask"])
        same, total = same + int((a == b).sum()), total + len(a)
        obs, _, _, _, info = env.step(sample_legal(info["action_mask"], rng))
    assert same >= 0.97 * total
