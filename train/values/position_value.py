"""Train a position value network (``agents.position_value``) on the learned network's self-play.

``self_play_positions`` plays seeded hands in which every seat is the ``learned`` bot (greedy: the play the guided
search's rollouts use), keeps each PLAY position with probability ``keep`` seen from a random seat
(``position_features``) and labels it with that seat's side's bag-adjusted margin at the hand's end
(``side_margin``: what a guided rollout scores). ``train_position_value`` fits the network to the labels (mean
squared error in units of ``VALUE_SCALE`` points, Adam, the last ``holdout`` of the hands held out) and writes a
checkpoint (``agents.checkpoint_io``'s format, ``config.kind`` = ``position_value``). ``spades position-value``
runs both.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.learned import LearnedAgent
from agents.position_value import (
    FEATURES_VERSION,
    KIND,
    VALUE_SCALE,
    PositionValue,
    feature_size,
    input_scales,
    led_suit_column,
    position_features,
)
from agents.search_rollouts import hand_values, side_margin
from spades_env import cards
from spades_env.engine import OVER, PLAY, SpadesEngine
from spades_env.envs.context import DecisionContext
from spades_env.observation import encoder_for
from train.runs.checkpoint import CHECKPOINT_FORMAT, save_checkpoint


@dataclass(frozen=True)
class PositionValueConfig:
    """What ``train_position_value`` does (``spades position-value`` options)."""

    rules: str = "partnership"
    hands: int = 32768
    """Self-play hands (the last ``holdout`` of them held out for the validation loss)."""
    batch_hands: int = 2048
    """Hands played in one engine batch."""
    keep: float = 0.75
    """Probability that a PLAY position is kept (fewer, less correlated positions per hand)."""
    hidden: int = 256
    depth: int = 2
    epochs: int = 5
    batch_size: int = 1024
    lr: float = 1e-3
    holdout: float = 0.1
    seed: int = 0
    threads: int = 1
    """torch's CPU threads (the self-play's network and the training)."""

    def __post_init__(self) -> None:
        for name in ("hands", "batch_hands", "hidden", "depth", "epochs", "batch_size", "threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"position-value option {name!r} must be a positive integer, got {value!r}")
        for name, low, high in (("keep", 0.0, 1.0), ("holdout", 0.0, 0.5), ("lr", 0.0, 1.0)):
            value = getattr(self, name)
            if not low < value <= high:
                raise ValueError(f"position-value option {name!r} must be in ({low}, {high}], got {value!r}")


def self_play_positions(
    engine: SpadesEngine, seeds: np.ndarray, keep: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features (P, F) uint8, labels (P,) float64 points, hand (P,) index into ``seeds``): the kept positions of
    one hand per seed, every seat played by the greedy ``learned`` bot."""
    player = LearnedAgent(seed=0)
    player.check_supports(engine)
    encoder = encoder_for(engine)
    state = engine.reset(seeds)
    g_all = len(seeds)
    margins = np.full((g_all, engine.n_players), np.nan)  # each seat's side's margin once the hand is over
    live = np.ones(g_all, bool)
    features, games, seats = [], [], []
    while live.any():
        rows = np.flatnonzero(live)
        seat = state.to_move[rows]
        playing = rows[(state.phase[rows] == PLAY) & (rng.random(len(rows)) < keep)]
        if len(playing):
            view = rng.integers(0, engine.n_players, len(playing))
            features.append(position_features(engine, state, playing, view))
            games.append(playing)
            seats.append(view)
        masks = engine.legal_action_mask(state)
        actions = np.argmax(masks, axis=1)  # a legal filler for the finished games
        obs = encoder.encode(state, rows, seat)
        actions[rows] = player.act(obs, masks[rows], DecisionContext(engine, state, rows, seat))
        for f in engine.step(state, actions, validate=False).finished:
            first = live[f.games]
            g = f.games[first]
            points = hand_values(engine, f, first)
            for s in range(engine.n_players):
                margins[g, s] = side_margin(points, np.full(len(g), engine.side_of_seat[s]))
            live[g] = False
        live &= state.phase != OVER
    games_all, seats_all = np.concatenate(games), np.concatenate(seats)
    return np.concatenate(features), margins[games_all, seats_all], games_all


