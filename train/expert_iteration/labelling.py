"""Positions for expert iteration and their teacher labels.

Expert iteration (``train/expert_iteration/trainer.py``) alternates between playing games with a
*behaviour* policy (the learner network sampling its own moves, or HeuristicAgent) and
training the network on what a stronger *teacher* (``SearchAgent.action_values``, e.g.
``search:fast``) says about each decision. This module holds the two halves:

- ``PositionStream.collect``: ``num_steps`` decisions in each of B lockstep games
  (``VectorSpades``), each kept as a ``Positions`` row: the game itself (a ``GameState``
  row, what the teacher searches from), the deciding seat, its observation and legal
  mask, the behaviour policy's probabilities, and the hand's outcome for the deciding
  seat's side (``ret``: its points times ``reward_scale``, as ``train.ppo.imitation.HeuristicStream``
  credits them; decisions of a hand unfinished at the end of the round have ``has_ret`` False).
- ``label_positions``: the teacher's values of every decision and the distillation
  target ``distillation_target`` makes of them (softmax of the values; the cards valued exactly
  as the heuristic's card give their mass to it, as the teacher's ties go to the heuristic).

Labelling is the expensive part, so it is written to be split: positions are labelled in
chunks of ``chunk`` rows, and chunk k (counted from the start of the round's positions) is
searched by a teacher seeded with ``(*seed, k)``. A shard of whole chunks (``LabelShard``)
is therefore labelled by a pure function of (its positions, the teacher spec, the seed,
its first row): shards labelled anywhere (another process, a Ray actor) and concatenated
give exactly the labels of one run over all the positions.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.base import DecisionContext
from agents.builtin_bots import decision_context
from agents.heuristic import HeuristicAgent
from spades_env.engine import PLAY, GameState, SpadesEngine
from train.expert_iteration.config import CARD_LABELS, TARGETS

#: The ``teacher`` that labels every card decision with a choice by HeuristicAgent's card instead of a search's
#: values (``card_choice_values``): behaviour cloning of its card play on the learner's own positions (DAgger).
HEURISTIC_TEACHER = "heuristic"

#: A behaviour policy: (observations (B, D), masks (B, A), context) -> (actions (B,), probabilities (B, A)).
Behaviour = Callable[[np.ndarray, np.ndarray, DecisionContext], tuple[np.ndarray, np.ndarray]]


@dataclass
class Positions:
    """M decisions, step-major as collected: what the teacher needs to value them and what the learner trains on."""

    state: GameState
    """(M games): the game at the moment of each decision."""
    seat: np.ndarray
    """(M,) int64: the deciding seat."""
    obs: np.ndarray
    """(M, D) float32: the deciding seat's observation."""
    mask: np.ndarray
    """(M, A) bool: its legal actions."""
    behaviour_probs: np.ndarray
    """(M, A) float32: the behaviour policy's probabilities of each action (one-hot for HeuristicAgent), or
    those of a reference network the targets anchor to (``train.expert_iteration.trainer``, ``anchor_to: initial``)."""
    ret: np.ndarray
    """(M,) float32: the deciding seat's side points in the hand, times ``reward_scale``."""
    has_ret: np.ndarray
    """(M,) bool: False where the hand was unfinished at the end of the collection (``ret`` is 0 then)."""

    def __len__(self) -> int:
        return len(self.seat)

    def rows(self, lo: int, hi: int) -> Positions:
        """Rows ``lo:hi`` (copies)."""
        return self.take(np.arange(lo, min(hi, len(self))))

    def take(self, idx: np.ndarray) -> Positions:
        """The rows ``idx`` (copies, in that order)."""
        return Positions(
            self.state.take(idx), *(getattr(self, f.name)[idx].copy() for f in dataclasses.fields(self)[1:])
        )


def heuristic_behaviour(bot: HeuristicAgent) -> Behaviour:
    """HeuristicAgent as a behaviour policy (its action with probability 1)."""

    def act(obs: np.ndarray, mask: np.ndarray, ctx: DecisionContext) -> tuple[np.ndarray, np.ndarray]:
        action = bot.act(None, mask, ctx)
        return action, np.eye(mask.shape[1], dtype=np.float32)[action]

    return act


