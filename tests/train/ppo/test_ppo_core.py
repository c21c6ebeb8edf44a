"""Unit tests of the PPO pieces: masked distribution, GAE (plain and chained per seat), loss, buffer."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from train.ppo.core import MaskedCategorical, TurnBuffer, chained_gae, gae, ppo_loss  # noqa: E402


def test_masked_categorical_gives_illegal_actions_zero_probability():
    logits = torch.tensor([[5.0, 1.0, 2.0, 9.0], [0.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[True, False, True, False], [False, False, False, True]])
    dist = MaskedCategorical(logits, mask)
    assert torch.all(dist.probs[~mask] == 0)
    assert torch.allclose(dist.probs.sum(-1), torch.ones(2))
    assert dist.probs[1, 3].item() == 1.0
    assert dist.mode().tolist() == [0, 3]
    expected = torch.softmax(torch.tensor([5.0, 2.0]), 0)
    assert torch.allclose(dist.probs[0, [0, 2]], expected)


def test_masked_entropy_counts_only_legal_actions():
    logits = torch.zeros(3, 6)
    mask = torch.zeros(3, 6, dtype=torch.bool)
    mask[0, :2] = True
    mask[1, :5] = True
    mask[2, 4] = True
    ent = MaskedCategorical(logits, mask).entropy()
    assert torch.allclose(ent, torch.tensor([np.log(2), np.log(5), 0.0], dtype=torch.float32))


def test_masked_gradients_stay_finite():
    logits = torch.randn(4, 5, requires_grad=True)
    mask = torch.tensor([[True, False, False, False, False]] * 2 + [[True, True, False, True, False]] * 2)
    dist = MaskedCategorical(logits, mask)
    (dist.log_prob(torch.tensor([0, 0, 1, 3])).sum() + dist.entropy().sum()).backward()
    assert torch.isfinite(logits.grad).all()
    assert torch.all(logits.grad[~mask] == 0)


def test_masked_sampling_never_draws_an_illegal_action():
    rng = np.random.default_rng(0)
    logits = torch.tensor([[10.0, -10.0, 0.0, 0.0]]).repeat(500, 1)
    mask = torch.tensor([[False, True, True, False]]).repeat(500, 1)
    draws = MaskedCategorical(logits, mask).sample(rng)
    assert set(draws.tolist()) <= {1, 2}
    assert (draws == 2).mean() > 0.99


def test_gae_matches_a_hand_computation():
    gamma, lam = 0.9, 0.8
    rewards = np.array([1.0, 0.0, 2.0])
    values = np.array([0.5, 1.0, 1.5])
    dones = np.array([False, False, False])
    last_value = 2.0
    d2 = 2.0 + 0.9 * 2.0 - 1.5
    d1 = 0.0 + 0.9 * 1.5 - 1.0
    d0 = 1.0 + 0.9 * 1.0 - 0.5
    a2 = d2
    a1 = d1 + 0.9 * 0.8 * a2
    a0 = d0 + 0.9 * 0.8 * a1
    adv, ret = gae(rewards, values, dones, last_value, gamma, lam)
    np.testing.assert_allclose(adv, [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(ret, np.array([a0, a1, a2]) + values, rtol=1e-6)


def test_gae_stops_at_episode_end():
    adv, _ = gae(np.array([0.0, 3.0, 5.0]), np.array([1.0, 1.0, 1.0]), np.array([False, True, False]), 7.0, 1.0, 1.0)
    # Transition 1 ends the episode: its advantage is r - V; transition 0 sees only it.
    np.testing.assert_allclose(adv, [0.0 + 1.0 - 1.0 + 2.0, 2.0, 5.0 + 7.0 - 1.0])


def test_chained_gae_equals_gae_on_each_seats_own_chain():
    """Two seats alternate in one game; each seat's chain is a plain GAE sequence."""
    rng = np.random.default_rng(1)
    rows = 10
    rewards = rng.normal(size=(rows, 1))
    values = rng.normal(size=(rows, 1))
    dones = np.zeros((rows, 1), bool)
    dones[[6, 7], 0] = True  # both seats' episodes end at rows 6 and 7
    next_row = np.full((rows, 1), -1)
    for r in range(rows - 2):
        if not dones[r, 0]:
            next_row[r, 0] = r + 2
    adv, _ = chained_gae(rewards, values, dones, next_row, 0.95, 0.9)
    # Seat A: rows 0 2 4 6 (done); seat B: rows 1 3 5 7 (done); rows 8, 9 are open.
    for chain in ([0, 2, 4, 6], [1, 3, 5, 7]):
        ref, _ = gae(rewards[chain, 0], values[chain, 0], dones[chain, 0], 0.0, 0.95, 0.9)
        np.testing.assert_allclose(adv[chain, 0], ref, rtol=1e-5, atol=1e-6)
    assert np.all(adv[8:] == 0)


def test_chained_gae_bootstraps_from_an_open_successor():
    rewards = np.array([[1.0], [0.0]])
    values = np.array([[0.5], [2.0]])
    dones = np.zeros((2, 1), bool)
    next_row = np.array([[1], [-1]])
    adv, _ = chained_gae(rewards, values, dones, next_row, 0.9, 0.8)
    np.testing.assert_allclose(adv[:, 0], [1.0 + 0.9 * 2.0 - 0.5, 0.0], rtol=1e-6)


