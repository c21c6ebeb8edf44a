"""Bids learned as action values on the real deal: the positions and labels of the ``bid_values`` trainer.

A bidding decision of the learner's side is valued by taking **every candidate bid** (every legal bid,
nil included; blind nil and look at BLIND: ``agents.search_bidding.candidate_mask``) in a copy of the game,
letting the behaviour bidders finish the bidding (the learner's side greedy on its values, HeuristicAgent
the other seats) and the compiled heuristic play the hand out (``agents.search_rollouts.play_out_values``):
the value of a candidate is the side's bag-adjusted points minus the opponents' (their mean in cutthroat),
what a duplicate tournament scores.

The rollouts see the real deal, so one rollout is not what the seat can know; but its *expectation* given
the seat's observation is the value of the bid, so a network regressed on many such labels learns the
right values (the hidden cards are noise the regression averages out over positions). All the candidates
of a decision are played on the same deal, so their differences carry no luck of the deal: the loss
(``centred_value_loss``) compares the values centred on the decision's mean, which is all a greedy bid uses.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import torch

from agents.base import Agent
from agents.builtin_bots import decision_context
from agents.heuristic import HeuristicAgent
from agents.neural import SpadesPolicy, lone_actions, margin_cards
from agents.search_bidding import candidate_mask, rollout_values
from spades_env.engine import PLAY, GameState, SpadesEngine

#: Decisions a hand may take before its card play (bids, blind-nil choices, draws, redeals) before it is refused.
MAX_PRE_PLAY_STEPS = 256


@dataclass
class Decisions:
    """M decisions of the learner's seats: the games, the deciding seats and their observations."""

    state: GameState
    """(M games): the game at the moment of each decision."""
    seat: np.ndarray
    """(M,) int64: the deciding seat."""
    obs: np.ndarray
    """(M, D) float32: its observation."""

    def __len__(self) -> int:
        return len(self.seat)


D = TypeVar("D", bound=Decisions)


@dataclass
class BidPositions(Decisions):
    """M bidding decisions of the learner's side with their candidates' values (K = the bid actions)."""

    cand: np.ndarray
    """(M, K) bool: the candidate bid actions (action ``bid_offset + k``)."""
    values: np.ndarray
    """(M, K) float32: each candidate's rollout value in points (0 off the candidates)."""
    heuristic: np.ndarray
    """(M,) int64: HeuristicAgent's bid action there (``bid_offset + k``): the yardstick of ``bid_regret``."""


def best_or_explore(values: np.ndarray, legal: np.ndarray, explore: float = 0.0, rng=None) -> np.ndarray:
    """(B,) the legal column (``legal`` (B, K) bool) of highest value (``values`` (B, K)); with ``explore`` > 0, that
    share of them (drawn from ``rng``) a uniformly random legal column instead."""
    act = np.argmax(np.where(legal, values, -np.inf), axis=1)
    if explore > 0:
        random_pick = np.argmax(np.where(legal, rng.random(legal.shape), -1.0), axis=1)
        act = np.where(rng.random(len(act)) < explore, random_pick, act)
    return act


