"""Expert iteration's collection and labelling in shards: in this process or on Ray actors, the same data either way.

With ``collect_shards: K`` the ``num_envs`` lockstep games are cut into K shards (games ``lo:hi`` of the
batch, so the deals are those of the one-batch run). Every round each shard is played for ``num_steps``
decisions and its positions labelled by a ``ShardWorker``, which is a pure function of
(the shard's games, the round, the shard's index, the network's weights):

- the behaviour policy samples with ``default_rng([seed, 1, round, shard])``;
- the teacher searches chunk c of the shard with the seed ``(seed, round, shard, c)``;
- the network runs on the worker's CPU with the run's torch threads.

So where a shard runs changes nothing: ``actors: 0`` runs the K shards one after another in this process,
``actors: N`` on N persistent Ray actors (``RayShards``), each building its games, the teacher and the
network once (their compile costs paid once per actor, not per round) and getting the current weights
each round. The driver (``ShardedCollection``) holds the authoritative state: each shard's games between
rounds, which the checkpoint keeps (``--resume`` works as without actors); an actor that dies is
replaced and its shard run again from the driver's copy of its games, so nothing is lost or counted twice.
Ray is imported only by ``RayShards``, when a run asks for actors.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.heuristic import HeuristicAgent
from agents.neural import SpadesPolicy
from spades_env.engine import GameState
from train.expert_iteration.labelling import LabelShard, LabelSpec, PositionStream, heuristic_behaviour, label_shard
from train.expert_iteration.steps import (
    against_heuristic,
    learner_behaviour,
    learner_rows,
    train_arrays,
    with_reference_probs,
)
from train.runs.checkpoint import CheckpointError, env_state, state_from_env

#: Network weights as they travel to the workers: ``{name: numpy array}`` (a state_dict on the CPU).
Weights = dict[str, np.ndarray]


def numpy_weights(policy: torch.nn.Module) -> Weights:
    """``policy``'s state_dict as CPU numpy arrays (what a worker loads)."""
    return {k: v.detach().cpu().numpy().copy() for k, v in policy.state_dict().items()}


@dataclass(frozen=True)
class ShardSetup:
    """What every worker needs, sent once when it is built: the run's settings and the frozen reference network."""

    rules: Any
    """The run's ``Rules``."""
    seed: int
    episode: str
    num_steps: int
    reward_scale: float
    threads: int
    """torch CPU threads of the worker's network (the results depend on it, as the driver's do)."""
    model_hparams: dict[str, int]
    """``SpadesPolicy.hyperparameters()`` of the learner."""
    label: LabelSpec
    """The labelling settings; its ``seed`` is replaced per (round, shard)."""
    reference: Weights | None = None
    """The network the targets anchor to (``anchor_to: initial``), or None."""
    opponents: str = "self"
    """``ExpertIterationConfig.opponents`` (``heuristic``: HeuristicAgent plays outside the learner's side)."""
    train_on: str = "all"
    """``ExpertIterationConfig.train_on`` (``learner``: only the learner's side's decisions are labelled and kept)."""


@dataclass(frozen=True)
class ShardTask:
    """One shard's work for one round."""

    round: int
    shard: int
    state: GameState
    """The shard's games at the start of the round (the driver's copy)."""
    heuristic: bool
    """Played by HeuristicAgent (the first ``heuristic_rounds``) rather than the network."""
    teacher: str = ""
    """The round's teacher spec (``train.expert_iteration.steps.round_teacher``); empty: the setup's."""


@dataclass
class ShardResult:
    """A shard's labelled positions (``TRAIN_KEYS`` arrays, step-major), its games after the round, its seconds."""

    shard: int
    fresh: dict[str, np.ndarray]
    state: GameState
    collect_s: float
    label_s: float
    cpu_s: float
    """The worker process's CPU seconds on the shard (below ``collect_s + label_s`` where it waited for a core)."""


