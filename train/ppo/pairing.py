"""Duplicate-paired games for PPO (``paired: true``): each deal played twice, the twin's result as a baseline.

Games ``2k`` and ``2k + 1`` are twins: they start from the same seed and restart their matches
together (a game whose match ended waits, taking no decision, until its twin's ends too), so
hand ``h`` of a match deals every seat the same cards in both (deals are a function of the key
and the hand number, ``spades_env.engine.dealing``). Where a hand's opponents are bots, the
twin's learner plays the other side (``draw_opponents``): the cards its twin's opponents held,
as a duplicate tournament seats them (``train/evaluation/tournament.py``).

A seat's reward for a hand becomes ``own - pair_weight * twin``, where ``twin`` is the reward of
the same seat, with the same cards, in the twin game: the card luck both share cancels (the
duplicate idea of bridge and of this project's tournaments). GAE then runs on these rewards as
before, mixing the paired returns with the critic's values. The twin's reward is independent of
the own game's actions, so the policy gradient stays unbiased. The last decision of a hand whose
twin has not ended it by the end of the rollout is not trained (``end_rollout``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spades_env.engine import OVER, dealing
from train.ppo.core import TurnBuffer
from train.ppo.opponents import HEURISTIC, SELF_PLAY, Opponents

#: ``dealing.stream`` salts of the twins' common draws of a hand's opponents ("PAIRSIDE", "PAIRBOT_").
SIDE_SALT, BOT_SALT = 0x50414952_53494445, 0x50414952_424F545F


def _uniform(bits: np.ndarray) -> np.ndarray:
    """Uniform floats in [0, 1) from uint64 hashes (their top 53 bits)."""
    return (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53


class PairedGames:
    """The twins' hand results of the current matches, and what pairs them (``credit``)."""

    def __init__(self, num_envs: int, n_players: int, weight: float) -> None:
        if num_envs % 2:
            raise ValueError(f"paired games need an even num_envs, got {num_envs}")
        self.weight = np.float32(weight)
        self.hand = np.full((num_envs, n_players), -1, np.int64)
        """(B, N): the hand number of each seat's last finished hand in the current match (-1: none)."""
        self.reward = np.zeros((num_envs, n_players), np.float32)
        """(B, N): that hand's reward (scaled, unpaired)."""
        self.pending = np.full((num_envs, n_players), -1, np.int64)
        """(B, N): the buffer row holding that reward while the twin has not ended the hand (this rollout)."""
        self.rewards_paired = self.rewards_seen = 0
        """Seat-hand rewards paired and seen since the last ``scalars``."""

    @staticmethod
    def seeds(seed: int, num_envs: int) -> np.ndarray:
        """(B,) uint64 match seeds: ``seed + k`` for both games ``2k`` and ``2k + 1``."""
        return np.uint64(seed) + (np.arange(num_envs, dtype=np.uint64) // np.uint64(2))

    def credit(
        self, buffer: TurnBuffer, rewards: np.ndarray, hand_done: np.ndarray, hand_number: np.ndarray
    ) -> np.ndarray:
        """The paired (B, N) rewards of a step, to credit with ``buffer.add_rewards``.

        ``rewards`` (B, N) scaled, ``hand_done`` (B,) bool, ``hand_number`` (B,) the hand each game
        played in the step. A twin that ended the hand earlier in this rollout gets its reward in
        ``buffer`` paired now.
        """
        out = rewards.copy()
        games = np.flatnonzero(hand_done)
        if not len(games):
            return out
        w, twin, h = self.weight, games ^ 1, hand_number[games]
        r = rewards[games]
        together = hand_done[twin] & (hand_number[twin] == h)  # the twin ends the same hand in this step
        out[games[together]] = r[together] - w * rewards[twin[together]]
        stored = ~together[:, None] & (self.hand[twin] == h[:, None])  # (G, N): the twin ended it earlier
        gi, si = np.nonzero(stored)
        g, t = games[gi], twin[gi]
        out[g, si] = r[gi, si] - w * self.reward[t, si]
        rows = self.pending[t, si]
        has = rows >= 0
        buffer.reward[rows[has], t[has]] -= w * r[gi[has], si[has]]
        self.pending[t[has], si[has]] = -1
        self.rewards_paired += int(together.sum()) * rewards.shape[1] + len(gi) + int(has.sum())
        self.rewards_seen += r.size
        gi, si = np.nonzero(~together[:, None] & ~stored)  # the twin ends it later: wait for it
        self.pending[games[gi], si] = buffer.last[games[gi], si]  # the row the reward goes to
        self.hand[games] = h[:, None]
        self.reward[games] = r
        return out

    def scalars(self) -> dict[str, float]:
        """``charts/paired_fraction``: the share of seat-hand rewards paired with their twin's (since the last call;
        the others, whose twin ended the hand after the rollout, kept their own)."""
        fraction = self.rewards_paired / self.rewards_seen if self.rewards_seen else float("nan")
        self.rewards_paired = self.rewards_seen = 0
        return {"charts/paired_fraction": fraction}

    def end_rollout(self, buffer: TurnBuffer) -> None:
        """The rollout ends: the last decision of a hand still waiting for its twin is not trained (it is
        made open again, so that the seat's earlier decisions bootstrap from its value): every reward
        trained on is a paired one. (The twin, when it ends the hand, is still paired with it.)"""
        games, seats = np.nonzero(self.pending >= 0)
        buffer.done[self.pending[games, seats], games] = False
        self.pending[...] = -1

    def restart_finished(self, envs: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """Start new matches in the twins whose matches have both ended (the same new seed for both,
        drawn from their key); returns the env's (obs, info) then, else None."""
        over = envs.state.phase == OVER
        both = over & over[np.arange(len(over)) ^ 1]
        if not both.any():
            return None
        self.hand[both] = -1
        seeds = dealing.splitmix64(envs.state.key.copy())
        return envs.reset(seed=seeds, options={"reset_mask": both})

    @staticmethod
    def draw_opponents(opponents: Opponents, state: Any, games: np.ndarray) -> None:
        """Learner side and opponents of the hand the given games start, from their key and hand number,
        so that twins draw alike; the odd twin's learner plays the next side."""
        config = opponents.config
        if len(games) == 0 or config.heuristic_prob == 0:
            return
        keys, hands = state.key[games], state.hand_number[games]
        u_side, u_bot = (_uniform(dealing.stream(keys, hands, salt)) for salt in (SIDE_SALT, BOT_SALT))
        n = opponents.n_sides
        side = np.minimum((u_side * n).astype(np.int64), n - 1)
        opponents.learner_side[games] = (side + (games & 1)) % n
        opponents.opponent[games] = np.where(u_bot < config.heuristic_prob, HEURISTIC, SELF_PLAY)

    def state_dict(self) -> dict[str, np.ndarray]:
        """The twins' results, for checkpoints (between rollouts, where nothing is pending)."""
        return {"hand": self.hand.copy(), "reward": self.reward.copy()}

    def load_state_dict(self, data: dict[str, np.ndarray]) -> None:
        self.hand[...], self.reward[...] = data["hand"], data["reward"]
        self.pending[...] = -1