def train_position_value(config: PositionValueConfig, out: str | Path, log=print) -> dict[str, Any]:
    """Play the self-play hands, fit the network, write its checkpoint to ``out``; the run's summary (losses in
    points squared, positions, seconds)."""
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    rng = np.random.default_rng(config.seed)
    engine = SpadesEngine(config.rules)
    if not engine.rules.has_bidding:
        raise ValueError(f"position-value: --rules needs a game with bidding, got table {engine.rules.name!r}")
    start = time.perf_counter()
    parts = []
    for first in range(0, config.hands, config.batch_hands):
        seeds = np.arange(first, min(first + config.batch_hands, config.hands)) + 1_000_000 * (config.seed + 1)
        x, y, hand = self_play_positions(engine, seeds, config.keep, rng)
        parts.append((x, y, hand + first))
        log(f"self-play: {first + len(seeds)}/{config.hands} hands, {time.perf_counter() - start:.0f} s")
    x, y, hand = (np.concatenate(p) for p in zip(*parts, strict=True))
    held = hand >= config.hands * (1 - config.holdout)
    net = PositionValue(x.shape[1], config.hidden, config.depth)
    net.scales.copy_(torch.from_numpy(input_scales(engine)))
    summary = fit(net, engine, x[~held], y[~held] / VALUE_SCALE, x[held], y[held] / VALUE_SCALE, config, log)
    summary |= {"positions": len(x), "seconds": round(time.perf_counter() - start, 1)}
    save_checkpoint(
        out,
        {
            "format": CHECKPOINT_FORMAT,
            "rules": engine.rules.to_dict(),
            "obs_version": FEATURES_VERSION,
            "config": {"kind": KIND, **asdict(config), "summary": summary},
            "model_hparams": net.hyperparameters(),
            "model": {k: v.detach().clone() for k, v in net.state_dict().items()},
            "global_step": int(summary["steps"]),
        },
    )
    log(f"wrote {out}: {summary}")
    return summary


def suit_permutations(engine: SpadesEngine) -> torch.Tensor:
    """(6, F) int64 feature column orders that swap the three suits other than spades (trumps) in every card block
    and in the suit led: the same position with its plain suits renamed, which the value should barely tell apart
    (the network's play is not exactly symmetric; training on all six is data augmentation)."""
    n, c = engine.n_players, engine.layout.n_card_ids
    size = feature_size(engine)
    plain = [suit for suit in range(4) if suit != cards.SPADES]
    orders = []
    for perm in itertools.permutations(plain):
        suit_to = np.arange(4)
        suit_to[plain] = perm
        card_to = np.arange(c)
        for card in range(min(c, 4 * cards.N_RANKS)):
            card_to[card] = suit_to[card // cards.N_RANKS] * cards.N_RANKS + card % cards.N_RANKS
        order = np.arange(size)
        for block in range(2 * n):  # hands, then the trick in progress
            order[block * c + card_to] = block * c + np.arange(c)
        led = led_suit_column(engine)
        order[led + suit_to] = led + np.arange(4)
        counts = led + 4  # the cards of each suit, N seats per suit
        for suit in range(4):
            order[counts + suit_to[suit] * n + np.arange(n)] = counts + suit * n + np.arange(n)
        orders.append(order)
    return torch.from_numpy(np.stack(orders))


def fit(
    net: PositionValue, engine: SpadesEngine, x, y, x_held, y_held, config: PositionValueConfig, log=print
) -> dict[str, Any]:
    """Adam on the mean squared error of ``net`` over (x, y) for ``config.epochs`` epochs, each batch's plain suits
    renamed by a random one of ``suit_permutations``, the learning rate annealed to 0; the held-out loss in points
    squared after each epoch, and the held-out label variance."""
    opt = torch.optim.Adam(net.parameters(), lr=config.lr)
    steps = config.epochs * (len(x) // config.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1 - step / max(steps, 1))
    gen = torch.Generator().manual_seed(config.seed)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y).float()
    orders = suit_permutations(engine)
    loss_sum, n = 0.0, 0
    for epoch in range(config.epochs):
        order = torch.randperm(len(x), generator=gen)
        perms = torch.randint(len(orders), (len(x) // config.batch_size,), generator=gen)
        for k in range(len(x) // config.batch_size):
            idx = order[k * config.batch_size : (k + 1) * config.batch_size]
            loss = torch.mean((net(xt[idx][:, orders[perms[k]]]) - yt[idx]) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            loss_sum, n = loss_sum + float(loss.detach()), n + 1
        held = held_out_loss(net, x_held, y_held)
        log(
            f"epoch {epoch + 1}/{config.epochs}: training loss {loss_sum / n * VALUE_SCALE**2:.1f}, held out "
            f"{held * VALUE_SCALE**2:.1f} points^2"
        )
        loss_sum, n = 0.0, 0
    scale = VALUE_SCALE**2
    return {
        "steps": steps,
        "held_out_mse": round(held * scale, 1),
        "held_out_variance": round(float(np.var(y_held)) * scale, 1),
    }


def held_out_loss(net: PositionValue, x: np.ndarray, y: np.ndarray) -> float:
    """The mean squared error of ``net`` on (x, y), in the network's units (nan without positions)."""
    if not len(x):
        return float("nan")
    with torch.no_grad():
        return float(torch.mean((net(torch.from_numpy(x)) - torch.from_numpy(y).float()) ** 2))
