"""The all-seeing critic (``critic: perfect``, train/ppo/critic.py): what each network sees, checkpoints, resume."""

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.neural import NeuralAgent, SpadesPolicy  # noqa: E402
from spades_env.envs.vector import VectorSpades  # noqa: E402
from tests.train.ppo.test_training import SMOKE, full_and_resumed  # noqa: E402
from train.ppo.critic import ActorCritic, PerfectCritic, policy_columns  # noqa: E402
from train.ppo.trainer import PPOConfig  # noqa: E402


def test_the_critic_sees_every_hand_and_the_policy_only_its_own():
    seen, plain = (VectorSpades("partnership", 4, seed=3, perfect_information=p) for p in (True, False))
    obs_all, info = seen.reset()
    obs_own, _ = plain.reset()
    columns = policy_columns(seen.encoder)
    policy = SpadesPolicy.for_engine(seen.engine, len(columns), hidden=16, depth=1)
    model = ActorCritic(policy, PerfectCritic(seen.encoder.size + ActorCritic.EXTRA_COLUMNS, 16, 1), columns)
    bots = np.array([True, False, True, False])  # games whose other side is a bot
    inputs = {}
    policy.torso.register_forward_hook(lambda m, args, out: inputs.__setitem__("policy", args[0]))
    model.critic.net.register_forward_hook(lambda m, args, out: inputs.__setitem__("critic", args[0]))
    for _ in range(30):  # bids and card play
        model(torch.as_tensor(model.rows(obs_all, bots)))
        np.testing.assert_array_equal(inputs["policy"].numpy(), obs_own)  # exactly the seat's own observation
        assert inputs["policy"].shape[1] == plain.encoder.size < seen.encoder.size == inputs["critic"].shape[1] - 1
        assert inputs["critic"][:, -1].tolist() == bots.tolist()  # the critic alone knows who the opponents are
        hands = seen.encoder.view(inputs["critic"].numpy(), "all_hands")  # (B, N, C), relative seats
        assert (plain.encoder.view(obs_own, "hand") <= hands[:, 0]).all()  # (hidden before a blind-nil choice)
        assert (hands[:, 1:].sum((1, 2)) >= 3).all()  # the other seats' cards, which no policy input holds
        actions = np.argmax(info["action_mask"], 1)
        obs_all, _, _, _, info = seen.step(actions)
        obs_own, *_ = plain.step(actions)


def smoke(tmp_path, **changes):
    return dataclasses.replace(PPOConfig.from_yaml(SMOKE), run_dir=str(tmp_path), critic="perfect", **changes)


def test_a_perfect_critic_run_round_trips_resumes_and_its_agent_plays(tmp_path):
    a, _ = full_and_resumed(smoke, tmp_path)
    plain = VectorSpades("partnership", 4, seed=5)
    assert a["critic_hparams"]["obs_dim"] == plain.encoder.size + 4 * 52 + 1  # every seat's hand, the opponents
    assert a["model_hparams"]["obs_dim"] == plain.encoder.size
    assert len(a["optimizer"]["param_groups"]) == 2
    fresh = PerfectCritic(**a["critic_hparams"])
    fresh.load_state_dict(a["critic"])  # the critic rebuilds from its checkpoint keys
    full = next((tmp_path / "full").rglob("latest.pt"))
    agent = NeuralAgent.from_checkpoint(full)  # the played part loads as neural:path= does
    obs, info = plain.reset()
    for _ in range(60):
        actions = agent.act(obs, info["action_mask"], plain.context())
        assert info["action_mask"][np.arange(4), actions].all()
        obs, _, _, _, info = plain.step(actions)


def test_the_critic_setting_is_checked():
    with pytest.raises(ValueError, match=r"critic='oracle' \(one of \('shared', 'perfect'\)\)"):
        PPOConfig(critic="oracle")
