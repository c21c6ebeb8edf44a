"""The int8 network (agents.neural_int8, bot option precision=int8): exact integer products, per-row rounding,
the float network left alone, and a bot that plays the float one's actions but for near ties."""

import copy

import numpy as np
import pytest
import torch
from torch import nn

from agents import make_agent
from agents.neural import NeuralAgent, SpadesPolicy
from agents.neural_int8 import MIN_INT8_WIDTH, Int8Linear, int8_copy, parse_precision, quantize_rows
from spades_env import VectorSpades
from spades_env.envs.vector import sample_legal


def _dequantized_weight(layer: Int8Linear) -> torch.Tensor:
    """(N, n) the float weights the int8 product multiplies by (each channel's int8 row times its scale)."""
    return layer.weight_t.t().float() * layer.weight_scale[:, None]


def test_int8_linear_is_the_exact_product_of_the_rounded_inputs_and_weights():
    torch.manual_seed(0)
    linear = nn.Linear(40, 160)
    layer = Int8Linear(linear)
    x = torch.randn(33, 40) * torch.rand(33, 1) * 5
    xq, scale = quantize_rows(x)
    assert xq.dtype == torch.int8 and int(xq.abs().max()) == 127  # every row uses the whole int8 range
    expected = (xq.float() * scale) @ _dequantized_weight(layer).t() + linear.bias.detach()
    got = layer(x)
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
    plain = linear(x).detach()
    assert (got - plain).abs().max() < 0.03 * plain.abs().max()  # and close to the float layer
    assert torch.equal(quantize_rows(torch.zeros(2, 40))[0], torch.zeros(2, 40, dtype=torch.int8))  # no 0 / 0


def test_int8_linear_takes_binary_inputs_exactly_and_the_real_ones_in_float():
    torch.manual_seed(1)
    linear = nn.Linear(30, 128)
    layer = Int8Linear(linear, binary_inputs=26)
    x = torch.cat([(torch.rand(17, 26) < 0.3).float(), torch.rand(17, 4) * 3], dim=1)
    weight = linear.weight.detach()
    expected = x[:, :26] @ _dequantized_weight(layer).t() + x[:, 26:] @ weight[:, 26:].t() + linear.bias.detach()
    torch.testing.assert_close(layer(x), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"binary_inputs must be in \[0, 30\]"):
        Int8Linear(linear, binary_inputs=31)


def test_a_decision_gets_the_same_outputs_in_any_batch():
    torch.manual_seed(2)
    network = int8_copy(nn.Sequential(nn.Linear(50, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU()))
    x = torch.randn(64, 50)
    with torch.no_grad():
        whole = network(x).clone()
        alone = torch.cat([network(x[i : i + 1]).clone() for i in range(len(x))])
        again = network(x)
    assert torch.equal(whole, alone)  # each row rounded on its own scale: the batch never matters
    assert torch.equal(whole, again)  # the reused scratch buffers change nothing


def test_int8_copy_swaps_the_wide_layers_of_a_copy_and_leaves_the_network_alone():
    policy = SpadesPolicy(40, 20, 12, hidden=256, depth=2, card_value_hidden=128, card_value_torso=True)
    before = copy.deepcopy(policy.state_dict())
    quantized = int8_copy(policy, binary_inputs=32)
    assert all(torch.equal(before[k], v) for k, v in policy.state_dict().items())
    assert not any(isinstance(m, Int8Linear) for m in policy.modules())
    swapped = [m for m in quantized.modules() if isinstance(m, Int8Linear)]
    assert swapped and all(m.out_features >= MIN_INT8_WIDTH for m in swapped)
    narrow = [m for m in quantized.modules() if isinstance(m, nn.Linear)]
    assert narrow and all(m.out_features < MIN_INT8_WIDTH for m in narrow)  # card logits, values: float32
    readers = [m for m in swapped if m.in_features == 40]
    assert len(readers) == 2 and all(m.binary_inputs == 32 for m in readers)  # both torsos read the observation
    assert all(m.binary_inputs == 0 for m in swapped if m.in_features != 40)


def test_parse_precision_names_the_choices():
    assert parse_precision("", "neural") == parse_precision(None, "neural") == "float32"
    assert parse_precision(" INT8 ", "neural") == "int8"
    with pytest.raises(ValueError, match=r"bot 'learned': option 'precision' must be one of float32, int8, got 'fp8'"):
        make_agent("learned:precision=fp8")


def _positions(rules: str, games: int = 512, steps: int = 30):
    env = VectorSpades(rules, num_envs=games, seed=3)
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    for _ in range(steps):
        obs, _, _, _, info = env.step(sample_legal(info["action_mask"], rng))
    return env, obs, info["action_mask"]


@pytest.mark.parametrize("rules", ["partnership", "cutthroat-4", "hearts"])
def test_the_int8_learned_bot_plays_legal_actions_mostly_the_float_ones(rules):
    env, obs, masks = _positions(rules)
    plain, fast = make_agent("learned", seed=0), make_agent("learned:precision=int8", seed=0)
    for agent in (plain, fast):
        agent.check_supports(env.engine)
    assert isinstance(fast.bound, NeuralAgent) and fast.bound.precision == "int8"
    assert any(isinstance(m, Int8Linear) for m in fast.bound.policy.modules())
    assert not any(isinstance(m, Int8Linear) for m in plain.bound.policy.modules())
    reader = fast.bound.policy.torso[0]
    assert 0 < reader.binary_inputs < reader.in_features  # the observation's 0/1 part is exact
    a, b = plain.act(obs, masks), fast.act(obs, masks)
    assert masks[np.arange(len(b)), b].all()
    assert 0.95 <= (a == b).mean() < 1.0  # rounding flips only near ties (all the same: no int8 at all)
    assert np.array_equal(b, copy.deepcopy(fast).act(obs, masks))  # a copy (the web app's templates) plays the same
    one = np.concatenate([fast.act(obs[i : i + 1], masks[i : i + 1]) for i in range(0, len(b), 37)])
    assert np.array_equal(one, b[::37])  # a decision alone plays as in the batch