class ShardWorker:
    """Collects and labels shards (any shard, any round): the engine batches, the teacher's compiled code and the
    network are built once and reused. ``before_shard(task)`` (tests: to kill a worker) runs before each shard."""

    def __init__(self, setup: ShardSetup, before_shard: Callable[[ShardTask], None] | None = None) -> None:
        torch.set_num_threads(setup.threads)
        self.setup, self.before_shard = setup, before_shard
        self.streams: dict[int, PositionStream] = {}
        with torch.random.fork_rng(devices=[]):  # building a network draws from torch's RNG: not the driver's
            self.policy = SpadesPolicy(**setup.model_hparams).eval()
            self.reference = None if setup.reference is None else SpadesPolicy(**setup.model_hparams).eval()
        if self.reference is not None:
            self.reference.load_state_dict(_tensors(setup.reference))

    def run(self, task: ShardTask, weights: Weights | None) -> ShardResult:
        """Play ``task``'s shard for ``num_steps`` decisions and label them (``weights``: the network's, or None
        for a heuristic round)."""
        if self.before_shard is not None:
            self.before_shard(task)
        s, cpu = self.setup, torch.device("cpu")
        t0, c0 = time.perf_counter(), time.process_time()
        games = task.state.batch_size
        if games not in self.streams:
            self.streams[games] = PositionStream(s.rules, games, s.seed, s.episode)
        stream = self.streams[games]
        stream.restore(task.state)
        if task.heuristic:
            behaviour = heuristic_behaviour(HeuristicAgent(seed=s.seed))
        else:
            if weights is None:
                raise ValueError(f"round {task.round}: a learner round needs the network's weights")
            self.policy.load_state_dict(_tensors(weights))
            behaviour = learner_behaviour(self.policy, np.random.default_rng([s.seed, 1, task.round, task.shard]), cpu)
            if s.opponents == "heuristic":
                behaviour = against_heuristic(behaviour, HeuristicAgent(seed=s.seed))
        if self.reference is not None:
            behaviour = with_reference_probs(behaviour, self.reference, cpu)
        positions = stream.collect(s.num_steps, behaviour, s.reward_scale)
        if s.train_on == "learner" and not task.heuristic:
            positions = positions.take(learner_rows(positions, stream.env.engine, games))
        t1 = time.perf_counter()
        spec = dataclasses.replace(
            s.label, seed=(s.seed, task.round, task.shard), teacher=task.teacher or s.label.teacher
        )
        labels = label_shard(LabelShard(positions, 0, spec))
        fresh = train_arrays(positions, labels, card_values=self.policy.card_value_head is not None)
        t2, c2 = time.perf_counter(), time.process_time()
        return ShardResult(task.shard, fresh, stream.env.state.copy(), t1 - t0, t2 - t1, c2 - c0)


def _tensors(weights: Weights) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(np.array(v)) for k, v in weights.items()}  # a writable copy (Ray hands read-only)


class LocalShards:
    """The shards one after another in this process (``actors: 0``)."""

    def __init__(self, setup: ShardSetup, before_shard: Callable[[ShardTask], None] | None = None) -> None:
        self.worker = ShardWorker(setup, before_shard)

    def run(self, tasks: Sequence[ShardTask], weights: Weights | None) -> list[ShardResult]:
        return [self.worker.run(task, weights) for task in tasks]

    def close(self) -> None:
        pass


class RayShards:
    """The shards on N persistent Ray actors (``ShardWorker`` each, 1 CPU); a dead actor is replaced and its shard
    run again (at most ``max_restarts`` times a round; ``restarts`` counts them all). Call inside
    ``train.distributed.ray_shards.ray_session``."""

    def __init__(
        self,
        setup: ShardSetup,
        actors: int,
        before_shard: Callable[[ShardTask], None] | None = None,
        max_restarts: int = 3,
    ) -> None:
        import ray

        self._ray = ray
        self._cls = ray.remote(num_cpus=1, max_restarts=0)(ShardWorker)
        self._setup = ray.put(setup)
        self._before = before_shard
        self.max_restarts = max_restarts
        self.restarts = 0
        self.actors = [self._new_actor() for _ in range(actors)]

    def _new_actor(self):
        return self._cls.remote(self._setup, self._before)

    def run(self, tasks: Sequence[ShardTask], weights: Weights | None) -> list[ShardResult]:
        ray = self._ray
        weights_ref = ray.put(weights)
        queue, free = list(tasks), list(range(len(self.actors)))
        pending: dict[Any, tuple[int, ShardTask]] = {}
        results: dict[int, ShardResult] = {}
        restarts_left = self.max_restarts
        while queue or pending:
            while queue and free:
                actor, task = free.pop(0), queue.pop(0)
                pending[self.actors[actor].run.remote(task, weights_ref)] = (actor, task)
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            actor, task = pending.pop(ref)
            try:
                results[task.shard] = ray.get(ref)
            except ray.exceptions.RayActorError:
                if restarts_left <= 0:
                    raise RuntimeError(
                        f"round {task.round}: shard {task.shard}'s actor died after {self.max_restarts} restarts "
                        "this round; giving up (the last checkpoint resumes the run)"
                    ) from None
                restarts_left -= 1
                self.restarts += 1
                self.actors[actor] = self._new_actor()  # a fresh one, given the shard again from the driver's copy
                queue.insert(0, task)
            free.append(actor)
        return [results[task.shard] for task in tasks]

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)


