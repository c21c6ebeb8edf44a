"""Card play learned as action values on the real deal: the labels of the card value head.

Each kept card decision of the learner (``train.values.bid_values.play_card_positions``) is valued by playing **every
legal card** in a copy of the game on the real deal and letting the compiled heuristic play every seat to the hand's end
(``agents.search_rollouts.rollout_totals``, the search bot's rollouts, with the real hands as the one "sample"): the
value of a card is the side's bag-adjusted points minus the opponents' mean, what a duplicate tournament scores.

As for the bids (``train.values.bid_values``), one rollout sees every hand, but its expectation given the seat's
observation is the card's value (one step of policy improvement over the heuristic's play), so a value head regressed on
many such labels, centred on each decision's mean (``centred_value_loss``: the candidates play the same deal, so their
differences carry no luck of the deal), learns what the search estimates by sampling the hidden hands. The noise of one
deal is large next to the differences (one position's labels do not tell the best card), so the network plays its card
head's card unless the value head finds a legal card better by more than ``card_margin`` points
(``agents.neural.margin_cards``): the value head is trusted only where it is sure.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import torch

from agents.builtin_bots import decision_context
from agents.heuristic import HeuristicAgent
from agents.search_rollouts import rollout_totals
from spades_env.engine import GameState, SpadesEngine
from train.values.bid_values import CardPositions, centred_value_loss


@dataclass
class ValuedCardPositions(CardPositions):
    """Card decisions with every legal card's value on the real deal."""

    values: np.ndarray
    """(M, C) float32: each legal card's rollout value in points (0 off the legal cards)."""


def deal_card_values(
    engine: SpadesEngine, state: GameState, seat: np.ndarray, mask: np.ndarray, heuristic: HeuristicAgent
) -> np.ndarray:
    """(G, A) float64 each legal card (``mask``) of each card decision of ``state`` (its rows; ``seat`` deciding)
    valued on the **real deal**: the card is played, then ``heuristic`` (its options) plays every seat to the hand's
    end; the value is what the search's rollouts score (``agents.search_rollouts.rollout_totals``: the side's
    bag-adjusted points minus the opponents' mean), -inf off the legal cards (the module's docstring)."""
    totals = np.zeros(mask.shape)
    if len(seat):
        real = np.ascontiguousarray(state.hands[:, None, :])  # (G, 1, N): the real hands, one "sample"
        rollout_totals(engine, state, np.arange(len(seat)), seat, mask, real, totals, heuristic)
    return np.where(mask, totals, -np.inf)


def card_values_on_deal(engine: SpadesEngine, positions: CardPositions, heuristic: HeuristicAgent) -> np.ndarray:
    """(M, C) float32 ``deal_card_values`` of ``positions``, 0 off the legal cards."""
    values = deal_card_values(engine, positions.state, positions.seat, positions.mask, heuristic)
    return np.where(positions.mask, values, 0.0).astype(np.float32)


def card_values_by_network(
    engine: SpadesEngine, positions: CardPositions, learner, heuristic: HeuristicAgent, chunk: int = 16384
) -> np.ndarray:
    """(M, C) float32 as ``card_values_on_deal``, but each legal card's hand is played out by the **network** at the
    learner's seats (``learner.cards``: its card head under its margin rule, as it plays) and the heuristic at the
    others: the value of the card followed by the learner's own play, one more step of policy improvement (policy
    iteration) where the heuristic's continuation gives one. The rollouts run in the batched engine, ``chunk``
    (decision, card) pairs at a time (``agents.search_bidding.rollout_values``: its scoring)."""
    from agents.search_bidding import rollout_values

    values = np.zeros(positions.mask.shape)
    dec, card = np.nonzero(positions.mask)
    for lo in range(0, len(dec), chunk):
        d, c = dec[lo : lo + chunk], card[lo : lo + chunk]
        side = engine.side_of_seat[positions.seat[d]]

        def decide(state, index, side=side):
            masks = engine.legal_action_mask(state)
            every = np.arange(state.batch_size)
            actions = heuristic.act(None, masks, decision_context(heuristic, engine, state, every, state.to_move))
            mine = np.flatnonzero(engine.side_of_seat[state.to_move] == side[index])
            if len(mine):
                actions[mine] = learner.cards(state, mine, masks[mine])
            return actions

        roll = positions.state.take(d)
        values[d, c] = rollout_values(engine, roll, c, positions.seat[d], heuristic, compiled=False, decide=decide)
    return values.astype(np.float32)


def with_card_values(
    engine: SpadesEngine, positions: CardPositions, heuristic: HeuristicAgent, learner=None
) -> ValuedCardPositions:
    """``positions`` with ``card_values_on_deal``, or with a ``learner``, ``card_values_by_network``."""
    fields = {f.name: getattr(positions, f.name) for f in dataclasses.fields(CardPositions)}
    if learner is None:
        return ValuedCardPositions(**fields, values=card_values_on_deal(engine, positions, heuristic))
    return ValuedCardPositions(**fields, values=card_values_by_network(engine, positions, learner, heuristic))


def card_value_loss(policy, obs: torch.Tensor, mask: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """``centred_value_loss`` of the card value head's outputs over the legal cards ``mask`` (B, C), toward
    ``values`` (B, C) in units of the value scale."""
    return centred_value_loss(policy.card_values(obs), mask, values)


def card_value_gain(choice: np.ndarray, base: np.ndarray, values: np.ndarray) -> float:
    """Mean points on the real deal that playing ``choice`` (B,) instead of ``base`` (B,) gains (``values`` (B, C)):
    on fresh positions, an unbiased estimate of what the margin rule adds per decision (each decision's continuation
    being the heuristic's)."""
    if not len(choice):
        return 0.0
    rows = np.arange(len(choice))
    return float((values[rows, choice] - values[rows, base]).mean())
