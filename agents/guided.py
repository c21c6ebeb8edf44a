"""Search guided by the network: the search's sampled layouts, the learned network's candidates and rollouts.

For every card-play decision with more than one legal card the ``guided`` bot

1. samples ``samples`` layouts of the hidden cards exactly as ``search`` does (``SearchAgent.card_values``: the
   sampler of ``agents.search_sampling`` and, with ``oversample`` > 1, the bid and play weighting of
   ``agents.search_bidding``), from what the seat may know only (``layout_states`` builds the rollout games);
2. keeps the ``top`` legal cards of the learned network's card prior (its card head's logits at the seat's own
   observation), always with the card the network would play itself;
3. values each (layout, candidate) by playing the candidate, then ``depth`` plies of the network's own play (the
   ``learned`` bot's network for the table, greedy, all rollouts of a ply in one network call and one
   ``engine.step``), then the compiled heuristic's play in the engine to the hand's end: the side's bag-adjusted
   points minus the others' (Hearts: the others' mean points minus its own), as ``search`` scores;
   ``depth=-1`` (the default) lets the network play to the hand's end;
4. plays the candidate of the best mean value (ties, and every decision it does not value, keep the network's
   own action; with ``play_margin`` > 0 the network's card is kept unless another beats it by more than that).

Bids, the Hearts pass and a lone legal card are the network's (``learned``); with ``bid_samples`` K > 0 (Spades) the
bids and blind nil are the lookahead bidder's (``agents.search_bidding.lookahead_bids``: every legal bid, nil and
blind nil included, tried on K sampled deals) with rollouts in which the network bids and plays every seat (the
heuristic-rollout lookahead, ``search:bid_samples``, assumes heuristic players). The network's card value head is
not used to cut the rollouts: it was learned on targets centred on each decision's mean
(``train.values.bid_values.centred_value_loss``), so it ranks the cards of one decision but has no level that two
positions could be compared by. ``leaf=value`` cuts them with a position value network instead
(``agents.position_value``: after ``depth`` plies it estimates the hand's result from the rollout's whole layout).

Speed: the network's forward pass is the cost. Every network call runs on ``threads`` torch threads (default 1:
more threads than free cores make its small products many times slower); ``rollout_values=false`` plays the
rollouts by the card head alone (no card value torso: about half the work; the learned bot's margin rule is
then not applied in the rollouts); with ``depth=0`` the heuristic plays every ply after the candidate and the
search's compiled rollouts play them (``compiled_policy``): ``guided:fast`` (16 samples) and ``guided:strong``
(64 samples), the network's bids and candidates over the search's heuristic rollouts.

A table without a learned network (``agents.learned.LEARNED_CHECKPOINTS``) is refused in one line. With
``path=CHECKPOINT`` the network is that checkpoint's instead (loaded as ``neural:path=`` loads it), in every role
above: the search then plays the tables that checkpoint plays (its rules, and those whose observations mean the
same), so that a training loop can hand the search each round's better network, at any table it trains.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agents.base import Agent, DecisionContext
from agents.heuristic import HeuristicAgent
from agents.learned import CHECKPOINT_DIR, LearnedAgent
from agents.options import check_integers, parse_bool
from agents.search import SearchAgent
from spades_env.engine import PLAY, GameState, SpadesEngine
from spades_env.rules import Rules

if TYPE_CHECKING:
    from agents.neural import NeuralAgent

#: What values a guided rollout once its network plies are played (option ``leaf``).
LEAVES = ("heuristic", "value")
#: The committed position value networks (``agents.position_value``, ``docs/models/``): the preset each was trained on.
POSITION_VALUE_CHECKPOINTS: dict[str, Path] = {"partnership": CHECKPOINT_DIR / "partnership_position_value.pt"}


def position_value_path(engine: SpadesEngine) -> Path | None:
    """The committed position value network for ``engine``'s rules (trained on the same rules), or None."""
    for preset, path in POSITION_VALUE_CHECKPOINTS.items():
        if path.exists() and Rules.preset(preset) == engine.rules:
            return path
    return None


