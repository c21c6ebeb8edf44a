"""PPO's ``bid_ent_coef``: an entropy weight of the bidding decisions apart from the card play's ``ent_coef``
(``train.ppo.update.ppo_update``, ``configs/train/selfplay_paired.yaml``)."""

import dataclasses

import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

import train.ppo.update as ppo_update  # noqa: E402
from train.ppo.core import MaskedCategorical  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402
from train.ppo.update import bid_entropy_bonus  # noqa: E402

SMOKE = ROOT / "configs" / "train" / "smoke.yaml"


def test_the_bonus_weights_the_bids_entropy_by_the_extra_coefficient_over_the_minibatch():
    entropy = torch.tensor([1.0, 2.0, 0.5, 3.0])
    bids = torch.tensor([True, False, True, False])
    assert bid_entropy_bonus(entropy, bids, 0.01, 0.11).item() == pytest.approx(0.1 * 1.5 / 4)
    assert bid_entropy_bonus(entropy, bids, 0.01, None).item() == 0.0
    assert bid_entropy_bonus(entropy, torch.zeros(4, dtype=torch.bool), 0.01, 0.5).item() == 0.0
    assert bid_entropy_bonus(entropy, bids, 0.02, 0.0).item() == pytest.approx(-0.02 * 1.5 / 4)  # bids: no bonus


def test_the_bonus_keeps_a_bid_policy_from_collapsing_on_the_action_its_advantages_favour():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(64, 8, generator=gen)
    bids = torch.arange(64) % 2 == 0  # even rows bid (actions 4-7), odd rows play a card (actions 0-3)
    mask = torch.zeros(64, 8, dtype=torch.bool)
    mask[bids, 4:], mask[~bids, :4] = True, True
    actions = torch.where(bids, 4, 0)  # the action every decision took, with a positive advantage

    def trained_entropy(bid_ent_coef):
        torch.manual_seed(1)
        net = torch.nn.Linear(8, 8)
        opt = torch.optim.Adam(net.parameters(), lr=0.05)
        for _ in range(200):
            dist = MaskedCategorical(net(x), mask)
            entropy = dist.entropy()
            loss = -dist.log_prob(actions).mean() - 0.01 * entropy.mean()
            loss = loss - bid_entropy_bonus(entropy, bids, 0.01, bid_ent_coef)
            opt.zero_grad()
            loss.backward()
            opt.step()
        entropy = MaskedCategorical(net(x), mask).entropy().detach()
        return entropy[bids].mean().item(), entropy[~bids].mean().item()

    (plain_bids, plain_cards), (kept_bids, kept_cards) = trained_entropy(None), trained_entropy(1.0)
    assert plain_bids < 0.15 and kept_bids > 0.5  # max: log 4 = 1.39
    assert plain_cards < 0.15 and kept_cards < 0.15  # the cards' weight is ent_coef either way


def test_every_minibatch_of_a_run_adds_the_bonus_of_its_config(tmp_path, monkeypatch):
    calls, real = [], ppo_update.bid_entropy_bonus

    def spy(entropy, bids, ent_coef, bid_ent_coef):
        calls.append((ent_coef, bid_ent_coef, int(bids.sum())))
        return real(entropy, bids, ent_coef, bid_ent_coef)

    monkeypatch.setattr(ppo_update, "bid_entropy_bonus", spy)
    config = dataclasses.replace(
        PPOConfig.from_yaml(SMOKE), run_dir=str(tmp_path), total_updates=2, eval_final=False, bid_ent_coef=0.3
    )
    train(config, quiet=True)
    assert len(calls) == 2 * config.update_epochs * config.num_minibatches
    assert {c[:2] for c in calls} == {(config.ent_coef, 0.3)} and sum(c[2] for c in calls) > 0


def test_the_config_refuses_a_negative_bid_weight():
    with pytest.raises(ValueError, match=r"bid_ent_coef=-0\.1 \(None or >= 0\)"):
        PPOConfig(bid_ent_coef=-0.1)
