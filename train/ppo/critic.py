"""Where a PPO run's values come from: the policy's own value head, or an all-seeing critic.

``critic: shared`` (the default) is the actor-critic of ``agents.policy.SpadesPolicy``: one torso,
its value head. ``critic: perfect`` trains a separate value network (``PerfectCritic``, kept in the
training checkpoint under ``critic``, never played) on the perfect-information observation
(``VectorSpades(perfect_information=True)``: every seat's hand in the ``all_hands`` block), while
the policy still sees only its own observation: the same row without the ``all_hands`` columns
(``policy_columns``). The critic alone also gets one more column: 1 where the hand's other side is
not the learner itself (HeuristicAgent or a pool snapshot), whose results differ from self-play's
and which no observation shows (``ActorCritic.rows``). Hidden cards are the largest source of a
hand's variance; a critic that sees them predicts the return far better and so gives
lower-variance advantages (as PerfectDou's PPO critic did for Dou Dizhu, Suphx's oracle for
Mahjong). The played network, its checkpoint keys (``model_hparams``, ``model``) and
``neural:path=`` loading are those of a shared run.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch
from torch import nn

from agents.policy import SpadesPolicy, layer_init


def policy_columns(encoder) -> np.ndarray:
    """(D,) int64: the columns of ``encoder``'s perfect-information rows that are not ``all_hands``,
    in order: the row the seat itself observes (``perfect_information=False``)."""
    hidden = encoder.slices["all_hands"]
    return np.concatenate([np.arange(hidden.start), np.arange(hidden.stop, encoder.size)]).astype(np.int64)


class PerfectCritic(nn.Module):
    """A value network over perfect-information observations: ``depth`` ReLU layers of ``hidden``, then 1."""

    def __init__(self, obs_dim: int, hidden: int = 256, depth: int = 2) -> None:
        super().__init__()
        self.obs_dim, self.hidden, self.depth = obs_dim, hidden, depth
        layers: list[nn.Module] = []
        width = obs_dim
        for _ in range(depth):
            layers += [layer_init(width, hidden), nn.ReLU()]
            width = hidden
        self.net = nn.Sequential(*layers, layer_init(width, 1, std=1.0))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """obs (B, D_perfect) float32 -> value (B,)."""
        return self.net(obs).squeeze(-1)

    def hyperparameters(self) -> dict[str, int]:
        """The arguments that rebuild this network (stored in checkpoints as ``critic_hparams``)."""
        return {"obs_dim": self.obs_dim, "hidden": self.hidden, "depth": self.depth}


class ActorCritic:
    """The policy and where its values come from, as the rollout and the update use them.

    ``obs`` given to ``__call__`` is ``rows`` of what the env returns: the seat's own observation (shared),
    or the perfect-information one and the opponent column (perfect), of which the policy gets only
    ``policy_columns``.
    """

    #: Columns the critic gets beyond the env's perfect-information observation (the opponent column).
    EXTRA_COLUMNS = 1

    def __init__(
        self, policy: SpadesPolicy, critic: PerfectCritic | None = None, columns: np.ndarray | None = None
    ) -> None:
        if (critic is None) != (columns is None):
            raise ValueError("a perfect critic needs the policy's columns, and only it does")
        self.policy, self.critic = policy, critic
        self.columns = None if columns is None else torch.as_tensor(columns, device=next(policy.parameters()).device)

    def rows(self, obs: np.ndarray, bot_opponents: np.ndarray) -> np.ndarray:
        """The rows the model takes (and the buffer keeps) for env observations (B, D): the same arrays
        for a shared critic; with a perfect one the (B,) bool ``bot_opponents`` column appended."""
        if self.critic is None:
            return obs
        return np.concatenate([obs, bot_opponents[:, None].astype(obs.dtype)], axis=1)

    def policy_obs(self, obs: torch.Tensor) -> torch.Tensor:
        """The policy's own observation columns of env rows."""
        return obs if self.columns is None else obs.index_select(-1, self.columns)

    def __call__(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """obs (B, D) env rows -> (logits (B, A) of the policy, values (B,))."""
        if self.critic is None:
            return self.policy(obs)
        logits, _ = self.policy(self.policy_obs(obs))
        return logits, self.critic(obs)

    def modules(self) -> Iterator[nn.Module]:
        """The networks that train: the policy, then the critic if there is one."""
        yield self.policy
        if self.critic is not None:
            yield self.critic

    def train(self, mode: bool = True) -> None:
        for module in self.modules():
            module.train(mode)

    def eval(self) -> None:
        self.train(False)

    def make_optimizer(self, learning_rate: float) -> torch.optim.Adam:
        """Adam over the policy (param group 0) and the critic (group 1, if any)."""
        if self.critic is None:
            return torch.optim.Adam(self.policy.parameters(), lr=learning_rate, eps=1e-5)
        groups = [{"params": list(module.parameters())} for module in self.modules()]
        return torch.optim.Adam(groups, lr=learning_rate, eps=1e-5)

    def clip_grad_norm(self, max_norm: float) -> None:
        """Clip each network's gradient norm to ``max_norm`` on its own."""
        for module in self.modules():
            torch.nn.utils.clip_grad_norm_(module.parameters(), max_norm)