class BidLearner:
    """The network's bids: greedy on its bid-head outputs read as values (``action_logits``' bid range); its cards:
    greedy on its card head, and with a card value head, ``margin_cards`` by ``card_margin`` points."""

    def __init__(
        self,
        policy: SpadesPolicy,
        engine: SpadesEngine,
        encoder,
        device: torch.device,
        card_margin: float = 0.0,
        value_scale: float = 100.0,
    ) -> None:
        self.policy, self.engine, self.encoder, self.device = policy, engine, encoder, device
        self.card_margin, self.value_scale = card_margin, value_scale

    def values(self, obs: np.ndarray) -> np.ndarray:
        """(B, K) float64 the network's values of the bid actions for (B, D) observations."""
        with torch.no_grad():
            out = self.policy.action_logits(torch.as_tensor(obs, dtype=torch.float32, device=self.device))
        return out[:, self.policy.n_card_actions :].double().cpu().numpy()

    def bids(
        self, state: GameState, games: np.ndarray, masks: np.ndarray, explore: float = 0.0, rng=None
    ) -> np.ndarray:
        """(B,) actions of the seats to move in ``games``: the legal bid action of best value; with ``explore``,
        that share of them (drawn from ``rng``) a uniformly random legal bid action instead."""
        off = self.policy.n_card_actions
        legal = masks[:, off:]
        obs = self.encoder.encode(state, games, state.to_move[games])
        return best_or_explore(self.values(obs), legal, explore, rng) + off

    def cards(self, state: GameState, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(B,) the network's card actions of the seats to move in ``games`` (as ``NeuralAgent`` plays them: a lone
        legal card without the network)."""
        return self.card_pairs(state, games, masks)[1]

    def card_pairs(self, state: GameState, games: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``card_choices`` of the seats to move in ``games``: (B,) the card head's greedy cards and (B,) the cards
        played (``cards``); a lone legal card is both, without the network."""
        base, free = lone_actions(masks[:, : self.policy.n_card_actions])
        played = base.copy()
        if len(free):
            rows = games[free]
            obs = self.encoder.encode(state, rows, state.to_move[rows])
            base[free], played[free] = self.card_choices(obs, masks[free])
        return base, played

    def card_choices(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(B,) the card head's greedy cards and (B,) the cards played: those, or with a card value head the
        ``margin_cards`` of them, for (B, D) observations and (B, >= C) legal masks."""
        c = self.policy.n_card_actions
        with torch.no_grad():
            out, values = self.policy.play_outputs(torch.as_tensor(obs, device=self.device), bids=False)
        legal = masks[:, :c]
        base = np.argmax(np.where(legal, out[:, :c].double().cpu().numpy(), -np.inf), axis=1)
        if values is None:
            return base, base
        points = values.double().cpu().numpy() * self.value_scale
        return base, margin_cards(base, points, legal, self.card_margin)

    def passes(self, state: GameState, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """(B,) the card head's greedy passes (Hearts) of the seats to move in ``games``: no margin rule (the card
        value head values plays to a trick), as ``NeuralAgent`` passes."""
        return self.card_choices(self.encoder.encode(state, games, state.to_move[games]), masks)[0]


def behaviour_actions(
    engine: SpadesEngine,
    state: GameState,
    learner_side: np.ndarray,
    learner: BidLearner,
    heuristic: HeuristicAgent,
    explore: float = 0.0,
    rng=None,
) -> np.ndarray:
    """(B,) the actions of every game of ``state`` (none in PLAY): the learner's bids (BID and BLIND phases of
    the seats of side ``learner_side``) and passes (Hearts: PASS, by its card head), HeuristicAgent's decisions
    everywhere else."""
    masks = engine.legal_action_mask(state)
    seats = state.to_move
    phase = state.phase
    learners = engine.side_of_seat[seats] == learner_side
    bidding = learners & np.isin(phase, engine.spec.bidding_phases())
    passing = learners & (phase == engine.spec.pass_phase)
    actions = np.zeros(state.batch_size, np.int64)
    rows = np.flatnonzero(bidding)
    if len(rows):
        actions[rows] = learner.bids(state, rows, masks[rows], explore, rng)
    rows = np.flatnonzero(passing)
    if len(rows):
        actions[rows] = learner.passes(state, rows, masks[rows])
    rows = np.flatnonzero(~(bidding | passing))
    if len(rows):
        actions[rows] = heuristic.act(None, masks[rows], decision_context(heuristic, engine, state, rows, seats[rows]))
    return actions


def finish_values(
    engine: SpadesEngine,
    roll: GameState,
    first: np.ndarray,
    learner_side: np.ndarray,
    learner: BidLearner,
    heuristic: HeuristicAgent,
) -> np.ndarray:
    """Take ``first`` (M,) in each game of ``roll`` (changed), finish its bidding with the behaviour bidders
    (greedy) and play it out with the heuristic: (M,) the value for the side of the seat that took ``first``
    (``agents.search_bidding.rollout_values``, the bidding search's rollouts, with these bidders)."""

    def decide(state: GameState, index: np.ndarray) -> np.ndarray:
        return behaviour_actions(engine, state, learner_side[index], learner, heuristic)

    return rollout_values(engine, roll, first, roll.to_move.copy(), heuristic, decide=decide)


def collect_bid_positions(
    engine: SpadesEngine,
    seeds: np.ndarray,
    learner: BidLearner,
    heuristic: HeuristicAgent,
    explore: float,
    rng: np.random.Generator,
) -> BidPositions:
    """Deal one new match per seed (hand mode), the learner holding side ``g % n_sides`` of deal ``g``, and
    play its bidding (``behaviour_actions``, with ``explore``); every decision of the learner's side with
    more than one candidate becomes a position, each candidate valued by ``finish_values``."""
    positions = deal_and_bid(engine, seeds, learner, heuristic, explore, rng)[0]
    if positions is None:
        raise no_bid_choice(engine.rules.name)
    return positions


def no_bid_choice(rules_name: str) -> ValueError:
    """The error of bid training at rules where no bid has a choice."""
    return ValueError(f"no bid of the rules {rules_name!r} has a choice: there is nothing to learn")


def deal_and_bid(
    engine: SpadesEngine,
    seeds: np.ndarray,
    learner: BidLearner,
    heuristic: HeuristicAgent,
    explore: float,
    rng: np.random.Generator,
    teacher: BidLearner | None = None,
    teacher_scale: float = 100.0,
    value_bids: bool = True,
) -> tuple[BidPositions | None, GameState]:
    """``collect_bid_positions``' positions (None where no bid had a choice: Hearts has none, its passes are
    played) and the games once bid (every one in PLAY). With a ``teacher``, the candidates are valued by its
    network instead of rollouts (its outputs times ``teacher_scale`` points): distillation of a bid-values network
    (e.g. into a smaller bidding torso). ``value_bids=False``: the same bids and positions (valuing a candidate
    draws no random number), but no candidate is valued (zero values, no rollout): for a run that trains no bid."""
    state = engine.reset(np.asarray(seeds))
    learner_side = np.arange(state.batch_size) % engine.n_sides
    off = engine.layout.bid_offset
    parts: list[BidPositions] = []
    for _ in range(MAX_PRE_PLAY_STEPS):
        live = np.flatnonzero(state.phase != PLAY)
        if not len(live):
            break
        masks = engine.legal_action_mask(state, live)
        seats = state.to_move[live]
        cand = candidate_mask(engine, state.phase[live], masks)
        mine = engine.side_of_seat[seats] == learner_side[live]
        at = np.flatnonzero(mine & (cand.sum(axis=1) > 1))  # index into live
        if len(at):
            games = live[at]
            obs = learner.encoder.encode(state, games, seats[at])
            values = np.zeros((len(at), masks.shape[1]), np.float32)
            if value_bids and teacher is None:
                dec, action = np.nonzero(cand[at])
                roll = state.take(games[dec])
                values[dec, action] = finish_values(engine, roll, action, learner_side[games[dec]], learner, heuristic)
            elif value_bids:
                values[:, off:] = np.where(cand[at][:, off:], teacher.values(obs) * teacher_scale, 0.0)
            ctx = decision_context(heuristic, engine, state, games, seats[at])
            parts.append(
                BidPositions(
                    state=state.take(games),
                    seat=seats[at].astype(np.int64),
                    obs=obs,
                    cand=cand[at][:, off:],
                    values=values[:, off:],
                    heuristic=heuristic.act(None, masks[at], ctx).astype(np.int64),
                )
            )
        sub = state.take(live)
        actions = behaviour_actions(engine, sub, learner_side[live], learner, heuristic, explore, rng)
        engine.step(sub, actions, validate=False)
        state.put(live, sub)
    else:
        raise RuntimeError(f"a hand did not reach the card play within {MAX_PRE_PLAY_STEPS} decisions")
    return (concat_decisions(parts) if parts else None), state


@dataclass
class CardPositions(Decisions):
    """M card decisions of the learner's seats (more than one legal card), each labelled with the heuristic's card."""

    mask: np.ndarray
    """(M, C) bool: its legal cards (the card actions)."""
    target: np.ndarray
    """(M,) int64: HeuristicAgent's card there."""
    base: np.ndarray
    """(M,) int64: the network's card head's greedy card there, as it collected the position (-1: not recorded)."""
    played: np.ndarray
    """(M,) int64: the card the network played there (``base``, or with a card value head its ``margin_cards``)."""


def play_card_positions(
    engine: SpadesEngine,
    state: GameState,
    learner: BidLearner,
    heuristic: HeuristicAgent,
    keep: float,
    rng: np.random.Generator,
    keep_nil: float | None = None,
    opponent: Agent | None = None,
    against: np.ndarray | None = None,
) -> CardPositions:
    """Play the hands of ``state`` (changed; every game in PLAY, the learner holding side ``g % n_sides`` of game
    ``g``) to their end: the learner's seats by the network, the others by the heuristic (by ``opponent`` in the
    games where ``against`` (B,) bool is set: every game where it is None). The learner's card
    decisions with more than one legal card are kept, each with probability ``keep`` (``keep_nil`` in hands where a
    seat bid nil, where given; drawn from ``rng``), and labelled with the heuristic's card (the DAgger positions of
    ``configs/train/card_imitation.yaml``), with the network's own choices there (``base``, ``played``)."""
    learner_side = np.arange(state.batch_size) % engine.n_sides
    n_cards = engine.layout.bid_offset
    parts: list[CardPositions] = []
    live = np.flatnonzero(state.phase == PLAY)
    for _ in range(engine.hand_size * engine.n_players + MAX_PRE_PLAY_STEPS):
        if not len(live):
            break
        sub = state.take(live)
        masks = engine.legal_action_mask(sub)
        seats = sub.to_move
        every = np.arange(len(live))
        ctx = decision_context(heuristic, engine, sub, every, seats)
        actions = heuristic.act(None, masks, ctx)
        learners = engine.side_of_seat[seats] == learner_side[live]
        mine = np.flatnonzero(learners & (sub.phase == PLAY))
        if opponent is not None:
            theirs = np.flatnonzero(~learners & (True if against is None else against[live]))
            if len(theirs):
                actions[theirs] = opponent.act(
                    None, masks[theirs], decision_context(opponent, engine, sub, theirs, seats[theirs])
                )
        if len(mine):
            share = keep if keep_nil is None else np.where(sub.nil_bid[mine], keep_nil, keep)
            chosen = (masks[mine, :n_cards].sum(axis=1) > 1) & (rng.random(len(mine)) < share)
            kept = mine[chosen]
            base, played = learner.card_pairs(sub, mine, masks[mine])
            if len(kept):
                parts.append(
                    CardPositions(
                        state=sub.take(kept),
                        seat=seats[kept].astype(np.int64),
                        obs=learner.encoder.encode(sub, kept, seats[kept]),
                        mask=masks[kept, :n_cards],
                        target=actions[kept].astype(np.int64),
                        base=base[chosen],
                        played=played[chosen],
                    )
                )
            actions[mine] = played
        result = engine.step(sub, actions, validate=False)
        state.put(live, sub)
        live = live[~result.hand_done]
    else:
        raise RuntimeError("a hand did not end within its card plays")
    if not parts:
        empty = {"seat": np.zeros(0, np.int64), "obs": np.zeros((0, learner.encoder.size), np.float32),
                 "mask": np.zeros((0, n_cards), bool), "target": np.zeros(0, np.int64), "base": np.zeros(0, np.int64),
                 "played": np.zeros(0, np.int64)}  # fmt: skip
        return CardPositions(state=state.take(np.zeros(0, np.int64)), **empty)
    return concat_decisions(parts)


def card_loss(logits: torch.Tensor, mask: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of the card logits (B, C), masked to the legal cards, against the target cards (B,)."""
    masked = logits.masked_fill(~mask, -torch.inf)
    return torch.nn.functional.cross_entropy(masked, target)


def concat_decisions(parts: list[D]) -> D:
    """The decisions of ``parts`` (one ``Decisions`` type) in order, as one."""
    kind = type(parts[0])
    arrays = {f.name: [getattr(p, f.name) for p in parts] for f in dataclasses.fields(kind)}
    return kind(**{k: GameState.concat(v) if k == "state" else np.concatenate(v) for k, v in arrays.items()})


def centred_value_loss(q: torch.Tensor, cand: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """Mean over decisions of the mean squared error, over each decision's candidates, between the network's
    values ``q`` (B, K) and the targets ``values`` (B, K), each centred on its candidates' mean."""
    c = cand.to(q.dtype)
    n = c.sum(dim=1, keepdim=True)
    q_mean = (q * c).sum(dim=1, keepdim=True) / n
    v_mean = (values * c).sum(dim=1, keepdim=True) / n
    err = ((q - q_mean) - (values - v_mean)) * c
    return (err.square().sum(dim=1) / n.squeeze(1)).mean()


def bid_regret(choice: np.ndarray, cand: np.ndarray, values: np.ndarray) -> float:
    """Mean points a choice (B,) of bid columns leaves against the best candidate of each decision's rollouts."""
    best = np.where(cand, values, -np.inf).max(axis=1)
    return float((best - values[np.arange(len(choice)), choice]).mean())
