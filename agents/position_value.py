"""A position value: a small network that estimates, from a whole layout, what the rest of a Spades hand is worth.

The guided search (``agents.guided``) rolls every (layout, candidate card) out with the learned network's play and
scores the hand's end: the deciding side's bag-adjusted points minus the others' mean (``side_margin``). With
``depth=k`` and ``leaf=value`` it plays only ``k`` plies after the candidate and asks this network instead: it reads
the whole layout of the rollout game (every hand, which only a sampled layout may show), the trick in progress, the
bids and the tricks taken, from the deciding seat's side (``position_features``), and returns the margin the hand
will end with, in points (``PositionValue.points``). ``train.values.position_value`` trains it on positions of the
learned network's self-play labelled with the hand's result; ``docs/models/`` has the card of each committed one.

The features are Spades only (Hearts: no bids, penalty points) and of the hand alone: bag-adjusted points do not
depend on the match score or on the bags before the hand.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from agents.checkpoint_io import CheckpointError, read_checkpoint
from spades_env import cards
from spades_env.engine import GameState, SpadesEngine
from spades_env.rules import Rules

#: The layout of ``position_features`` (stored in the checkpoints as their ``obs_version``).
FEATURES_VERSION = 1
#: What a position value checkpoint's ``config`` names as its ``kind``.
KIND = "position_value"
#: Points per unit of the network's output.
VALUE_SCALE = 100.0
#: Scalar features (bids, tricks, cards) are stored as small integers and divided by this.
COUNT_SCALE = 13.0
#: Suits counted per hand (the jokers, where there are any, count with spades).
N_SUITS = 4


def feature_size(engine: SpadesEngine) -> int:
    """The width of ``position_features`` at ``engine``'s table."""
    n, c = engine.n_players, engine.layout.n_card_ids
    return 2 * n * c + 2 * n + 4 * n + 1 + 1 + 4 + N_SUITS * n + 6 * n


