"""PPO's ``card_anchor``: a pull of the network's card play toward HeuristicAgent's card in each position the
learner plays (``train.ppo.update.anchor_term``, ``TurnBuffer.teacher``, ``configs/train/card_anchor.yaml``)."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

import train.ppo.rollout as ppo_rollout  # noqa: E402
from agents.base import DecisionContext  # noqa: E402
from agents.heuristic import HeuristicAgent  # noqa: E402
from spades_env.engine import PLAY  # noqa: E402
from tests.run_logs import run_scalars  # noqa: E402
from train.ppo.core import MaskedCategorical, TurnBuffer  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402
from train.ppo.update import UpdateResult, anchor_term  # noqa: E402

RECIPE = ROOT / "configs" / "train" / "card_anchor.yaml"


def _result() -> UpdateResult:
    return UpdateResult(2, np.array([0.0, 1.0]), np.array([0.0, 1.0]))


def test_the_anchor_is_the_cross_entropy_of_the_teachers_action_over_anchored_decisions():
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(5, 6, generator=gen)
    mask = torch.ones(5, 6, dtype=torch.bool)
    mask[0, 3:] = False
    teacher = torch.tensor([2, -1, 5, -1, 0])
    result = _result()
    loss = anchor_term(MaskedCategorical(logits, mask), teacher, result)
    log_p = torch.log_softmax(logits.masked_fill(~mask, -1e9), -1)
    expected = -(log_p[0, 2] + log_p[2, 5] + log_p[4, 0]) / 3
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5)
    assert result.anchor_loss == [pytest.approx(expected.item(), rel=1e-5)]
    agrees = [logits[i].masked_fill(~mask[i], -1e9).argmax().item() == t for i, t in ((0, 2), (2, 5), (4, 0))]
    assert result.teacher_agreement == [pytest.approx(np.mean(agrees))]
    none = _result()
    assert anchor_term(MaskedCategorical(logits, mask), torch.full((5,), -1), none).item() == 0.0
    assert none.anchor_loss == [] and "losses/card_anchor" not in none.scalars()


def test_the_anchor_pulls_the_policy_to_the_teachers_action():
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(64, 8, generator=gen)
    teacher = (x @ torch.randn(8, 4, generator=gen)).argmax(-1)  # a teacher a linear policy can follow
    net = torch.nn.Linear(8, 4)
    opt = torch.optim.Adam(net.parameters(), lr=0.05)
    mask = torch.ones(64, 4, dtype=torch.bool)
    results = []
    for _ in range(300):
        results.append(_result())
        loss = anchor_term(MaskedCategorical(net(x), mask), teacher, results[-1])
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert results[0].teacher_agreement[0] < 0.5 and results[-1].teacher_agreement[0] > 0.9
    assert results[-1].anchor_loss[0] < results[0].anchor_loss[0] / 2


def test_the_config_allows_the_anchor_only_where_the_network_plays_the_cards():
    match = r"card_anchor=1\.0 \(>= 0, and 0 unless card_play: network\)"
    with pytest.raises(ValueError, match=match):
        PPOConfig(card_anchor=1.0, card_play="heuristic")
    with pytest.raises(ValueError, match=r"card_anchor=-0\.5"):
        PPOConfig(card_anchor=-0.5)


def test_the_buffer_carries_the_teachers_action_and_loads_checkpoints_without_it():
    buf = TurnBuffer(num_envs=2, n_players=2, num_steps=3, obs_dim=1, n_actions=4)
    buf.start_rollout()
    for step, (seat, teacher) in enumerate(zip([0, 1, 0], [[3, -1], [-1, 2], None], strict=True)):
        obs = np.full((2, 1), step, np.float32)
        mask = np.ones((2, 4), bool)
        buf.add(obs, mask, np.zeros(2, np.int64), np.zeros(2), np.zeros(2), np.full(2, seat), np.ones(2, bool),
                teacher=None if teacher is None else np.array(teacher))  # fmt: skip
    assert buf.teacher[2:, 0].tolist() == [3, -1, -1] and buf.teacher[2:, 1].tolist() == [-1, 2, -1]
    buf.start_rollout()  # the open decisions: seat 0's step 2, seat 1's step 1
    assert buf.teacher[:2, 0].tolist() == [-1, -1] and buf.teacher[:2, 1].tolist() == [-1, 2]
    assert (buf.teacher[2:] == -1).all()
    old = {k: v for k, v in buf.state_dict().items() if k != "teacher"}  # a checkpoint from before the field
    other = TurnBuffer(num_envs=2, n_players=2, num_steps=3, obs_dim=1, n_actions=4)
    other.load_state_dict(old)
    assert (other.teacher == -1).all()
    np.testing.assert_array_equal(other.obs, buf.obs)


def test_the_recipe_anchors_every_learner_card_to_the_heuristics_and_logs_the_pull(tmp_path, monkeypatch):
    steps, real = [], ppo_rollout.teacher_cards
    fresh = HeuristicAgent()

    def spy(engine, state, config, learner_rows, seats, mask, heuristic):
        out = real(engine, state, config, learner_rows, seats, mask, heuristic)
        rows = np.flatnonzero(learner_rows & (state.phase == PLAY))
        np.testing.assert_array_equal(np.flatnonzero(out >= 0), rows)  # every learner card, nothing else
        if len(rows):
            expected = fresh.act(None, mask[rows], DecisionContext(engine, state, rows, seats[rows]))
            np.testing.assert_array_equal(out[rows], expected)
            assert mask[rows, out[rows]].all()
        steps.append((len(rows), (~learner_rows & (state.phase == PLAY)).sum()))
        return out

    monkeypatch.setattr(ppo_rollout, "teacher_cards", spy)
    recipe = PPOConfig.from_yaml(RECIPE)
    assert recipe.card_anchor > 0 and recipe.card_play == "network" and recipe.paired
    tiny = dict(num_envs=4, num_steps=80, total_updates=1, eval_every=1, eval_deals=4, checkpoint_every=1)
    train(dataclasses.replace(recipe, run_dir=str(tmp_path), eval_final=False, **tiny), quiet=True)
    assert sum(n for n, _ in steps) > 0 and sum(m for _, m in steps) > 0  # the learner's and the others' cards
    scalars = run_scalars(tmp_path)
    (anchor,), (agreement,) = scalars["losses/card_anchor"], scalars["charts/heuristic_card_agreement"]
    assert anchor[1] > 0 and 0 < agreement[1] <= 1


def test_card_anchor_hands_nil_anchors_only_the_cards_of_hands_with_a_nil_bid():
    from spades_env.envs.vector import VectorSpades

    envs = VectorSpades("partnership", num_envs=64, seed=2)
    _, info = envs.reset(seed=2)
    bot, games = HeuristicAgent(), np.arange(64)
    for _ in range(30):  # the blind-nil choices and the bids, to a card in every game
        if (envs.state.phase == PLAY).all():
            break
        seats = info["to_play"]
        ctx = DecisionContext(envs.engine, envs.state, games, seats)
        _, _, _, _, info = envs.step(bot.act(None, info["action_mask"], ctx))
    state, seats, mask = envs.state, info["to_play"], info["action_mask"].astype(bool)
    nil_hands = (state.bids == 0).any(axis=1)
    assert (state.phase == PLAY).all() and 0 < nil_hands.sum() < 64
    learner = np.arange(64) % 3 != 0
    for hands, expected in (("all", learner), ("nil", learner & nil_hands)):
        config = PPOConfig(card_anchor=1.0, card_anchor_hands=hands)
        out = ppo_rollout.teacher_cards(envs.engine, state, config, learner, seats, mask, bot)
        np.testing.assert_array_equal(out >= 0, expected)
    assert ppo_rollout.teacher_cards(envs.engine, state, PPOConfig(), learner, seats, mask, bot) is None
    with pytest.raises(ValueError, match=r"card_anchor_hands='some' \(one of \['all', 'nil'\]\)"):
        PPOConfig(card_anchor_hands="some")
