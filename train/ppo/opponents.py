"""Who plays the learner's opponents in PPO, game by game: itself, the heuristic or a past snapshot of its network.

Below both the rollout (``train/ppo/rollout.py``) and the pairing of twin games (``train/ppo/pairing.py``), which draw
from it.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.heuristic import HeuristicAgent
from agents.neural import SpadesPolicy
from train.evaluation.network_eval import net_from
from train.ppo.config import PPOConfig

#: ``opponent`` codes of a game besides pool indices 0, 1, ...
SELF_PLAY, HEURISTIC = -1, -2


class Opponents:
    """Per game: the side the learner plays (``learner_side``) and who plays the others (``opponent``:
    ``SELF_PLAY``, ``HEURISTIC`` or an index into the opponent pool of past snapshots)."""

    def __init__(self, config: PPOConfig, n_sides: int, rng: np.random.Generator) -> None:
        self.config, self.n_sides, self.rng = config, n_sides, rng
        self.learner_side = np.zeros(config.num_envs, np.int64)
        self.opponent = np.full(config.num_envs, SELF_PLAY, np.int64)
        self.pool: list[dict[str, torch.Tensor]] = []
        self.pool_nets: list[SpadesPolicy] = []
        self.heuristic = HeuristicAgent(seed=config.seed)

    def restore(self, pool: list[dict[str, torch.Tensor]], like: SpadesPolicy, device: torch.device) -> None:
        """The pool of a checkpoint; its networks are built here (building one draws from torch's RNG,
        which the uninterrupted run did when each snapshot was taken: call this before restoring it)."""
        self.pool = pool
        self.pool_nets = [net_from(snapshot, like, device) for snapshot in pool]

    def draw(self, games: np.ndarray) -> None:
        """New learner side and opponents for the given games (at hand ends)."""
        config = self.config
        if len(games) == 0 or (config.heuristic_prob == 0 and (config.pool_prob == 0 or not self.pool)):
            return
        g = self.rng
        self.learner_side[games] = g.integers(self.n_sides, size=len(games))
        use_bot = g.random(len(games)) < config.heuristic_prob
        use_pool = (g.random(len(games)) < config.pool_prob) & (len(self.pool) > 0)
        snapshot = g.integers(max(1, len(self.pool)), size=len(games))
        self.opponent[games] = np.where(use_bot, HEURISTIC, np.where(use_pool, snapshot, SELF_PLAY))

    def add_snapshot(self, policy: SpadesPolicy, device: torch.device) -> None:
        """Put a copy of ``policy`` into the pool (dropping the oldest beyond ``pool_size``)."""
        snapshot = {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}
        if len(self.pool) >= self.config.pool_size:
            self.pool.pop(0)
            self.pool_nets.pop(0)
            self.opponent[self.opponent == 0] = SELF_PLAY
            self.opponent[self.opponent > 0] -= 1
        self.pool.append(snapshot)
        self.pool_nets.append(net_from(snapshot, policy, device))
