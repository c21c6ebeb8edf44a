"""Behaviour cloning of HeuristicAgent: a warm start for PPO.

HeuristicAgent plays every seat of ``num_envs`` games in lockstep (``VectorSpades``);
each of its decisions (observation, legal mask, action) is a supervised example.
The policy is trained with cross-entropy on the heuristic's action over the
*masked* logits (``MaskedCategorical``), so probability mass is only ever moved
between legal actions, and its value head regresses on the scaled points the
deciding seat's side scored in that hand (the Monte Carlo return under ``credit="hand"``),
so that PPO fine-tuning starts with a critic that already knows the heuristic's game.

``train/ppo/trainer.py`` calls ``behaviour_clone`` before its first update when
``PPOConfig.imitation_updates > 0``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from agents.heuristic import HeuristicAgent
from agents.neural import SpadesPolicy
from train.ppo.core import MaskedCategorical


@dataclass(frozen=True)
class ImitationConfig:
    """Settings of a behaviour-cloning run."""

    rules: str = "partnership"
    """Rules preset name or YAML path."""
    updates: int = 100
    """Collect-then-fit rounds."""
    num_envs: int = 256
    """Games played in lockstep by the heuristic."""
    num_steps: int = 64
    """Decisions per game collected per round (num_envs * num_steps examples)."""
    epochs: int = 2
    """Passes over each round's examples."""
    minibatch: int = 2048
    """Examples per gradient step."""
    learning_rate: float = 1e-3
    """Adam learning rate."""
    vf_coef: float = 0.5
    """Weight of the value regression."""
    reward_scale: float = 0.01
    """Points of a hand times this is the value target."""
    episode: str = "match"
    """``match`` (scores and bags carry over, as in PPO) or ``hand``."""
    seed: int = 1
    """Seed of the deals and minibatch order."""
    heldout: int = 0
    """Held-out heuristic decisions (other deals, seed ``seed + 10_007``) whose agreement is
    measured every ``heldout_every`` rounds and at the end (0 = none)."""
    heldout_every: int = 25
    """Rounds between held-out measurements."""


class HeuristicStream:
    """Decisions of HeuristicAgent in every seat of B games, with each decision's hand return."""

    def __init__(self, rules: str, num_envs: int, seed: int, episode: str = "match") -> None:
        from spades_env.envs.vector import VectorSpades

        self.env = VectorSpades(rules, num_envs, seed=seed, episode=episode, reward="points")
        self.obs, info = self.env.reset(seed=seed)
        self.mask, self.seat = info["action_mask"], info["to_play"]
        self.bot = HeuristicAgent(seed=seed)

    def collect(self, num_steps: int, reward_scale: float) -> dict[str, np.ndarray]:
        """num_steps decisions per game (M = num_steps * B, step-major): obs (M, D), mask (M, A),
        action (M,), seat (M,), ret (M,) and has_ret (M,) (False: the hand was unfinished)."""
        b = self.env.num_envs
        obs = np.empty((num_steps, b, self.obs.shape[1]), np.float32)
        mask = np.empty((num_steps, b, self.mask.shape[1]), bool)
        action = np.empty((num_steps, b), np.int64)
        seat = np.empty((num_steps, b), np.int64)
        ret = np.zeros((num_steps, b), np.float32)
        pending = np.zeros((num_steps, b), bool)
        for t in range(num_steps):
            act = self.bot.act(None, self.mask, self.env.context())
            obs[t], mask[t], action[t], seat[t] = self.obs, self.mask, act, self.seat
            pending[t] = True
            self.obs, rewards, _, _, info = self.env.step(act)
            self.mask, self.seat = info["action_mask"], info["to_play"]
            done = np.flatnonzero(info["hand_done"])
            if len(done):
                # Every still-pending decision of a finished hand gets its seat's points.
                open_ = pending[: t + 1, done]
                seat_points = np.take_along_axis(rewards[done], seat[: t + 1, done].T, axis=1).T
                ret[: t + 1, done] = np.where(open_, seat_points * reward_scale, ret[: t + 1, done])
                pending[: t + 1, done] = False
        # Decisions of hands unfinished at the end of the round train the policy only.
        return {
            "obs": obs.reshape(-1, obs.shape[-1]),
            "mask": mask.reshape(-1, mask.shape[-1]),
            "action": action.reshape(-1),
            "seat": seat.reshape(-1),
            "ret": ret.reshape(-1),
            "has_ret": ~pending.reshape(-1),
        }


