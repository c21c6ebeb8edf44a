"""Bidding statistics of the hands a PPO run plays (``bidding/*`` TensorBoard scalars)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class HandStats:
    """Bidding statistics of the hands finished since the last log (partnership or cutthroat)."""

    hands: int = 0
    bids: float = 0.0
    bid_count: int = 0
    sides: int = 0
    contracts: int = 0
    sets: int = 0
    bags: float = 0.0
    nils: int = 0
    nils_made: int = 0
    blind_nils: int = 0
    seat_bids: int = 0
    points: float = 0.0

    def add(self, finished: Any, side_of_seat: np.ndarray, n_sides: int, has_bidding: bool = True) -> None:
        """Count the hands of an ``engine.FinishedHands`` (bags, sets and nils as the engine scored them; only the
        hands, sides and points in a game without bidding, ``rules.has_bidding`` False: Hearts)."""
        self.hands += len(finished.games)
        self.sides += len(finished.games) * n_sides
        self.points += float(finished.delta.sum())
        if has_bidding:
            self._add_bids(finished, side_of_seat, n_sides)

    def _add_bids(self, finished: Any, side_of_seat: np.ndarray, n_sides: int) -> None:
        bids, blind = finished.bids, finished.blind
        nil = bids == 0  # nil and blind nil
        onehot = np.eye(n_sides, dtype=np.int64)[side_of_seat]  # (N, S)
        has_contract = np.where(nil, 0, bids) @ onehot > 0
        self.bids += float(bids[~nil].sum())
        self.bid_count += int((~nil).sum())
        self.contracts += int(has_contract.sum())
        self.sets += int((has_contract & ~finished.made).sum())
        self.bags += float(finished.bags_added.sum())
        self.seat_bids += bids.size
        self.nils += int(nil.sum())
        self.nils_made += int(finished.nil_made.sum())
        self.blind_nils += int(blind.sum())

    def scalars(self) -> dict[str, float]:
        """``bidding/*`` scalars (empty when no hand finished)."""
        if not self.hands:
            return {}
        return {
            "bidding/mean_bid": self.bids / max(1, self.bid_count),
            "bidding/set_rate": self.sets / max(1, self.contracts),
            "bidding/bags_per_hand": self.bags / self.sides,
            "bidding/nil_rate": self.nils / max(1, self.seat_bids),
            "bidding/nil_success": self.nils_made / self.nils if self.nils else float("nan"),
            "bidding/blind_nil_rate": self.blind_nils / max(1, self.seat_bids),
            "bidding/points_per_side_hand": self.points / self.sides,
            "bidding/hands": float(self.hands),
        }
