"""The pieces of an expert-iteration round that run wherever the round runs: the behaviour policies built
from the network, the distillation loss, the teacher agreement and the update on the replay.

``train/expert_iteration/trainer.py`` (the driver) and ``train/expert_iteration/collect_actors.py`` (the shard workers,
in this process or on Ray actors) both use them, so a shard collected anywhere is played by the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.neural import SpadesPolicy
from train.expert_iteration.config import NETWORK
from train.ppo.core import MaskedCategorical
from train.values.bid_values import centred_value_loss

#: The arrays a labelled position trains on (one dict of them per round in the replay).
TRAIN_KEYS = ("obs", "mask", "target", "ret", "has_ret", "valued", "teacher_action", "teacher_best", "nil_hand")
#: The arrays a network with a card value head trains on too (each legal card's value: (M, A) floats, kept only then).
CARD_VALUE_KEYS = ("card_values", "card_valued")


def train_arrays(positions, labels, card_values: bool = False) -> dict[str, np.ndarray]:
    """The ``TRAIN_KEYS`` arrays of labelled positions (``train.expert_iteration.labelling`` ``Positions`` and their
    ``Labels``), and with ``card_values`` the ``CARD_VALUE_KEYS`` ones (a network with a card value head)."""
    arrays = {
        "obs": positions.obs,
        "mask": positions.mask,
        "target": labels.target,
        "ret": positions.ret,
        "has_ret": positions.has_ret,
        "valued": labels.valued,
        "teacher_action": labels.action,
        "teacher_best": labels.best,
        "nil_hand": positions.state.nil_bid,
    }
    if card_values:
        arrays |= {"card_values": labels.card_values, "card_valued": labels.card_valued}
    return arrays


def distillation_loss(
    policy: SpadesPolicy,
    obs: torch.Tensor,
    mask: torch.Tensor,
    target: torch.Tensor,
    ret: torch.Tensor,
    has_ret: torch.Tensor,
    vf_coef: float,
    weight: torch.Tensor | None = None,
    card_values: CardValueBatch | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Cross-entropy of the masked policy to ``target`` ((B, A) probabilities over legal actions) plus
    ``vf_coef`` times half the squared error of the value head on ``ret`` where ``has_ret``; ``weight``
    ((B,), optional): each position's weight in the cross-entropy (its weighted mean); ``card_values``: plus the
    card value head's regression on them (``card_value_loss``)."""
    logits, value, q = policy.training_outputs(obs, card_values=card_values is not None)
    logp = MaskedCategorical(logits, mask).logits
    ce_rows = -torch.where(mask, target * logp, torch.zeros_like(logp)).sum(-1)
    ce = ce_rows.mean() if weight is None else (weight * ce_rows).sum() / weight.sum()
    v_loss = 0.5 * (((value - ret) ** 2) * has_ret).sum() / has_ret.sum().clamp(min=1)
    loss, stats = ce + vf_coef * v_loss, {"cross_entropy": ce.item(), "value_loss": v_loss.item()}
    if card_values is not None:
        cv_loss = card_value_loss(q, mask, card_values)
        loss = loss + card_values.coef * cv_loss
        stats["card_value_loss"] = cv_loss.item()
    return loss, stats


@dataclass(frozen=True)
class CardValueBatch:
    """A minibatch's card value labels (``train.expert_iteration.labelling.Labels.card_values``)."""

    values: torch.Tensor
    """(B, A) each legal card's value in points on the ``valued`` rows."""
    valued: torch.Tensor
    """(B,) bool: the card decisions whose cards were valued."""
    scale: float
    """Units of the head per point (the run's ``reward_scale``)."""
    coef: float
    """Weight of the regression in the loss (``card_value_coef``)."""


def card_value_loss(q: torch.Tensor, mask: torch.Tensor, batch: CardValueBatch) -> torch.Tensor:
    """The squared error of the card value head's outputs ``q`` ((B, C), from the loss's own forward pass) on the
    legal cards of the valued rows, each decision's values centred on its legal cards' mean
    (``train.values.bid_values.centred_value_loss``: the cards are played on the same deal, so only their differences
    carry information); 0 where no row is valued."""
    rows = torch.nonzero(batch.valued).squeeze(-1)
    if len(rows) == 0:
        return q.new_zeros(())
    c = q.shape[-1]
    return centred_value_loss(q[rows], mask[rows, :c], batch.values[rows, :c] * batch.scale)


@torch.no_grad()
def teacher_agreement(policy: SpadesPolicy, data: dict[str, np.ndarray], device: torch.device) -> dict[str, float]:
    """How often the greedy policy plays the teacher's choice: on the decisions the teacher valued
    (``agreement/teacher``: argmax equality, where a tie between equally valued cards counts only the
    heuristic's pick; ``agreement/teacher_nil_hands``: the same in hands where a seat bid nil), there with one of
    the teacher's best-valued actions (``agreement/teacher_best``: ties count) and on every decision
    (``agreement/all``)."""
    hits = []
    for lo in range(0, len(data["obs"]), 8192):
        obs = torch.as_tensor(data["obs"][lo : lo + 8192], device=device)
        mask = torch.as_tensor(data["mask"][lo : lo + 8192], device=device)
        hits.append(MaskedCategorical(policy(obs)[0], mask).mode().cpu().numpy())
    mode = np.concatenate(hits) if hits else np.zeros(0, np.int64)
    hit = mode == data["teacher_action"]
    best = data["teacher_best"][np.arange(len(mode)), mode]
    valued = data["valued"]
    return {
        "agreement/teacher": float(hit[valued].mean()) if valued.any() else float("nan"),
        "agreement/teacher_best": float(best[valued].mean()) if valued.any() else float("nan"),
        "agreement/all": float(hit.mean()) if len(hit) else float("nan"),
        "agreement/valued_fraction": float(valued.mean()) if len(valued) else float("nan"),
        "agreement/teacher_nil_hands": float(hit[nil].mean())
        if (nil := valued & _part(data, "nil_hand")).any()
        else float("nan"),
    }


