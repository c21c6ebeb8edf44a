"""The built-in bots by name: ``AGENTS`` maps each name a spec may start with to its factory (``agents.specs``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.base import Agent, DecisionContext
from agents.guided import GuidedAgent
from agents.heuristic import HeuristicAgent
from agents.learned import LEARNED_CHECKPOINTS
from agents.random_agent import RandomAgent
from agents.search import SearchAgent
from spades_env.engine import GameState, SpadesEngine


def _neural(
    seed: int | None = None,
    path: str = "",
    greedy: bool = True,
    device: str = "cpu",
    play: str = "",
    margin: str = "",
    precision: str = "",
    nil_margin: str = "",
    bid_samples: str = "",
) -> Agent:
    """``neural:path=CHECKPOINT[,greedy=false][,device=cuda][,play=heuristic][,margin=4][,precision=int8]``: torch is
    imported only when asked for. ``play``: who plays the cards, ``network`` or ``heuristic`` (empty: as the
    checkpoint trained); ``margin``: with a card value head, the points a card's value must beat the card head's card
    by to be played instead (empty: the checkpoint's); ``precision``: ``float32`` (empty) or ``int8`` (about twice as
    fast on the CPU, ``agents.neural_int8``); ``nil_margin``: where the bids are values (a bid-values run's network),
    the points a nil bid's value must beat the best other bid's by (``NeuralAgent.nil_margin``; empty: 0);
    ``bid_samples``: there too, each bid the best mean of the network's value and a lookahead's on that many sampled
    deals (``agents.neural_lookahead``; empty: 0, the network alone)."""
    from agents.neural import make_neural_agent

    return make_neural_agent(
        seed=seed, path=path, greedy=greedy, device=device, play=play, margin=margin, precision=precision,
        nil_margin=nil_margin, bid_samples=bid_samples,
    )  # fmt: skip


#: The committed learned partnership bot (its model card: docs/models/); ``learned`` also holds the other presets'.
LEARNED_CHECKPOINT = LEARNED_CHECKPOINTS["partnership"]


def _learned(
    seed: int | None = None,
    greedy: bool = True,
    device: str = "cpu",
    play: str = "",
    margin: str = "",
    precision: str = "",
    nil_margin: str = "",
    bid_samples: str = "",
) -> Agent:
    """``learned``: the committed checkpoint trained for the table's rules (``agents.learned``), or a clear refusal;
    ``play=heuristic``: its network bids, HeuristicAgent plays the cards; ``margin``, ``precision``, ``nil_margin``,
    ``bid_samples`` (for the presets with bidding): as ``neural``'s."""
    from agents.learned import LearnedAgent  # torch only when a checkpoint loads

    return LearnedAgent(
        seed=seed, greedy=greedy, device=device, play=play, margin=margin, precision=precision, nil_margin=nil_margin,
        bid_samples=bid_samples,
    )  # fmt: skip


#: Bot name -> factory taking ``seed=`` and the bot's keyword options.
AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
    "neural": _neural,
    "learned": _learned,
    "guided": GuidedAgent,
}


#: The shipped bots a harness may hand the full state instead of their seat's view, for speed (the view's copy costs
#: them more than their decision): each reads only what its seat may know, which ``tests/agents/test_bot_invariance.py``
#: verifies at every table. Only these exact classes: a subclass, like every other bot, gets its seat's view.
FULL_STATE_BOTS: tuple[type[Agent], ...] = (HeuristicAgent, RandomAgent)


def decision_context(
    agent: Agent, engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray
) -> DecisionContext:
    """The context a harness hands ``agent`` for the decisions of ``seats`` in ``games`` of the real ``state``: the
    seats' view (``DecisionContext.of_view``), or for ``FULL_STATE_BOTS`` the state itself."""
    if type(agent) in FULL_STATE_BOTS:
        return DecisionContext(engine, state, np.asarray(games), np.asarray(seats, dtype=np.int64))
    return DecisionContext.of_view(engine, state, games, seats)
