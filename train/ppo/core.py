"""The importable pieces of PPO self-play: masked distribution, GAE, loss, rollout buffer.

``train/ppo/trainer.py`` reads top to bottom and calls these; each is unit-tested in
``tests/train/ppo/test_ppo_core.py``. Spades is turn-based with several seats, so a
transition's successor is *the same seat's next decision in the same game*, not
the next row of the rollout: ``TurnBuffer`` keeps those chains and ``chained_gae``
follows them.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.neural import SpadesPolicy

__all__ = [
    "MaskedCategorical",
    "SpadesPolicy",
    "TurnBuffer",
    "chained_gae",
    "explained_variance",
    "gae",
    "ppo_loss",
]

# ----------------------------------------------------------- masked categorical


class MaskedCategorical:
    """A categorical distribution over legal actions only: illegal actions get probability exactly 0.

    logits (B, A) float, mask (B, A) bool with at least one True per row. Masked
    logits are set to the dtype's lowest finite value (not -inf) so that gradients
    stay finite; ``exp`` of them underflows to an exact zero.
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor) -> None:
        self.mask = mask
        low = torch.finfo(logits.dtype).min
        self.logits = torch.log_softmax(logits.masked_fill(~mask, low), dim=-1)
        self.probs = self.logits.exp()

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """(B,) log-probabilities of (B,) int64 actions."""
        return self.logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        """(B,) entropy over the legal actions (illegal ones contribute 0)."""
        plogp = torch.where(self.mask, self.probs * self.logits, torch.zeros_like(self.logits))
        return -plogp.sum(-1)

    def mode(self) -> torch.Tensor:
        """(B,) the most probable legal action."""
        return self.logits.argmax(-1)

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """(B,) int64 actions drawn with a NumPy generator (Gumbel-max), so runs replay exactly."""
        logits = self.logits.detach().float().cpu().numpy()
        gumbel = -np.log(-np.log(rng.random(logits.shape)))
        return np.argmax(np.where(self.mask.cpu().numpy(), logits + gumbel, -np.inf), axis=-1).astype(np.int64)


# ------------------------------------------------------------------------- GAE


def gae(
    rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, last_value: float, gamma: float, lam: float
) -> tuple[np.ndarray, np.ndarray]:
    """GAE along one chain of T transitions (the textbook form, for reference and tests).

    rewards, values (T,) float; dones (T,) bool: transition t ended the episode (its
    successor is not used); ``last_value`` bootstraps the transition after the last.
    Returns (advantages, returns), both (T,) float32.
    """
    t_len = len(rewards)
    adv = np.zeros(t_len, np.float64)
    last = 0.0
    for t in reversed(range(t_len)):
        next_value = last_value if t == t_len - 1 else values[t + 1]
        live = 1.0 - float(dones[t])
        delta = rewards[t] + gamma * next_value * live - values[t]
        last = delta + gamma * lam * live * last
        adv[t] = last
    return adv.astype(np.float32), (adv + values).astype(np.float32)


