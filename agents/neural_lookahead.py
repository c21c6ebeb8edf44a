"""A bid-values network's bids checked by lookahead: ``bid_samples=K`` (``neural``, ``learned``).

The network's bidding head values each legal bid (a bid-values run's network: points, learned by regression on the
real deal), and ``agents.search_bidding.lookahead_bids`` values the same bids by playing each out with the heuristic
on ``K`` sampled deals of the unseen cards. The two estimates err differently (the network: what its regression could
not fit; the lookahead: sampling noise, and a model of the other seats as the heuristic), so their mean is bid
(``NETWORK_WEIGHT``; 0.7 did as well). In the bidding benchmark (heuristic card play, 2000 deals, seed 13, ``K`` =
256) a bid-values network scored +20.8 over the heuristic's bids alone, the lookahead alone +20.6, their mean +21.5;
the learned bot's bids +18.6 alone and +19.1 so (seed 21), and +0.4 +- 2.2 head to head in play
(docs/experiments/). Bids are greedy on the mean, ``nil_margin`` applies to it; decisions the lookahead does not
value (one legal bid; the two-player bid before the draw) keep the network's values. It costs the lookahead's time:
about 30 bid decisions a second at ``K`` = 256 on two cores.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.base import DecisionContext, masked_logits
from agents.heuristic import HeuristicAgent
from agents.search_bidding import MAX_LOOKAHEAD_SAMPLES, lookahead_bids

#: Weight of the network's values in the mean with the lookahead's (1 - it).
NETWORK_WEIGHT = 0.5


def parse_bid_samples(value: int | str | None, bot: str) -> int:
    """``bid_samples`` as an int in 0..MAX_LOOKAHEAD_SAMPLES (0: the network alone), else one line naming it."""
    text = "" if value is None else str(value).strip()
    if text == "":
        return 0
    if text.isdigit() and int(text) <= MAX_LOOKAHEAD_SAMPLES:
        return int(text)
    raise ValueError(
        f"bot {bot!r}: option 'bid_samples' must be a whole number of sampled deals from 0 to {MAX_LOOKAHEAD_SAMPLES} "
        f"(0: the network's bids alone), got {value!r}"
    )


def mixed_bid_values(
    network_values: np.ndarray,
    masks: np.ndarray,
    context: DecisionContext,
    samples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """(D, A) the mean of the network's values ``network_values`` (points, -inf where illegal) and the lookahead's
    (``samples`` deals a bid) where the lookahead values the decision's bids, else the network's."""
    _, look = lookahead_bids(context, masks, samples, rng, heuristic=HeuristicAgent())
    valued = np.isfinite(look).any(axis=1)
    mixed = network_values.copy()
    mixed[valued] = np.where(
        np.isfinite(look[valued]),
        NETWORK_WEIGHT * network_values[valued] + (1 - NETWORK_WEIGHT) * look[valued],
        -np.inf,
    )
    return mixed


def network_bid_values(policy, observations: np.ndarray, device: torch.device, value_scale: float) -> np.ndarray:
    """(D, A) the bidding head's outputs in points (its bids are values: a bid-values run's network)."""
    with torch.no_grad():
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=device)
        logits, _ = policy.play_outputs(obs, bids=True)
    return logits.float().cpu().numpy().astype(np.float64) * value_scale


def set_lookahead_bids(agent, observations, masks: np.ndarray, context: DecisionContext | None, actions) -> None:
    """Set the bids among ``actions`` (of a ``NeuralAgent`` with ``bid_samples``) to the best of the network's and the
    lookahead's mean values, less ``nil_margin`` on nil bids."""
    if context is None:
        raise ValueError(f"bot {agent.name!r} with bid_samples={agent.bid_samples} needs the decision context")
    rows = np.flatnonzero(np.isin(context.state.phase[context.games], context.engine.spec.bidding_phases()))
    if not len(rows):
        return
    network = network_bid_values(agent.policy, np.asarray(observations)[rows], agent.device, agent.value_scale)
    values = mixed_bid_values(
        masked_logits(network, masks[rows]), masks[rows], context.take(rows), agent.bid_samples, agent.rng
    )
    if agent.nil_margin:
        values[:, agent._nil_columns] -= agent.nil_margin
    actions[rows] = np.argmax(values, axis=1)