def imitation_loss(
    policy: SpadesPolicy,
    obs: torch.Tensor,
    mask: torch.Tensor,
    action: torch.Tensor,
    ret: torch.Tensor,
    has_ret: torch.Tensor,
    vf_coef: float,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Cross-entropy of the heuristic's actions over masked logits plus value regression."""
    logits, value = policy(obs)
    dist = MaskedCategorical(logits, mask)
    ce = -dist.log_prob(action).mean()
    v_err = (value - ret) ** 2
    v_loss = 0.5 * (v_err * has_ret).sum() / has_ret.sum().clamp(min=1)
    with torch.no_grad():
        agree = dist.mode() == action
        n_bid = policy.n_card_actions
        bidding = mask[:, n_bid:].any(-1)
        stats = {
            "cross_entropy": ce.item(),
            "value_loss": v_loss.item(),
            "accuracy": agree.float().mean().item(),
            "bid_accuracy": agree[bidding].float().mean().item() if bidding.any() else float("nan"),
        }
    return ce + vf_coef * v_loss, stats


@torch.no_grad()
def agreement(
    policy: SpadesPolicy, batch: dict[str, np.ndarray], device: str | torch.device = "cpu"
) -> dict[str, float]:
    """Greedy agreement of ``policy`` with the heuristic's actions in ``batch`` (from ``HeuristicStream.collect``):
    ``accuracy`` over every decision, ``bid_accuracy`` over bids, ``play_accuracy`` over card play."""
    was_training = policy.training
    policy.eval()
    hits = []
    for lo in range(0, len(batch["action"]), 8192):
        obs = torch.as_tensor(batch["obs"][lo : lo + 8192], device=device)
        mask = torch.as_tensor(batch["mask"][lo : lo + 8192], device=device)
        logits, _ = policy(obs)
        hits.append(MaskedCategorical(logits, mask).mode().cpu().numpy() == batch["action"][lo : lo + 8192])
    policy.train(was_training)
    hit = np.concatenate(hits)
    bidding = batch["mask"][:, policy.n_card_actions :].any(-1)
    return {
        "accuracy": float(hit.mean()),
        "bid_accuracy": float(hit[bidding].mean()) if bidding.any() else float("nan"),
        "play_accuracy": float(hit[~bidding].mean()) if (~bidding).any() else float("nan"),
    }


def behaviour_clone(
    policy: SpadesPolicy,
    config: ImitationConfig,
    *,
    device: str | torch.device = "cpu",
    writer=None,
    quiet: bool = True,
) -> dict[str, float]:
    """Train ``policy`` in place to imitate HeuristicAgent; returns the last round's statistics
    (with ``heldout_*`` agreement on held-out deals when ``config.heldout`` > 0).

    ``writer`` (a TensorBoard ``SummaryWriter``) gets ``imitation/*`` scalars per round,
    indexed by examples seen.
    """
    device = torch.device(device)
    stream = HeuristicStream(config.rules, config.num_envs, config.seed, config.episode)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate, eps=1e-5)
    rng = np.random.default_rng([config.seed, 7])
    held = None
    if config.heldout > 0:
        held_stream = HeuristicStream(
            config.rules, min(config.num_envs, config.heldout), config.seed + 10_007, config.episode
        )
        held = held_stream.collect(-(-config.heldout // held_stream.env.num_envs), config.reward_scale)
    seen, stats = 0, {}
    policy.train()
    for update in range(config.updates):
        for group in optimizer.param_groups:
            group["lr"] = config.learning_rate * (1.0 - update / config.updates)
        batch = stream.collect(config.num_steps, config.reward_scale)
        tensors = {k: torch.as_tensor(batch[k], device=device) for k in ("obs", "mask", "action", "ret", "has_ret")}
        tensors["has_ret"] = tensors["has_ret"].float()
        m = len(batch["action"])
        sums: dict[str, list[float]] = {}
        for _ in range(config.epochs):
            order = rng.permutation(m)
            for lo in range(0, m, config.minibatch):
                mb = torch.as_tensor(order[lo : lo + config.minibatch], device=device)
                loss, mb_stats = imitation_loss(policy, *(tensors[k][mb] for k in tensors), vf_coef=config.vf_coef)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                optimizer.step()
                for k, v in mb_stats.items():
                    sums.setdefault(k, []).append(v)
        seen += m
        stats = {k: float(np.mean(f)) if (f := [x for x in v if x == x]) else float("nan") for k, v in sums.items()}
        if held is not None and ((update + 1) % config.heldout_every == 0 or update + 1 == config.updates):
            stats |= {f"heldout_{k}": v for k, v in agreement(policy, held, device).items()}
        if writer is not None:
            for k, v in stats.items():
                writer.add_scalar(f"imitation/{k}", v, seen)
        if not quiet:
            print(
                f"imitation {update + 1}/{config.updates} examples {seen} "
                + " ".join(f"{k} {v:.3f}" for k, v in stats.items()),
                flush=True,
            )
    policy.eval()
    return stats