def chained_gae(
    rewards: np.ndarray,
    values: np.ndarray,
    dones: np.ndarray,
    next_row: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE where each transition's successor is given by a pointer, vectorized over games.

    All arrays are (R, B): row r is one decision per game b. ``next_row[r, b]`` is the
    row of the same seat's next decision in game b (always > r), or -1 if it is not
    known yet. ``dones[r, b]``: the transition ended its episode (no successor).
    A transition that is neither done nor has a successor is *open*: its advantage is
    0 and it must not be trained; a transition whose successor is open is bootstrapped
    from the successor's value (truncated GAE, as at the end of a CleanRL rollout).
    Returns (advantages, returns), both (R, B) float32.
    """
    n_rows, n_games = rewards.shape
    adv = np.zeros((n_rows, n_games), np.float64)
    cols = np.arange(n_games)
    for r in reversed(range(n_rows)):
        nxt = next_row[r]
        has_next = (nxt >= 0) & ~dones[r]
        at = np.where(has_next, nxt, r)
        next_value = np.where(has_next, values[at, cols], 0.0)
        next_adv = np.where(has_next, adv[at, cols], 0.0)
        delta = rewards[r] + gamma * next_value - values[r]
        closed = has_next | dones[r]
        adv[r] = np.where(closed, delta + gamma * lam * next_adv, 0.0)
    return adv.astype(np.float32), (adv + values).astype(np.float32)


# ------------------------------------------------------------------------ loss


def ppo_loss(
    new_logprob: torch.Tensor,
    old_logprob: torch.Tensor,
    advantages: torch.Tensor,
    new_value: torch.Tensor,
    old_value: torch.Tensor,
    returns: torch.Tensor,
    entropy: torch.Tensor,
    *,
    clip_coef: float,
    vf_coef: float,
    ent_coef: float,
    clip_vloss: bool = True,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The clipped PPO objective (CleanRL's form), all inputs (M,); returns (loss, stats).

    stats: ``policy_loss``, ``value_loss``, ``entropy``, ``approx_kl`` (the low-variance
    estimator ``(r - 1) - log r``), ``old_approx_kl`` and ``clipfrac``.
    """
    logratio = new_logprob - old_logprob
    ratio = logratio.exp()
    pg_loss = torch.max(-advantages * ratio, -advantages * ratio.clamp(1 - clip_coef, 1 + clip_coef)).mean()
    if clip_vloss:
        v_clipped = old_value + (new_value - old_value).clamp(-clip_coef, clip_coef)
        v_loss = 0.5 * torch.max((new_value - returns) ** 2, (v_clipped - returns) ** 2).mean()
    else:
        v_loss = 0.5 * ((new_value - returns) ** 2).mean()
    ent = entropy.mean()
    loss = pg_loss - ent_coef * ent + vf_coef * v_loss
    with torch.no_grad():
        stats = {
            "policy_loss": pg_loss.item(),
            "value_loss": v_loss.item(),
            "entropy": ent.item(),
            "old_approx_kl": (-logratio).mean().item(),
            "approx_kl": ((ratio - 1) - logratio).mean().item(),
            "clipfrac": ((ratio - 1.0).abs() > clip_coef).float().mean().item(),
        }
    return loss, stats


def explained_variance(pred: np.ndarray, target: np.ndarray) -> float:
    """1 - Var(target - pred) / Var(target); NaN when the target is constant (or empty: no decision of the kind)."""
    var = np.var(target) if np.size(target) else 0.0
    return float("nan") if var == 0 else float(1 - np.var(target - pred) / var)


# ---------------------------------------------------------------------- buffer


class TurnBuffer:
    """Rollout storage for a turn-based game with N seats, B games in lockstep.

    Row ``n_players + t`` holds step t of the rollout (one decision per game, by
    whichever seat was to move). Each seat's decisions in a game form a chain:
    ``next_row`` links a decision to the same seat's next one. Rewards arrive per
    seat (``add_rewards``) and are added to that seat's latest decision; an episode
    end closes every seat's chain in that game. Decisions still open when a rollout
    ends (their successor or reward not seen yet) move to the first ``n_players``
    rows ("carry" rows, one per seat) at ``start_rollout`` and are trained in the
    next update, once closed. Nothing is dropped and nothing is trained before its
    return is known.
    """

    FIELDS = (
        "obs", "mask", "action", "logprob", "value", "reward", "done", "next_row", "valid", "learn", "seat", "teacher",
    )  # fmt: skip
    #: Fields whose empty value is -1 (the others are 0).
    UNSET = ("next_row", "teacher")

    def __init__(self, num_envs: int, n_players: int, num_steps: int, obs_dim: int, n_actions: int) -> None:
        self.b, self.n, self.t_len = num_envs, n_players, num_steps
        rows = n_players + num_steps
        self.obs = np.zeros((rows, num_envs, obs_dim), np.float32)
        self.mask = np.zeros((rows, num_envs, n_actions), bool)
        self.action = np.zeros((rows, num_envs), np.int64)
        self.logprob = np.zeros((rows, num_envs), np.float32)
        self.value = np.zeros((rows, num_envs), np.float32)
        self.reward = np.zeros((rows, num_envs), np.float32)
        self.done = np.zeros((rows, num_envs), bool)
        self.next_row = np.full((rows, num_envs), -1, np.int64)
        self.valid = np.zeros((rows, num_envs), bool)
        """(R, B) bool: the row holds a decision."""
        self.learn = np.zeros((rows, num_envs), bool)
        """(R, B) bool: the decision was taken by the learning policy (not a pool opponent)."""
        self.seat = np.zeros((rows, num_envs), np.int64)
        self.teacher = np.full((rows, num_envs), -1, np.int64)
        """(R, B) int64: the action a teacher (HeuristicAgent, ``card_anchor``) takes in the decision's position,
        which the update pulls the policy toward; -1: none."""
        self.last = np.full((num_envs, n_players), -1, np.int64)
        """(B, N) int64: row of each seat's latest, still open decision, -1 if none."""
        self.t = 0
        self._cols = np.arange(num_envs)

    def start_rollout(self) -> None:
        """Move the open decisions into the carry rows and clear everything else."""
        games, seats = np.nonzero(self.last >= 0)
        rows = self.last[games, seats]
        kept = {name: getattr(self, name)[rows, games].copy() for name in self.FIELDS}
        for name in self.FIELDS:
            arr = getattr(self, name)
            arr[...] = -1 if name in self.UNSET else 0
        for name, values in kept.items():
            getattr(self, name)[seats, games] = values
        self.last[games, seats] = seats
        self.t = 0

    def add(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        action: np.ndarray,
        logprob: np.ndarray,
        value: np.ndarray,
        seat: np.ndarray,
        learn: np.ndarray,
        live: np.ndarray | None = None,
        teacher: np.ndarray | None = None,
    ) -> None:
        """Store one decision per game (each (B, ...)); link it to its seat's previous decision.

        ``live`` (B,) bool: the games that took a decision this step (None: all); the others (a
        finished match waiting for its paired game, ``train/ppo/pairing.py``) get an empty row.
        ``teacher`` (B,) int64: a teacher's action per game, -1 where none (None: none at all).
        """
        if self.t >= self.t_len:
            raise IndexError(f"the rollout holds {self.t_len} steps; call start_rollout() first")
        row = self.n + self.t
        self.obs[row], self.mask[row], self.action[row] = obs, mask, action
        self.logprob[row], self.value[row], self.seat[row] = logprob, value, seat
        self.teacher[row] = -1 if teacher is None else teacher
        cols = self._cols
        if live is None:
            self.valid[row], self.learn[row] = True, learn
        else:
            self.valid[row], self.learn[row] = live, learn & live
            cols, seat = cols[live], seat[live]
        prev = self.last[cols, seat]
        linked = prev >= 0
        self.next_row[prev[linked], cols[linked]] = row
        self.last[cols, seat] = row
        self.t += 1

    def add_rewards(self, rewards: np.ndarray, episode_end: np.ndarray) -> None:
        """Credit (B, N) per-seat rewards to each seat's latest decision; (B,) bool episode ends close the chains."""
        games, seats = np.nonzero(self.last >= 0)
        rows = self.last[games, seats]
        self.reward[rows, games] += rewards[games, seats]
        end = episode_end[games]
        self.done[rows[end], games[end]] = True
        self.last[episode_end] = -1

    def trainable(self) -> np.ndarray:
        """(R, B) bool: decisions of the learner whose return is known."""
        return self.valid & self.learn & (self.done | (self.next_row >= 0))

    def advantages(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """(advantages, returns), each (R, B) float32 (see ``chained_gae``)."""
        return chained_gae(self.reward, self.value, self.done, self.next_row, gamma, lam)

    def state_dict(self) -> dict[str, np.ndarray | int]:
        """The carry rows and chain heads, for checkpoints; only valid between rollouts (right after
        ``start_rollout``), where nothing else is held."""
        if self.t != 0:
            raise RuntimeError("checkpoint the buffer between rollouts, right after start_rollout()")
        return {name: getattr(self, name)[: self.n].copy() for name in self.FIELDS} | {"last": self.last.copy()}

    def load_state_dict(self, data: dict) -> None:
        """Restore what ``state_dict`` returned."""
        self.start_rollout()
        for name in self.FIELDS:
            if name in data:  # a checkpoint from before ``teacher`` existed holds none: -1 stays
                getattr(self, name)[: self.n] = data[name]
        self.last[...] = data["last"]