def test_ppo_loss_clips_the_ratio():
    adv = torch.tensor([1.0, -1.0])
    old = torch.zeros(2)
    new = torch.log(torch.tensor([1.5, 0.5]))  # ratios 1.5 and 0.5, far outside 1 +- 0.2
    new.requires_grad_(True)
    value = torch.zeros(2)
    loss, stats = ppo_loss(new, old, adv, value, value, value, torch.zeros(2), clip_coef=0.2, vf_coef=0.5, ent_coef=0.0)
    # Both ratios are clipped in the direction that would improve the objective: the loss is
    # -(1 * 1.2 + (-1) * 0.8) / 2 and no gradient flows through the ratio.
    assert loss.item() == pytest.approx(-(1.2 - 0.8) / 2)
    loss.backward()
    assert torch.all(new.grad == 0)
    assert stats["clipfrac"] == 1.0


def test_ppo_loss_is_unclipped_inside_the_trust_region():
    adv = torch.tensor([2.0])
    new = torch.log(torch.tensor([1.1])).requires_grad_(True)
    loss, stats = ppo_loss(
        new, torch.zeros(1), adv, torch.zeros(1), torch.zeros(1), torch.zeros(1), torch.zeros(1),
        clip_coef=0.2, vf_coef=0.5, ent_coef=0.0,
    )  # fmt: skip
    assert loss.item() == pytest.approx(-2.2)
    loss.backward()
    assert new.grad.item() == pytest.approx(-2.2)
    assert stats["clipfrac"] == 0.0


def test_ppo_value_loss_clipping():
    ret = torch.tensor([1.0])
    old_v = torch.tensor([0.0])
    new_v = torch.tensor([0.5])
    z = torch.zeros(1)
    loss, stats = ppo_loss(z, z, z, new_v, old_v, ret, z, clip_coef=0.2, vf_coef=1.0, ent_coef=0.0)
    # Clipped value 0.2 is further from the return than 0.5: the max picks (0.2 - 1)^2.
    assert stats["value_loss"] == pytest.approx(0.5 * 0.8**2)
    _, stats = ppo_loss(z, z, z, new_v, old_v, ret, z, clip_coef=0.2, vf_coef=1.0, ent_coef=0.0, clip_vloss=False)
    assert stats["value_loss"] == pytest.approx(0.5 * 0.5**2)


def _fill(buf, seats, rewards_at=None, ends_at=()):
    b = buf.b
    for step, seat in enumerate(seats):
        buf.add(
            np.full((b, 3), step, np.float32),
            np.ones((b, 4), bool),
            np.zeros(b, np.int64),
            np.zeros(b, np.float32),
            np.full(b, float(step), np.float32),
            np.full(b, seat),
            np.ones(b, bool),
        )
        rew = np.zeros((b, buf.n), np.float32)
        if rewards_at and step in rewards_at:
            rew[:] = rewards_at[step]
        buf.add_rewards(rew, np.full(b, step in ends_at))


def test_turn_buffer_chains_each_seat_and_credits_rewards_to_its_last_decision():
    buf = TurnBuffer(num_envs=1, n_players=2, num_steps=6, obs_dim=3, n_actions=4)
    buf.start_rollout()
    # Seat order 0 1 0 1 | hand ends after step 3 with rewards (+1, -1) | then 1 0.
    _fill(buf, [0, 1, 0, 1, 1, 0], rewards_at={3: [1.0, -1.0]}, ends_at=(3,))
    n = buf.n
    assert buf.next_row[n + 0, 0] == n + 2
    assert buf.next_row[n + 1, 0] == n + 3
    assert buf.reward[n + 2, 0] == 1.0 and buf.reward[n + 3, 0] == -1.0
    assert buf.done[n + 2, 0] and buf.done[n + 3, 0]
    trainable = buf.trainable()[:, 0]
    assert trainable[n : n + 4].all() and not trainable[n + 4 :].any()
    # The two open decisions (steps 4 and 5) move to the carry rows of their seats.
    buf.start_rollout()
    assert buf.valid[:, 0].tolist() == [True, True] + [False] * 6
    assert buf.obs[0, 0, 0] == 5 and buf.obs[1, 0, 0] == 4
    _fill(buf, [1, 0], rewards_at={1: [2.0, 3.0]}, ends_at=(1,))
    assert buf.next_row[1, 0] == n and buf.next_row[0, 0] == n + 1
    assert buf.reward[n + 1, 0] == 2.0 and buf.reward[n, 0] == 3.0
    assert buf.trainable()[: n + 2, 0].all()


def test_turn_buffer_state_round_trip():
    buf = TurnBuffer(num_envs=2, n_players=2, num_steps=3, obs_dim=3, n_actions=4)
    buf.start_rollout()
    _fill(buf, [0, 1, 0])
    buf.start_rollout()
    state = buf.state_dict()
    other = TurnBuffer(num_envs=2, n_players=2, num_steps=3, obs_dim=3, n_actions=4)
    other.load_state_dict(state)
    for name in TurnBuffer.FIELDS:
        np.testing.assert_array_equal(getattr(other, name), getattr(buf, name))
    np.testing.assert_array_equal(other.last, buf.last)


def test_explained_variance_is_nan_without_a_spread_target_and_one_for_a_perfect_fit():
    from train.ppo.core import explained_variance

    assert np.isnan(explained_variance(np.zeros(0), np.zeros(0)))  # no decision of the kind in the rollout
    assert np.isnan(explained_variance(np.ones(3), np.full(3, 2.0)))
    assert explained_variance(np.arange(4.0), np.arange(4.0)) == 1.0
    assert explained_variance(np.zeros(4), np.arange(4.0)) == 0.0