class PositionStream:
    """B games in lockstep whose every decision is taken by a behaviour policy and kept as a position.

    The games go on from one ``collect`` to the next (``episode="match"``: scores and bags carry
    over, as the learner will meet them); ``env``, ``obs``, ``mask`` and ``seat`` are the run state
    a checkpoint keeps.
    """

    def __init__(self, rules, num_envs: int, seed: int, episode: str = "match") -> None:
        from spades_env.envs.vector import VectorSpades

        self.env = VectorSpades(rules, num_envs, seed=seed, episode=episode, reward="points")
        self.obs, info = self.env.reset(seed=seed)
        self.mask, self.seat = info["action_mask"], info["to_play"]

    def restore(self, state: GameState) -> None:
        """Go on from ``state`` (the games of a shard between rounds: ``train.expert_iteration.collect_actors``)."""
        self.obs, info = self.env.restore(state)
        self.mask, self.seat = info["action_mask"], info["to_play"]

    def collect(self, num_steps: int, behaviour: Behaviour, reward_scale: float) -> Positions:
        """``num_steps`` decisions in every game (M = num_steps * B rows, step-major)."""
        b = self.env.num_envs
        states: list[GameState] = []
        obs = np.empty((num_steps, b, self.obs.shape[1]), np.float32)
        mask = np.empty((num_steps, b, self.mask.shape[1]), bool)
        probs = np.empty((num_steps, b, self.mask.shape[1]), np.float32)
        seat = np.empty((num_steps, b), np.int64)
        ret = np.zeros((num_steps, b), np.float32)
        pending = np.zeros((num_steps, b), bool)
        for t in range(num_steps):
            ctx = self.env.context()
            states.append(self.env.state.copy())
            action, probs[t] = behaviour(self.obs, self.mask, ctx)
            obs[t], mask[t], seat[t] = self.obs, self.mask, self.seat
            pending[t] = True
            self.obs, rewards, _, _, info = self.env.step(action)
            self.mask, self.seat = info["action_mask"], info["to_play"]
            done = info["hand_done"]
            credit_finished_hands(rewards, done, seat[: t + 1], ret[: t + 1], pending[: t + 1], reward_scale)
        return Positions(
            state=GameState.concat(states),
            seat=seat.reshape(-1),
            obs=obs.reshape(-1, obs.shape[-1]),
            mask=mask.reshape(-1, mask.shape[-1]),
            behaviour_probs=probs.reshape(-1, probs.shape[-1]),
            ret=ret.reshape(-1),
            has_ret=~pending.reshape(-1),
        )


def credit_finished_hands(
    rewards: np.ndarray, hand_done: np.ndarray, seat: np.ndarray, ret: np.ndarray, pending: np.ndarray, scale: float
) -> None:
    """Give every still-pending decision (rows of ``seat``/``ret``/``pending``: (T, B)) of a game whose hand
    ended this step its seat's points (``rewards`` (B, N)) times ``scale``; they are pending no more."""
    done = np.flatnonzero(hand_done)
    if not len(done):
        return
    seat_points = np.take_along_axis(rewards[done], seat[:, done].T, axis=1).T
    ret[:, done] = np.where(pending[:, done], seat_points * scale, ret[:, done])
    pending[:, done] = False


# ------------------------------------------------------------------ labels