def checkpoint_network(path: str, seed: int | None, precision: str) -> NeuralAgent:
    """The network of the checkpoint at ``path`` (the guided bot's option ``path``), loaded as ``neural:path=``
    loads it (greedy, on the CPU, its cards and card margin as trained); ValueError naming the option otherwise."""
    from agents.neural import make_neural_agent
    from agents.neural_int8 import parse_precision

    precision = parse_precision(precision, "guided")  # its own error, before the file is read
    try:
        return make_neural_agent(seed=seed, path=path, precision=precision)
    except ValueError as error:
        raise ValueError(f"guided bot option 'path': {error}") from None


def table_network(network: LearnedAgent | NeuralAgent) -> NeuralAgent:
    """The network that plays the table: the ``learned`` bot's, bound to the table it last played or checked, or
    the checkpoint's (option ``path``) itself."""
    return network.bound if isinstance(network, LearnedAgent) else network


class NetworkRollout(Agent):
    """The guided search's rollout policy: the learned network for the first ``depth`` plies of each rollout (every
    ply with ``depth`` -1), then the heuristic. ``ply`` counts the calls since the rollout batch began."""

    name = "network-rollout"
    uses_observations = True

    def __init__(self, network: LearnedAgent | NeuralAgent, depth: int, values: bool = True) -> None:
        super().__init__(None)
        self.network = network
        self.depth = int(depth)
        self.values = bool(values)
        """Play as the ``learned`` bot (its card value head's margin rule included); False: the card head's
        greedy card alone, about half the network's work (``card_head_actions``)."""
        self.heuristic = HeuristicAgent()
        self.ply = 0
        self._encoders: dict[int, object] = {}

    def act(self, observations, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        self.ply += 1
        if 0 <= self.depth < self.ply:
            return self.heuristic.act(None, masks, context)
        if self.values:
            if observations is None:
                observations = self.encoder(context.engine).encode(context.state, context.games, context.seats)
            return self.network.act(observations, masks, context)
        actions = np.zeros(len(masks), dtype=np.int64)
        play = context.state.phase[context.games] == PLAY
        for rows, decide in ((np.flatnonzero(play), self._card_head_play), (np.flatnonzero(~play), self._network_play)):
            if len(rows):  # the card play by the card head; bids (a bidding lookahead's rollouts) by the learned bot
                actions[rows] = decide(masks[rows], context.take(rows))
        return actions

    def _network_play(self, masks: np.ndarray, context: DecisionContext) -> np.ndarray:
        """The ``learned`` bot's actions at the seats' observations."""
        observations = self.encoder(context.engine).encode(context.state, context.games, context.seats)
        return self.network.act(observations, masks, context)

    def _card_head_play(self, masks: np.ndarray, context: DecisionContext) -> np.ndarray:
        """Card decisions' cards by the card head alone (``card_head_actions``; a lone legal card unasked)."""
        from agents.neural import lone_actions  # torch, once a network plays

        actions, free = lone_actions(masks)
        if len(free):
            sub = context.take(free)
            observations = self.encoder(context.engine).encode(sub.state, sub.games, sub.seats)
            actions[free] = card_head_actions(self.network, observations, masks[free])
        return actions

    def encoder(self, engine: SpadesEngine):
        """The observation encoder of ``engine`` (made once per engine)."""
        if id(engine) not in self._encoders:
            from spades_env.observation import encoder_for

            self._encoders = {id(engine): encoder_for(engine)}
        return self._encoders[id(engine)]


def card_logits(network: LearnedAgent | NeuralAgent, observations: np.ndarray) -> np.ndarray:
    """(B, C) float32 the card head's logits of the ``network`` playing the table (``table_network``) at (B, obs)
    ``observations``: its shared torso and card head only (no card value torso, no bid head), the bits
    ``play_outputs`` gives."""
    import torch

    playing = table_network(network)
    policy = playing.policy
    with torch.no_grad():
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=playing.device)
        x, per_card = policy._inputs(obs)
        return policy._card_logits(policy.torso(x), per_card).float().cpu().numpy()


