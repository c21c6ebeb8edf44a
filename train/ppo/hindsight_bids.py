"""Bids learned in hindsight in PPO self-play (``bid_learning: hindsight``): no teacher, no rollouts.

From scratch, PPO's bids collapse: the bid is one decision in fourteen, its return carries the whole hand's card
luck, and within a million decisions the bidding head bids the same number with every hand (measured: greedy 2 in
all 2048 seats of 512 games at update 275 of ``selfplay_paired.yaml``; its bids under the heuristic's card play
-19.8 points a hand against the heuristic's). A bid's effect on the score, though, is known once the hand is over:
the rules score any bid against the tricks as they fell. So each regular bid of the learner is kept until its hand
ends, and then **every candidate bid** is scored with that hand's tricks, the other bids, blind nils, Bemo and bags
as they were (``spades_env.games.spades.scoring.score_hand``, bag-adjusted as tournaments score): the side's points
each bid would have made. The bidding head's outputs, read as values, regress those, centred on each decision's
mean (``train.values.bid_values.centred_value_loss``: the candidates share the deal and the card play), and the learner
bids greedily on them, a share ``bid_explore`` of its bids a uniformly random legal bid. Those bids leave PPO's
loss; blind nil and Bemo stay in it.

The hindsight value of a bid the seat did not make assumes that the cards would have fallen the same way, which the
bid itself changes: a seat that bids nil plays to lose its tricks, so nil is valued low where the seat played for
tricks, and every other bid low where it played for nil (``hindsight_nil: scored``, the default, values them so all
the same). ``hindsight_nil: played`` values nil only where the seat bid it (exactly: the hand as it was played) and
the other bids only where it did not, so the candidates of a decision no longer share one scale: the outputs regress
the values themselves (``absolute_value_loss``), not their differences. ``NeuralAgent`` plays the greedy bid.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from agents.search_rollouts import side_margin
from spades_env import games
from train.values.bid_values import centred_value_loss

#: Points per unit of the bidding head's values (as ``BidValuesConfig.value_scale``).
VALUE_SCALE = 100.0


def hindsight_values(engine: Any, finished: Any, index: np.ndarray, seats: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """(M, K) float32: for hand ``index`` (M,) of ``finished`` (``FinishedHands``) and the bidder ``seats`` (M,),
    the bag-adjusted points of the seat's side minus the other sides' mean had it bid each candidate ``cand`` (M, K)
    bool (bid k tricks, 0 = nil) with every trick as it fell; 0 off the candidates."""
    rows, k = np.nonzero(cand)
    hand = index[rows]
    bids = finished.bids[hand].copy()
    bids[np.arange(len(rows)), seats[rows]] = k
    score = games.part(engine.rules.game, "scoring").score_hand(
        engine.rules, bids, finished.blind[hand], finished.tricks_won[hand], finished.start_bags[hand],
        finished.trick_winners[hand], finished.bemo[hand],
    )  # fmt: skip
    adjusted = engine.spec.adjusted_points(engine.rules, score)
    out = np.zeros(cand.shape, np.float32)
    out[rows, k] = side_margin(adjusted, engine.side_of_seat[seats[rows]])
    return out


class HindsightBids:
    """The learner's open bids (per game and seat: its row as the buffer keeps it and its candidates) and the
    examples of the hands finished since the last update (``take``)."""

    def __init__(self, num_envs: int, n_players: int, row_dim: int, n_bids: int) -> None:
        self.rows = np.zeros((num_envs, n_players, row_dim), np.float32)
        self.cand = np.zeros((num_envs, n_players, n_bids), bool)
        self.open = np.zeros((num_envs, n_players), bool)
        self.examples: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def record(self, games: np.ndarray, seats: np.ndarray, rows: np.ndarray, cand: np.ndarray) -> None:
        """The bids of ``seats`` in ``games`` (their buffer ``rows`` and candidates ``cand``) wait for their hands."""
        self.rows[games, seats], self.cand[games, seats], self.open[games, seats] = rows, cand, True

    def finish(self, engine: Any, finished: Any, nil: str = "scored") -> None:
        """Each open bid of the hands in ``finished`` becomes an example, valued by ``hindsight_values``; with ``nil``
        ``played`` its valued candidates are nil alone where the seat bid nil, the others where it did not."""
        hand, seat = np.nonzero(self.open[finished.games])
        if not len(hand):
            return
        games = finished.games[hand]
        cand = self.cand[games, seat]
        values = hindsight_values(engine, finished, hand, seat, cand)
        taken = finished.bids[hand, seat]
        if nil == "played":
            bid_nil = taken == 0
            cand = cand.copy()
            cand[:, 1:] &= ~bid_nil[:, None]
            cand[:, 0] &= bid_nil
        self.examples.append((self.rows[games, seat], cand, values, taken))
        self.open[games, seat] = False

    def take(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
        """(rows, candidates, values, bids taken) of every example since the last call (None if there is none)."""
        if not self.examples:
            return None
        parts = [np.concatenate(part) for part in zip(*self.examples, strict=True)]
        self.examples = []
        return parts[0], parts[1], parts[2], parts[3]

    def state_dict(self) -> dict[str, np.ndarray]:
        """The open bids (the examples are taken by every update, before a checkpoint)."""
        return {"rows": self.rows, "cand": self.cand, "open": self.open}

    def load_state_dict(self, state: dict[str, np.ndarray]) -> None:
        self.rows, self.cand, self.open = state["rows"], state["cand"], state["open"]


def absolute_value_loss(q: torch.Tensor, cand: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """Mean over decisions of the mean squared error between the outputs ``q`` (B, K) and the targets ``values``
    (B, K) over each decision's valued candidates ``cand`` (B, K) bool (a decision without one counts 0)."""
    c = cand.to(q.dtype)
    n = c.sum(dim=1).clamp(min=1)
    return ((((q - values) * c).square().sum(dim=1)) / n).mean()


def hindsight_loss(model: Any, examples: tuple, bid_offset: int, device: torch.device, nil: str = "scored"):
    """The value loss of the bidding head's outputs (the policy's logits from ``bid_offset`` on, one per candidate
    column) on example rows (rows, valued candidates, values) toward the values in ``VALUE_SCALE`` units:
    ``centred_value_loss``, or with ``nil`` ``played`` ``absolute_value_loss``."""
    rows, cand, values = (torch.as_tensor(x, device=device) for x in examples[:3])
    logits = model.policy.action_logits(model.policy_obs(rows))[:, bid_offset : bid_offset + cand.shape[1]]
    loss = absolute_value_loss if nil == "played" else centred_value_loss
    return loss(logits, cand, values / VALUE_SCALE)


def hindsight_scalars(examples: tuple | None) -> dict[str, float]:
    """``bidding/hindsight_regret``: the mean points the bids taken left against each decision's best valued
    candidate in hindsight (over the decisions with more than one); ``bidding/hindsight_bids``: how many bids were
    valued."""
    if examples is None:
        return {}
    _, cand, values, taken = examples
    full = cand.sum(axis=1) > 1  # with hindsight_nil: played a nil bid is its only valued candidate
    if not full.any():
        return {"bidding/hindsight_bids": float(len(taken))}
    cand, values, taken = cand[full], values[full], taken[full]
    best = np.where(cand, values, -np.inf).max(axis=1)
    made = values[np.arange(len(taken)), taken]
    return {"bidding/hindsight_regret": float((best - made).mean()), "bidding/hindsight_bids": float(len(taken))}
