"""A neural-network player: the PPO policy network and the agent that plays it from a checkpoint.

The only module of ``agents`` that imports torch. Checkpoints are written by
``train/checkpoint.py``; this module reads them with ``torch.load`` directly so
that ``agents`` never imports ``train``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.base import Agent, DecisionContext
from spades_env.engine import SpadesEngine


def _layer(n_in: int, n_out: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    """A linear layer with orthogonal weights and zero bias (CleanRL's ``layer_init``)."""
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, 0.0)
    return layer


class SpadesPolicy(nn.Module):
    """Actor-critic over seat-relative observations: a shared torso, a card-play head and a bidding head.

    The flat action space is cards first, then bids and the blind-nil choices
    (``spades_env.engine.actions``). Logits are ``cat(card_head, bid_head)``; a legal
    mask never mixes the two ranges, so each decision is taken by exactly one head.
    One network plays every seat (self-play), since observations are seat-relative.
    """

    def __init__(self, obs_dim: int, n_actions: int, n_card_actions: int, hidden: int = 256, depth: int = 2) -> None:
        super().__init__()
        self.obs_dim, self.n_actions, self.n_card_actions = obs_dim, n_actions, n_card_actions
        self.hidden, self.depth = hidden, depth
        layers: list[nn.Module] = []
        width = obs_dim
        for _ in range(depth):
            layers += [_layer(width, hidden), nn.ReLU()]
            width = hidden
        self.torso = nn.Sequential(*layers)
        self.card_head = _layer(hidden, n_card_actions, std=0.01)
        self.bid_head = nn.Sequential(
            _layer(hidden, hidden // 2), nn.ReLU(), _layer(hidden // 2, n_actions - n_card_actions, std=0.01)
        )
        self.value_head = nn.Sequential(_layer(hidden, hidden // 2), nn.ReLU(), _layer(hidden // 2, 1, std=1.0))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """obs (B, D) float32 -> (logits (B, A), unmasked; value (B,))."""
        h = self.torso(obs)
        logits = torch.cat([self.card_head(h), self.bid_head(h)], dim=-1)
        return logits, self.value_head(h).squeeze(-1)

    def hyperparameters(self) -> dict[str, int]:
        """The arguments that rebuild this network (stored in checkpoints)."""
        return {
            "obs_dim": self.obs_dim,
            "n_actions": self.n_actions,
            "n_card_actions": self.n_card_actions,
            "hidden": self.hidden,
            "depth": self.depth,
        }

    @classmethod
    def for_engine(cls, engine: SpadesEngine, obs_dim: int, hidden: int = 256, depth: int = 2) -> SpadesPolicy:
        """A fresh network sized for a rule set's action layout."""
        lay = engine.layout
        return cls(obs_dim, lay.n_actions, lay.bid_offset, hidden=hidden, depth=depth)


def masked_logits(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(B, A) logits with illegal actions set to -inf."""
    return np.where(masks, logits, -np.inf)


class NeuralAgent(Agent):
    """Plays a trained ``SpadesPolicy`` from observations and legal masks (greedy by default)."""

    name = "neural"
    uses_observations = True

    def __init__(
        self,
        policy: SpadesPolicy,
        *,
        greedy: bool = True,
        device: str = "cpu",
        seed: int | None = None,
        obs_version: int | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        self.device = torch.device(device)
        self.policy = policy.to(self.device).eval()
        self.greedy = greedy
        """Play the most probable legal action; otherwise sample from the policy (seeded)."""
        self.obs_version = obs_version
        if name is not None:
            self.name = name

    @classmethod
    def from_checkpoint(
        cls, path: str | Path, *, greedy: bool = True, device: str = "cpu", seed: int | None = None
    ) -> NeuralAgent:
        """Load the policy of a training checkpoint, full or slim (``train.checkpoint.export_slim``);
        fails if its observation version is not the current one."""
        from spades_env.observation import VERSION

        ckpt: dict[str, Any] = torch.load(Path(path), map_location="cpu", weights_only=False)
        if ckpt["obs_version"] != VERSION:
            raise ValueError(
                f"{path}: checkpoint was trained on observation VERSION {ckpt['obs_version']}, "
                f"but spades_env.observation is VERSION {VERSION}; retrain or check out the matching code"
            )
        policy = SpadesPolicy(**ckpt["model_hparams"])
        policy.load_state_dict(ckpt["model"])
        return cls(
            policy,
            greedy=greedy,
            device=device,
            seed=seed,
            obs_version=ckpt["obs_version"],
            name=f"neural:{Path(path).stem}",
        )

    def supports(self, engine: SpadesEngine) -> bool:
        from spades_env.observation import ObservationEncoder

        return (
            engine.layout.n_actions == self.policy.n_actions
            and engine.layout.bid_offset == self.policy.n_card_actions
            and ObservationEncoder(engine).size == self.policy.obs_dim
        )

    def act(self, observations: np.ndarray, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        if len(masks) == 0:
            return np.zeros(0, np.int64)
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
            logits, _ = self.policy(obs)
        logits = masked_logits(logits.float().cpu().numpy().astype(np.float64), masks)
        if self.greedy:
            return np.argmax(logits, axis=1).astype(np.int64)
        gumbel = -np.log(-np.log(self.rng.random(logits.shape)))
        return np.argmax(logits + gumbel, axis=1).astype(np.int64)


def make_neural_agent(
    seed: int | None = None, path: str = "", greedy: bool | int = True, device: str = "cpu"
) -> NeuralAgent:
    """Factory for bot registries and spec strings (``neural:path=runs/.../latest.pt``)."""
    if not path:
        raise ValueError("the neural bot needs a checkpoint: neural:path=PATH")
    return NeuralAgent.from_checkpoint(path, greedy=bool(greedy), device=device, seed=seed)