def card_head_actions(network: LearnedAgent | NeuralAgent, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(B,) the legal card of the highest ``card_logits`` for (B, obs) card-play ``observations``."""
    logits = card_logits(network, observations)
    return np.argmax(np.where(masks[:, : logits.shape[1]], logits, -np.inf), axis=1).astype(np.int64)


@contextmanager
def torch_threads(threads: int):
    """torch's CPU threads set to ``threads`` inside the block, and put back after (a network call of a bot that
    plays on ``threads`` cores: more threads than free cores make torch's small products many times slower)."""
    import torch

    before = torch.get_num_threads()
    if before != threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if before != threads:
            torch.set_num_threads(before)


class GuidedAgent(SearchAgent):
    """The search with the learned network inside: its prior picks the candidates, its play rolls them out."""

    name = "guided"
    uses_observations = True
    #: Named option sets, ``guided:fast[,key=value...]`` (docs/bots.md has their measurements).
    presets: dict[str, dict[str, int]] = {
        "fast": {"samples": 16, "top": 3, "depth": 0},
        "strong": {"samples": 64, "top": 3, "depth": 0},
    }

    def __init__(
        self,
        seed: int | None = None,
        samples: int = 16,
        top: int = 3,
        depth: int = -1,
        oversample: int = 4,
        play_sharpness: float | str = "auto",
        play_margin: float = 0.0,
        precision: str = "",
        max_rollouts: int = 16384,
        rollout_values: bool = True,
        leaf: str = "heuristic",
        threads: int = 1,
        bid_samples: int = 0,
        path: str = "",
    ) -> None:
        check_integers("guided bot", 1, "a positive integer", top=top)
        if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < -1:
            raise ValueError(f"guided bot option 'depth' must be an integer from -1 (the whole hand) up, got {depth!r}")
        if leaf not in LEAVES:
            raise ValueError(f"guided bot option 'leaf' must be one of {list(LEAVES)}, got {leaf!r}")
        if leaf == "value" and depth < 0:
            raise ValueError("guided bot option 'leaf=value' needs a 'depth' from 0 up (the plies before the value)")
        self.leaf = leaf
        """What values a rollout after its ``depth`` network plies: ``heuristic`` (the heuristic plays the hand out)
        or ``value`` (the table's position value network, ``agents.position_value``, at that position)."""
        self._values: dict[int, object] = {}  # id(engine) -> its position value network
        self.path = str(path).strip()
        """The checkpoint whose network plays in the search (``checkpoint_network``); empty: the ``learned`` bot's."""
        self.network = (
            checkpoint_network(self.path, seed, precision)
            if self.path
            else LearnedAgent(seed=seed, precision=precision)
        )
        """The ``learned`` bot, or the checkpoint's network (``path``): it bids, passes, gives the prior and plays
        the rollouts."""
        super().__init__(
            seed,
            samples=samples,
            rollout_policy=NetworkRollout(self.network, depth, parse_bool(rollout_values, "rollout_values")),
            max_rollouts=max_rollouts,
            oversample=oversample,
            play_margin=play_margin,
            play_sharpness=play_sharpness,
            threads=threads,
            bid_samples=bid_samples,
        )
        self.bid_rollout = NetworkRollout(self.network, -1, self.rollout.values)
        """With ``bid_samples``: the lookahead bidder's rollouts, the network's bids and cards to the hand's end."""
        self.top = int(top)
        """Candidates kept per decision: the ``top`` legal cards of the network's card prior, and its own card."""
        self.depth = int(depth)
        """Plies the network plays after the candidate before the ``leaf`` values the rest (-1: all of them)."""

    def compiled_policy(self) -> HeuristicAgent | None:
        """With ``depth=0`` (and the heuristic's leaf) the heuristic plays every ply after the candidate: the
        search's compiled rollouts play them (the same values as the batched engine's); else None."""
        return self.rollout.heuristic if self.depth == 0 and self.leaf == "heuristic" else None

    def unsupported_reason(self, engine: SpadesEngine) -> str | None:
        """Why the guided search cannot play ``engine``'s rules (no learned network for them, or a ``path``
        checkpoint trained for other rules; with ``leaf=value`` no position value network), or None."""
        reason = self.network.unsupported_reason(engine)
        if reason is not None and self.path:
            return f"bot 'guided' with path={self.path} cannot play the rules {engine.rules.name!r}: {reason}"
        if reason is not None:
            return f"bot 'guided' needs a learned network for the rules {engine.rules.name!r} and has none: {reason}"
        if self.leaf == "value" and position_value_path(engine) is None:
            return (
                f"bot 'guided' with leaf=value needs a position value network for the rules {engine.rules.name!r} "
                f"and has none (it has them for {sorted(POSITION_VALUE_CHECKPOINTS)})"
            )
        return None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.network.reset(seed)

    def _values_and_default(
        self, observations, masks: np.ndarray, context: DecisionContext | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``action_values`` (card play: the guided rollouts' mean values of the candidates; bids and blind nil with
        ``bid_samples``: the lookahead's with the network's rollouts; NaN for the legal actions it does not value,
        -inf for the illegal ones) and the network's own action of each decision."""
        if context is None:
            raise ValueError("GuidedAgent needs a DecisionContext (engine, state, games, seats)")
        with torch_threads(self.threads):
            return self._guided_values(observations, np.asarray(masks, dtype=bool), context)

    def _guided_values(
        self, observations, masks: np.ndarray, context: DecisionContext
    ) -> tuple[np.ndarray, np.ndarray]:
        """``_values_and_default`` on torch's threads set."""
        engine, state = context.engine, context.state
        if observations is None:
            observations = self.rollout.encoder(engine).encode(state, context.games, context.seats)
        observations = np.asarray(observations, dtype=np.float32)
        default = self.network.act(observations, masks, context)  # binds the network to the table
        values = np.where(masks, np.nan, -np.inf)
        self._lookahead_bid_values(values, masks, context, self.bid_rollout)
        n_cards = engine.layout.n_card_ids
        play = state.phase[context.games] == PLAY
        todo = np.flatnonzero(play & (masks[:, :n_cards].sum(axis=1) > 1))
        if len(todo):
            start = time.perf_counter()
            legal = masks[todo, :n_cards]
            kept = self.candidates(observations[todo], legal, default[todo])
            card_values = self._card_values_grouped(context.take(todo), kept)
            values[todo, :n_cards] = np.where(legal & ~kept, np.nan, card_values)
            self.search_seconds += time.perf_counter() - start
            self.decisions += len(todo)
        return values, default

    def candidates(self, observations: np.ndarray, legal: np.ndarray, own: np.ndarray) -> np.ndarray:
        """(D, C) bool the cards to search: the ``top`` legal cards of the network's card logits at the seat's
        ``observations`` (D, obs) float32, and each decision's ``own`` (D,) card."""
        logits = np.where(legal, card_logits(self.network, observations)[:, : legal.shape[1]], -np.inf)
        order = np.argsort(-logits, axis=1, kind="stable")[:, : self.top]
        kept = np.zeros_like(legal)
        np.put_along_axis(kept, order, True, axis=1)
        kept[np.arange(len(own)), own] = True
        return kept & legal

    def _rollout(
        self, engine: SpadesEngine, roll: GameState, first: np.ndarray, seats: np.ndarray, plays_left: np.ndarray
    ) -> np.ndarray:
        """``SearchAgent._rollout`` with the rollout policy's ply count started afresh (``NetworkRollout``); with
        ``leaf=value``, ``depth`` plies after the candidate, then the position value network's estimate for the
        hands still in play."""
        self.rollout.ply = 0
        if self.leaf != "value":
            return super()._rollout(engine, roll, first, seats, plays_left)
        values, ended = self._play_rollouts(engine, roll, first, seats, plays_left, self.depth + 1)
        rows = np.flatnonzero(~ended)
        if len(rows):
            values[rows] = self.position_value(engine).points(engine, roll, rows, seats[rows])
        return values

    def position_value(self, engine: SpadesEngine):
        """The position value network of ``engine``'s table (loaded once per engine)."""
        if id(engine) not in self._values:
            from agents.position_value import load_position_value

            path = position_value_path(engine)
            if path is None:
                raise ValueError(self.unsupported_reason(engine))
            self._values = {id(engine): load_position_value(path, engine)}
        return self._values[id(engine)]