def shard_bounds(num_envs: int, shards: int) -> list[tuple[int, int]]:
    """Games ``lo:hi`` of each of ``shards`` shards (sizes differing by at most one, the larger first)."""
    edges = np.cumsum([0] + [num_envs // shards + (k < num_envs % shards) for k in range(shards)])
    return [(int(lo), int(hi)) for lo, hi in zip(edges[:-1], edges[1:], strict=True)]


class ShardedCollection:
    """The driver's side of sharded rounds: each shard's games between rounds (checkpointed) and where they run."""

    def __init__(self, states: list[GameState], runner: LocalShards | RayShards) -> None:
        self.states, self.runner = states, runner
        self.cpu_s = 0.0

    @staticmethod
    def split(state: GameState, shards: int) -> list[GameState]:
        """The batch's games cut into ``shards`` shards (``shard_bounds``)."""
        return [state.take(np.arange(lo, hi)) for lo, hi in shard_bounds(state.batch_size, shards)]

    @staticmethod
    def states_from_checkpoint(data: Any, shards: int, where: str, game: str) -> list[GameState]:
        """The shards' games of a checkpoint's ``env`` (a list of ``env_state``s, one per shard)."""
        if not isinstance(data, list) or len(data) != shards:
            raise CheckpointError(f"checkpoint {where}: 'env' is not the games of {shards} shards (collect_shards)")
        return [state_from_env(part, game, where) for part in data]

    def checkpoint_state(self) -> list[dict[str, torch.Tensor]]:
        return [env_state(s) for s in self.states]

    def round(
        self, rnd: int, heuristic: bool, weights: Weights | None, teacher: str = ""
    ) -> tuple[dict[str, np.ndarray], float, float]:
        """Collect and label every shard for round ``rnd`` (``teacher``: the round's teacher spec; empty: the
        setup's): (the positions' ``TRAIN_KEYS`` arrays in shard order, the workers' collect seconds, their label
        seconds; ``cpu_s``: their CPU seconds); the shards' games move on only once all are back."""
        tasks = [ShardTask(rnd, k, state, heuristic, teacher) for k, state in enumerate(self.states)]
        results = self.runner.run(tasks, None if heuristic else weights)
        self.states = [r.state for r in results]
        self.cpu_s = sum(r.cpu_s for r in results)
        fresh = {k: np.concatenate([r.fresh[k] for r in results]) for k in results[0].fresh}
        return fresh, sum(r.collect_s for r in results), sum(r.label_s for r in results)

    def close(self) -> None:
        self.runner.close()


def open_sharded_collection(
    config: Any,
    label: LabelSpec,
    policy: SpadesPolicy,
    reference: SpadesPolicy | None,
    batch: GameState,
    saved: Any,
    where: Any,
    before_shard: Callable[[ShardTask], None] | None = None,
) -> ShardedCollection:
    """The sharded collection of an expert-iteration run (``config``: its ``ExpertIterationConfig``): the shards of
    ``batch`` (the run's first games) or the ``saved`` games of a checkpoint (``where``), run in this process
    (``actors: 0``) or on ``config.actors`` Ray actors (inside ``train.distributed.ray_shards.ray_session``)."""
    shards = config.collect_shards
    states = (
        ShardedCollection.split(batch, shards)
        if saved is None
        else ShardedCollection.states_from_checkpoint(saved, shards, str(where), batch.game)
    )
    setup = ShardSetup(
        rules=label.rules,
        seed=config.seed,
        episode=config.episode,
        num_steps=config.num_steps,
        reward_scale=config.reward_scale,
        threads=config.threads,
        model_hparams=policy.hyperparameters(),
        label=label,
        reference=None if reference is None else numpy_weights(reference),
        opponents=config.opponents,
        train_on=config.train_on,
    )
    runner = RayShards(setup, config.actors, before_shard) if config.actors else LocalShards(setup, before_shard)
    return ShardedCollection(states, runner)
