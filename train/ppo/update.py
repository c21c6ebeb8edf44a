"""The PPO update of one rollout: advantages over each seat's chain of decisions, then clipped-objective epochs."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from train.ppo.config import PPOConfig
from train.ppo.core import MaskedCategorical, TurnBuffer, explained_variance, ppo_loss
from train.ppo.critic import ActorCritic
from train.ppo.hindsight_bids import hindsight_loss


@dataclass
class UpdateResult:
    """What one update measured, for the ``losses/*`` and ``charts/trained_decisions`` scalars."""

    batch: int
    """Decisions trained on."""
    values: np.ndarray
    """(batch,) the values the rollout predicted."""
    returns: np.ndarray
    """(batch,) their GAE returns."""
    last_stats: dict[str, float] = field(default_factory=dict)
    clipfracs: list[float] = field(default_factory=list)
    bid_entropy: list[float] = field(default_factory=list)
    anchor_loss: list[float] = field(default_factory=list)
    """Per minibatch: the mean ``-log pi(teacher's card)`` over its anchored decisions (``card_anchor``)."""
    teacher_agreement: list[float] = field(default_factory=list)
    """Per minibatch: the share of its anchored decisions where the policy's most likely card is the teacher's."""
    bid_value_loss: list[float] = field(default_factory=list)
    """Per minibatch: the value loss of its share of the bids valued in hindsight (``bid_learning: hindsight``)."""

    def scalars(self) -> dict[str, float]:
        """``losses/*`` scalars and ``charts/trained_decisions``."""
        nan = float("nan")
        stats = self.last_stats
        out = {
            "charts/trained_decisions": float(self.batch),
            "losses/value_loss": stats.get("value_loss", nan),
            "losses/policy_loss": stats.get("policy_loss", nan),
            "losses/entropy": stats.get("entropy", nan),
            "losses/bid_entropy": float(np.mean(self.bid_entropy)) if self.bid_entropy else nan,
            "losses/old_approx_kl": stats.get("old_approx_kl", nan),
            "losses/approx_kl": stats.get("approx_kl", nan),
            "losses/clipfrac": float(np.mean(self.clipfracs)) if self.clipfracs else nan,
            "losses/explained_variance": explained_variance(self.values, self.returns),
        }
        if self.anchor_loss:
            out["losses/card_anchor"] = float(np.mean(self.anchor_loss))
            out["charts/heuristic_card_agreement"] = float(np.mean(self.teacher_agreement))
        if self.bid_value_loss:
            out["losses/bid_value"] = float(np.mean(self.bid_value_loss))
        return out


def ppo_update(
    model: ActorCritic,
    optimizer: torch.optim.Optimizer,
    buffer: TurnBuffer,
    *,
    config: PPOConfig,
    bid_offset: int,
    rng: np.random.Generator,
    device: torch.device,
    hindsight: tuple | None = None,
) -> UpdateResult:
    """Optimize ``model`` (policy and critic) on the trainable decisions of ``buffer``; minibatch order drawn
    with ``rng``.

    ``bid_offset``: the first bidding action (decisions with a legal action from there on are bids,
    whose entropy is logged apart). ``hindsight``: the bids valued in hindsight since the last update (``bid_learning:
    hindsight``, ``train.ppo.hindsight_bids``): each minibatch adds ``bid_value_coef`` times the value loss of a share.
    """
    advantages, returns = buffer.advantages(config.gamma, config.gae_lambda)
    obs_dim, n_actions = buffer.obs.shape[-1], buffer.mask.shape[-1]
    flat = np.flatnonzero(buffer.trainable().reshape(-1))
    b_obs = torch.as_tensor(buffer.obs.reshape(-1, obs_dim)[flat], device=device)
    b_mask = torch.as_tensor(buffer.mask.reshape(-1, n_actions)[flat], device=device)
    b_actions = torch.as_tensor(buffer.action.reshape(-1)[flat], device=device)
    b_logprobs = torch.as_tensor(buffer.logprob.reshape(-1)[flat], device=device)
    b_values = torch.as_tensor(buffer.value.reshape(-1)[flat], device=device)
    b_adv = torch.as_tensor(advantages.reshape(-1)[flat], device=device)
    b_returns = torch.as_tensor(returns.reshape(-1)[flat], device=device)
    b_bidding = b_mask[:, bid_offset:].any(-1)
    b_teacher = torch.as_tensor(buffer.teacher.reshape(-1)[flat], device=device)

    model.train()
    batch = len(flat)
    result = UpdateResult(batch, b_values.cpu().numpy(), b_returns.cpu().numpy())
    mb_size = max(1, batch // config.num_minibatches)
    for _epoch in range(config.update_epochs):
        order = rng.permutation(batch)
        bid_chunks = hindsight_chunks(hindsight, config.num_minibatches, rng)
        for k, start in enumerate(range(0, batch - mb_size + 1, mb_size)):
            mb = torch.as_tensor(order[start : start + mb_size], device=device)
            logits, new_value = model(b_obs[mb])
            dist = MaskedCategorical(logits, b_mask[mb])
            entropy = dist.entropy()
            mb_adv = b_adv[mb]
            if config.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            loss, result.last_stats = ppo_loss(
                dist.log_prob(b_actions[mb]),
                b_logprobs[mb],
                mb_adv,
                new_value,
                b_values[mb],
                b_returns[mb],
                entropy,
                clip_coef=config.clip_coef,
                vf_coef=config.vf_coef,
                ent_coef=config.ent_coef,
                clip_vloss=config.clip_vloss,
            )
            bids = b_bidding[mb]
            loss = loss - bid_entropy_bonus(entropy, bids, config.ent_coef, config.bid_ent_coef)
            if config.card_anchor:
                loss = loss + config.card_anchor * anchor_term(dist, b_teacher[mb], result)
            if k < len(bid_chunks):
                bid_loss = hindsight_loss(model, bid_chunks[k], bid_offset, device, config.hindsight_nil)
                loss = loss + config.bid_value_coef * bid_loss
                result.bid_value_loss.append(bid_loss.item())
            optimizer.zero_grad()
            loss.backward()
            model.clip_grad_norm(config.max_grad_norm)
            optimizer.step()
            result.clipfracs.append(result.last_stats["clipfrac"])
            if bids.any():
                result.bid_entropy.append(entropy[bids].mean().item())
        if config.target_kl is not None and result.last_stats.get("approx_kl", 0.0) > config.target_kl:
            break
    buffer.start_rollout()
    return result


def hindsight_chunks(hindsight: tuple | None, parts: int, rng: np.random.Generator) -> list[tuple]:
    """The hindsight examples (rows, candidates, values, ...) in ``parts`` shuffled chunks (order drawn with ``rng``),
    one for each minibatch of an epoch; none without examples."""
    if hindsight is None:
        return []
    order = rng.permutation(len(hindsight[0]))
    return [tuple(x[idx] for x in hindsight[:3]) for idx in np.array_split(order, parts) if len(idx)]


def bid_entropy_bonus(
    entropy: torch.Tensor, bids: torch.Tensor, ent_coef: float, bid_ent_coef: float | None
) -> torch.Tensor:
    """What the bidding decisions ``bids`` (B,) bool add to the minibatch's entropy bonus beyond ``ent_coef``, every
    decision's weight in ``ppo_loss``: their (B,) ``entropy`` weighted ``bid_ent_coef - ent_coef`` over the minibatch
    (0 where ``bid_ent_coef`` is None), so that a bid's entropy counts ``bid_ent_coef`` in all."""
    if bid_ent_coef is None:
        return entropy.new_zeros(())
    return (bid_ent_coef - ent_coef) * (entropy * bids).sum() / len(entropy)


def anchor_term(dist: MaskedCategorical, teacher: torch.Tensor, result: UpdateResult) -> torch.Tensor:
    """The mean cross-entropy ``-log pi(teacher)`` over the decisions with a teacher's action (``teacher >= 0``;
    0 if none), logged into ``result``: the ``card_anchor`` pull toward the heuristic's card."""
    anchored = teacher >= 0
    if not anchored.any():
        return dist.logits.new_zeros(())
    target, log_probs = teacher[anchored], dist.logits[anchored]
    loss = -log_probs.gather(-1, target[:, None]).squeeze(-1).mean()
    with torch.no_grad():
        result.anchor_loss.append(loss.item())
        result.teacher_agreement.append((log_probs.argmax(-1) == target).float().mean().item())
    return loss