def round_teacher(config, heuristic_round: bool, write_network: Callable[[], Path]) -> str:
    """The teacher spec of a round: ``config.teacher``, its ``{network}`` replaced by the path ``write_network()``
    writes the round's network to (the network that plays the round); a round played by the heuristic gets
    ``config.warmup_teacher`` instead."""
    if NETWORK not in config.teacher:
        return config.teacher
    if heuristic_round:
        return config.warmup_teacher
    return config.teacher.replace(NETWORK, str(write_network()))


def learner_behaviour(policy: SpadesPolicy, rng: np.random.Generator, device: torch.device):
    """The network as a behaviour policy: each action sampled from its masked softmax (``rng``)."""

    @torch.no_grad()
    def act(obs: np.ndarray, mask: np.ndarray, ctx) -> tuple[np.ndarray, np.ndarray]:
        logits, _ = policy(torch.as_tensor(obs, device=device))
        dist = MaskedCategorical(logits, torch.as_tensor(mask, device=device))
        return dist.sample(rng), dist.probs.float().cpu().numpy()

    return act


def is_learner_seat(engine, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(G,) bool: ``seats[i]`` is on side ``games[i] % n_sides``, the learner's side of its game under
    ``opponents: heuristic`` (the side moves with the game, so every side is the learner's in some games)."""
    return engine.side_of_seat[seats] == games % engine.n_sides


def against_heuristic(behaviour, heuristic) -> Any:
    """``behaviour`` at the seats of side ``g % n_sides`` of each game ``g``, HeuristicAgent at every other seat
    (``opponents: heuristic``); the probabilities stay ``behaviour``'s (or the reference's) everywhere."""

    def act(obs: np.ndarray, mask: np.ndarray, ctx) -> tuple[np.ndarray, np.ndarray]:
        action, probs = behaviour(obs, mask, ctx)
        rows = np.flatnonzero(~is_learner_seat(ctx.engine, ctx.games, ctx.seats))
        if len(rows):
            action[rows] = heuristic.act(None, mask[rows], ctx.take(rows))
        return action, probs

    return act


def learner_rows(positions, engine, num_envs: int) -> np.ndarray:
    """The rows of ``positions`` (step-major over ``num_envs`` games, as ``PositionStream.collect`` keeps them)
    decided by a seat of side ``g % n_sides`` of its game ``g``: the learner's own decisions under
    ``against_heuristic`` (``train_on: learner``)."""
    return np.flatnonzero(is_learner_seat(engine, np.arange(len(positions)) % num_envs, positions.seat))


def with_reference_probs(behaviour, reference: SpadesPolicy, device: torch.device):
    """``behaviour``'s actions with ``reference``'s probabilities (what the targets anchor to)."""

    @torch.no_grad()
    def act(obs: np.ndarray, mask: np.ndarray, ctx) -> tuple[np.ndarray, np.ndarray]:
        action, _ = behaviour(obs, mask, ctx)
        logits, _ = reference(torch.as_tensor(obs, device=device))
        return action, MaskedCategorical(logits, torch.as_tensor(mask, device=device)).probs.float().cpu().numpy()

    return act


def train_on_replay(
    policy: SpadesPolicy,
    optimizer: torch.optim.Optimizer,
    replay: list[dict[str, np.ndarray]],
    rng: np.random.Generator,
    config,
    device: torch.device,
) -> tuple[dict[str, list[float]], int]:
    """``config.epochs`` passes of minibatches (``rng``'s permutations) over the replay's positions:
    (each loss's values per step, the number of positions trained on)."""
    keys = TRAIN_KEYS + (CARD_VALUE_KEYS if policy.card_value_head is not None else ())
    data = {k: torch.as_tensor(np.concatenate([_part(part, k) for part in replay]), device=device) for k in keys}
    has_ret = data["has_ret"].float()
    weight = None
    if config.nil_weight != 1.0:
        weight = torch.where(data["nil_hand"], config.nil_weight, 1.0).float()
    policy.train()
    sums: dict[str, list[float]] = {}
    m = len(has_ret)
    for _ in range(config.epochs):
        order = rng.permutation(m)
        for lo in range(0, m, config.minibatch):
            mb = torch.as_tensor(order[lo : lo + config.minibatch], device=device)
            card_values = None
            if policy.card_value_head is not None:
                card_values = CardValueBatch(
                    data["card_values"][mb], data["card_valued"][mb], config.reward_scale, config.card_value_coef
                )
            loss, stats = distillation_loss(
                policy, data["obs"][mb], data["mask"][mb], data["target"][mb], data["ret"][mb], has_ret[mb],
                config.vf_coef, None if weight is None else weight[mb], card_values,
            )  # fmt: skip
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), config.max_grad_norm)
            optimizer.step()
            for k, v in stats.items():
                sums.setdefault(k, []).append(v)
    policy.eval()
    return sums, m


def _part(part: dict[str, np.ndarray], key: str) -> np.ndarray:
    """``part[key]``; a replay saved before ``nil_hand`` or the card values existed holds no such key: False for each
    position (0 for each action of ``card_values``)."""
    if key in part:
        return part[key]
    if key == "card_values":
        return np.zeros(part["mask"].shape, np.float32)
    return np.zeros(len(part["obs"]), bool)