def position_features(engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(B, ``feature_size``) uint8: games ``games`` of ``state`` (in PLAY) seen from ``seats`` (seat 0 of the
    features: the seats are rotated so that the seat follows its own, then the next seat to play, ...):

    every seat's hand (N x C bits) and its card in the trick in progress (N x C), the seat to move and the leader
    (N each, one-hot), each seat's bid (0 before it bid), nil, blind nil and tricks taken (4 x N), the tricks
    played, spades broken and the suit led (4, one-hot); then what the score reads, spelt out: each seat's cards
    of each suit (4 x N), whether its nil stands and whether it is broken, its side's bid and tricks, the tricks
    its side still needs and those it has over (6 x N). Counts are integers: ``input_scales`` scales them."""
    if not engine.rules.has_bidding:
        raise ValueError(
            f"position_features need a game with bidding (they read the bids), got table {engine.rules.name!r}"
        )
    games = np.asarray(games, dtype=np.int64)
    seats = np.asarray(seats, dtype=np.int64)
    n, c = engine.n_players, engine.layout.n_card_ids
    order = (seats[:, None] + np.arange(n)) % n  # (B, N): feature seat k is table seat order[:, k]
    rows = games[:, None]
    hands = state.hands[rows, order]
    hand_bits = np.unpackbits(hands.astype("<u8").view(np.uint8).reshape(len(games), n, 8), axis=2, bitorder="little")
    trick = state.trick[rows, order]
    trick_bits = np.zeros((len(games), n, c), np.uint8)
    b, k = np.nonzero(trick >= 0)
    trick_bits[b, k, trick[b, k]] = 1
    relative = np.arange(n)
    to_move = ((state.to_move[games] - seats) % n)[:, None] == relative
    leader = ((state.leader[games] - seats) % n)[:, None] == relative
    bids = state.bids[rows, order]
    won = state.tricks_won[rows, order]
    led = state.led_suit[games][:, None] == np.arange(4)
    r = cards.N_RANKS
    suit_counts = [hand_bits[:, :, s * r : (s + 1) * r if s < N_SUITS - 1 else c].sum(axis=2) for s in range(N_SUITS)]
    side = engine.side_of_seat[order]  # (B, N) the side of each feature seat
    same = side[:, :, None] == side[:, None, :]  # (B, N, N) feature seats on one side
    side_bid = (same * np.maximum(bids, 0)[:, None, :]).sum(axis=2)
    side_won = (same * won[:, None, :]).sum(axis=2)
    parts = [
        hand_bits[:, :, :c].reshape(len(games), -1),
        trick_bits.reshape(len(games), -1),
        to_move,
        leader,
        np.maximum(bids, 0),
        bids == 0,
        state.blind[rows, order],
        won,
        state.n_tricks[games][:, None],
        state.spades_broken[games][:, None],
        led,
        *suit_counts,
        (bids == 0) & (won == 0),
        (bids == 0) & (won > 0),
        side_bid,
        side_won,
        np.maximum(side_bid - side_won, 0),
        np.maximum(side_won - side_bid, 0),
    ]
    return np.concatenate([np.asarray(p, dtype=np.uint8) for p in parts], axis=1)


def led_suit_column(engine: SpadesEngine) -> int:
    """The first of ``position_features``' four suit-led columns; the cards of each suit follow them (4 x N)."""
    n, c = engine.n_players, engine.layout.n_card_ids
    return 2 * n * c + 6 * n + 2


def input_scales(engine: SpadesEngine) -> np.ndarray:
    """(``feature_size``,) float32 what each feature is multiplied by as a network input (counts / 13)."""
    n, c = engine.n_players, engine.layout.n_card_ids
    scales = np.ones(feature_size(engine), np.float32)
    start = 2 * n * c + 2 * n
    scales[start : start + n] = 1 / COUNT_SCALE  # bids
    scales[start + 3 * n : start + 4 * n + 1] = 1 / COUNT_SCALE  # tricks taken, tricks played
    tail = start + 4 * n + 1 + 1 + 4
    scales[tail : tail + N_SUITS * n] = 1 / COUNT_SCALE  # cards of each suit
    scales[tail + N_SUITS * n + 2 * n :] = 1 / COUNT_SCALE  # side bids, tricks, needed, over
    return scales


class PositionValue(nn.Module):
    """An MLP from ``position_features`` (scaled by ``input_scales``) to the hand's margin / ``VALUE_SCALE``."""

    def __init__(self, n_features: int, hidden: int = 256, depth: int = 2) -> None:
        super().__init__()
        self.n_features, self.hidden, self.depth = int(n_features), int(hidden), int(depth)
        layers: list[nn.Module] = []
        width = self.n_features
        for _ in range(self.depth):
            layers += [nn.Linear(width, self.hidden), nn.ReLU()]
            width = self.hidden
        self.body = nn.Sequential(*layers, nn.Linear(width, 1))
        self.register_buffer("scales", torch.ones(self.n_features))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """(B,) the scaled value of (B, n_features) features (any numeric dtype)."""
        return self.body(features.float() * self.scales).squeeze(-1)

    def hyperparameters(self) -> dict[str, int]:
        return {"n_features": self.n_features, "hidden": self.hidden, "depth": self.depth}

    def points(self, engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(B,) float64 the estimated margin of ``seats``' side at the end of the hand of each game, in points."""
        features = torch.from_numpy(position_features(engine, state, games, seats))
        with torch.no_grad():
            return self(features).double().numpy() * VALUE_SCALE


def load_position_value(path: str | Path, engine: SpadesEngine) -> PositionValue:
    """The position value network of checkpoint ``path`` for ``engine``'s table (CheckpointError: not one; ValueError:
    trained on other rules or another feature layout)."""
    ckpt = read_checkpoint(path)
    if (ckpt.get("config") or {}).get("kind") != KIND:
        raise CheckpointError(f"checkpoint {path} is not a position value network (its config's kind is not {KIND!r})")
    if ckpt["obs_version"] != FEATURES_VERSION:
        raise ValueError(f"{path}: position features version {ckpt['obs_version']}, this code reads {FEATURES_VERSION}")
    rules = Rules.from_dict(ckpt["rules"], source=f"checkpoint {path}")
    if rules != engine.rules:  # the scoring (nil, bags, ...) is part of the value
        raise ValueError(f"{path} values {rules.name!r} positions, not the table's {engine.rules.name!r}")
    net = PositionValue(**ckpt["model_hparams"])
    net.load_state_dict({k: v.float() for k, v in ckpt["model"].items()})
    if net.n_features != feature_size(engine):
        raise ValueError(f"{path} reads {net.n_features} features, the table's positions have {feature_size(engine)}")
    return net.eval()