def distillation_target(
    values: np.ndarray, fallback: np.ndarray, temperature: float, prefer: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(target (G, A) float32, valued (G,) bool) from the teacher's ``values`` (``SearchAgent.action_values``).

    A row with at least one finite value gets ``softmax(values / temperature)`` over its finite
    values (NaN: a legal action the teacher did not value, and -inf: an illegal one, get 0);
    a row with none (one legal card, the Hearts pass, bids the teacher leaves to the heuristic)
    gets its ``fallback`` row ((G, A) probabilities, e.g. the heuristic's one-hot).
    ``prefer`` ((G,) actions, e.g. the heuristic's): the mass of the actions valued exactly as the
    preferred one goes to it, as the teacher's own ``choose`` breaks ties toward the heuristic
    (equal values are mostly equivalent cards, e.g. two low cards that lose the trick either way).
    """
    if not temperature > 0:
        raise ValueError(f"temperature must be a positive number of points, got {temperature!r}")
    finite = np.isfinite(values)
    valued = finite.any(axis=1)
    z = np.where(finite, values / temperature, -np.inf)
    top = np.where(valued, z.max(axis=1, initial=-np.inf, where=finite), 0.0)
    e = np.where(finite, np.exp(z - top[:, None]), 0.0)
    soft = e / np.maximum(e.sum(axis=1, keepdims=True), 1e-300)
    if prefer is not None:
        rows = np.arange(len(values))
        tied = finite & (values == values[rows, prefer][:, None])
        mass = np.where(tied, soft, 0.0).sum(axis=1)
        soft = np.where(tied, 0.0, soft)
        soft[rows, prefer] += mass
    target = np.where(valued[:, None], soft, fallback)
    return target.astype(np.float32), valued


def card_choice_values(state: GameState, mask: np.ndarray, action: np.ndarray) -> np.ndarray:
    """(G, A) float64 "values" that make a teacher's chosen card the target, one-hot: on a card decision with more
    than one legal card, 0 for ``action`` (HeuristicAgent's card for the ``heuristic`` teacher, the teacher's
    ``act`` with ``target: choice``) and -inf for every other action; NaN everywhere else (bids, blind nil,
    passes, forced cards: unvalued, ``LabelSpec.unvalued`` decides)."""
    cards = card_choices(state, mask)
    values = np.full(mask.shape, np.nan)
    values[cards] = -np.inf
    rows = np.flatnonzero(cards)
    values[rows, action[rows]] = 0.0
    return values


def card_value_labels(state: GameState, mask: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(card values (G, A) float32, valued (G,) bool): the labels of a card value head (``card_value_hidden``): the
    card decisions with a choice whose every legal card has a finite value, their values in points (0 elsewhere)."""
    legal = mask.astype(bool)
    valued = card_choices(state, mask) & np.where(legal, np.isfinite(values), True).all(axis=1)
    kept = legal & valued[:, None]
    return np.where(kept, values, 0.0).astype(np.float32), valued


def card_choices(state: GameState, mask: np.ndarray) -> np.ndarray:
    """(G,) bool: the rows that are card decisions with more than one legal card."""
    return (state.phase == PLAY) & (mask.sum(axis=1) > 1)


def _deal_and_teacher_values(engine: SpadesEngine, rows: Positions, teacher, heuristic: HeuristicAgent) -> np.ndarray:
    """(G, A) values of ``card_labels: deal``: the card decisions with a choice valued on the real deal
    (``train.values.card_values.deal_card_values``), every other decision by the teacher's ``action_values`` (NaN
    where it values none)."""
    from train.values.card_values import deal_card_values

    values = np.full(rows.mask.shape, np.nan)
    cards = card_choices(rows.state, rows.mask)
    other = np.flatnonzero(~cards)
    if len(other):
        ctx = decision_context(heuristic, engine, rows.state, other, rows.seat[other])
        values[other] = teacher.action_values(rows.obs[other], rows.mask[other], ctx)
    card = np.flatnonzero(cards)
    if len(card):
        picked = rows.take(card)
        values[card] = deal_card_values(engine, picked.state, picked.seat, picked.mask, heuristic)
    return values


@dataclass(frozen=True)
class LabelSpec:
    """How positions are labelled: the teacher, its seed and the target's temperature."""

    rules: object
    """The ``Rules`` the positions were played under."""
    teacher: str = "search:fast"
    """Bot spec of the teacher (``make_agent``); it must have ``action_values``. ``heuristic``
    (``HEURISTIC_TEACHER``): HeuristicAgent's card on every card decision with a choice, one-hot."""
    seed: tuple[int, ...] = (0,)
    """Seed of the teacher's sampling; chunk k is searched with ``(*seed, k)``."""
    temperature: float = 5.0
    """Softmax temperature of the distillation target, in points (the teacher's values are points)."""
    chunk: int = 256
    """Rows per teacher call (and per seed)."""
    anchor: float = 0.0
    """Weight of the behaviour policy's own probabilities in the target of the valued decisions:
    ``(1 - anchor) * softmax + anchor * behaviour_probs``. A noisy teacher then moves the learner's
    choice only where it disagrees strongly (a trust region; 0: the teacher alone)."""
    target: str = "values"
    """Target of the card decisions with a choice: ``values`` (``distillation_target``: the softmax of the
    teacher's values) or ``choice`` (the card its ``act`` plays, one-hot: ``card_choice_values``; e.g. a search
    with ``play_margin``, which keeps the heuristic's card unless the search is sure of another). The
    ``heuristic`` teacher always labels its choice."""
    unvalued: str = "teacher"
    """Target of the decisions the teacher does not value: ``teacher`` (its choice there, the heuristic's
    action, one-hot) or ``behaviour`` (the behaviour policy's own probabilities: keeps e.g. learned bids)."""
    cards: str = "teacher"
    """Who values the card decisions with a choice: ``teacher`` or ``deal`` (on the real deal:
    ``train.values.card_values.deal_card_values``; the teacher then values the other decisions only)."""

    def __post_init__(self) -> None:
        if self.cards not in CARD_LABELS:
            raise ValueError(f"card labels must be one of {', '.join(map(repr, CARD_LABELS))}, got {self.cards!r}")
        if self.cards == "deal" and self.target != "values":
            raise ValueError(f"card labels 'deal' need target 'values', got {self.target!r}")
        if self.target not in TARGETS:
            raise ValueError(f"label target must be one of {', '.join(map(repr, TARGETS))}, got {self.target!r}")
        if self.unvalued not in ("teacher", "behaviour"):
            raise ValueError(f"unvalued target must be 'teacher' or 'behaviour', got {self.unvalued!r}")
        if isinstance(self.chunk, bool) or not isinstance(self.chunk, int) or self.chunk < 1:
            raise ValueError(f"label chunk must be a positive integer, got {self.chunk!r}")
        if not self.temperature > 0:
            raise ValueError(f"temperature must be a positive number of points, got {self.temperature!r}")
        if not 0.0 <= self.anchor < 1.0:
            raise ValueError(f"anchor must be in [0, 1) (the behaviour policy's share), got {self.anchor!r}")


@dataclass
class Labels:
    """The teacher's labels of M positions."""

    target: np.ndarray
    """(M, A) float32: the distillation target (``distillation_target``)."""
    valued: np.ndarray
    """(M,) bool: the teacher valued the decision (its target is the softmax of its values)."""
    action: np.ndarray
    """(M,) int64: the teacher's choice (``agents.search.choose``: argmax, ties and unvalued rows to the heuristic)."""
    best: np.ndarray
    """(M, A) bool: the actions of the teacher's largest value (several where values tie; none where unvalued)."""
    card_values: np.ndarray
    """(M, A) float32: each legal card's value in points on the card decisions of ``card_valued`` (0 elsewhere):
    what a card value head learns (``card_value_labels``)."""
    card_valued: np.ndarray
    """(M,) bool: card decisions with a choice whose every legal card was valued (none with ``target: choice`` or
    the ``heuristic`` teacher, whose "values" are a one-hot choice)."""

    @staticmethod
    def concat(parts: Sequence[Labels]) -> Labels:
        return Labels(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(Labels)))


@dataclass(frozen=True)
class LabelShard:
    """Whole chunks of a round's positions, starting at row ``first`` (a multiple of ``spec.chunk``)."""

    positions: Positions
    first: int
    spec: LabelSpec


@functools.lru_cache(maxsize=8)
def _engine(rules) -> SpadesEngine:
    return SpadesEngine(rules)


def label_shard(shard: LabelShard) -> Labels:
    """Label ``shard.positions`` (a pure function of the shard: see the module docstring)."""
    from agents import make_agent
    from agents.search import choose

    spec, pos = shard.spec, shard.positions
    if shard.first % spec.chunk:
        raise ValueError(f"a label shard starts at a chunk boundary: first={shard.first}, chunk={spec.chunk}")
    engine = _engine(spec.rules)
    teacher = None if spec.teacher == HEURISTIC_TEACHER else make_agent(spec.teacher)
    if teacher is not None and not hasattr(teacher, "action_values"):
        raise ValueError(
            f"teacher {spec.teacher!r} gives no action values; use a search bot spec (search:fast) or "
            f"{HEURISTIC_TEACHER!r} (the heuristic's cards)"
        )
    heuristic = HeuristicAgent()
    parts = []
    for lo in range(0, len(pos), spec.chunk):
        hi = min(lo + spec.chunk, len(pos))
        rows = pos.rows(lo, hi)
        ctx = decision_context(heuristic, engine, rows.state, np.arange(hi - lo), rows.seat)
        default = heuristic.act(rows.obs, rows.mask, ctx)
        if teacher is None:
            values = card_choice_values(rows.state, rows.mask, default)
        else:
            teacher.reset([*spec.seed, (shard.first + lo) // spec.chunk])
            if spec.target == "choice":
                values = card_choice_values(rows.state, rows.mask, teacher.act(rows.obs, rows.mask, ctx))
            elif spec.cards == "deal":
                values = _deal_and_teacher_values(engine, rows, teacher, heuristic)
            else:
                values = teacher.action_values(rows.obs, rows.mask, ctx)
        onehot = np.eye(rows.mask.shape[1], dtype=np.float32)[default]
        fallback = onehot if spec.unvalued == "teacher" else rows.behaviour_probs
        target, valued = distillation_target(values, fallback, spec.temperature, prefer=default)
        if spec.anchor:
            mixed = (1.0 - spec.anchor) * target + spec.anchor * rows.behaviour_probs
            target = np.where(valued[:, None], mixed, target).astype(np.float32)
        finite = np.isfinite(values)
        best = finite & (values == np.max(values, axis=1, initial=-np.inf, where=finite, keepdims=True))
        card_values, card_valued = card_value_labels(rows.state, rows.mask, values)
        if teacher is None or spec.target == "choice":
            card_valued[:] = False
            card_values[:] = 0.0
        parts.append(Labels(target, valued, choose(values, default).astype(np.int64), best, card_values, card_valued))
    if not parts:
        n_actions = pos.mask.shape[1]
        none = np.zeros((0, n_actions), bool)
        zeros = np.zeros((0, n_actions), np.float32)
        return Labels(zeros, np.zeros(0, bool), np.zeros(0, np.int64), none, zeros.copy(), np.zeros(0, bool))
    return Labels.concat(parts)


def shards(positions: Positions, spec: LabelSpec, n_shards: int) -> list[LabelShard]:
    """``positions`` cut into at most ``n_shards`` shards of whole chunks, in order."""
    n_chunks = -(-len(positions) // spec.chunk)
    per = -(-n_chunks // max(1, n_shards)) * spec.chunk
    return [LabelShard(positions.rows(lo, lo + per), lo, spec) for lo in range(0, len(positions), per)]


def label_positions(positions: Positions, spec: LabelSpec, ray=None) -> Labels:
    """Label every position: in this process, or with ``ray`` (a ``train.distributed.ray_shards.RayOptions``) as Ray
    tasks, one shard of whole chunks per worker; either way the same labels (the shards are pure functions)."""
    if ray is None:
        return label_shard(LabelShard(positions, 0, spec))
    import os

    from train.distributed.ray_shards import run_shards

    parts = shards(positions, spec, ray.workers or os.cpu_count() or 1)
    done: dict[int, Labels] = {}
    run_shards(label_shard, parts, ray, lambda shard, labels: done.__setitem__(shard.first, labels))
    return Labels.concat([done[first] for first in sorted(done)])
