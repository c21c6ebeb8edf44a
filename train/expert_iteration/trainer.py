"""Expert iteration: the network learns to play what the search bot would play, round after round.

Each round

1. **collects** ``num_envs * num_steps`` positions: the behaviour policy plays every seat of
   ``num_envs`` lockstep games (the learner network sampling from its own policy; HeuristicAgent
   for the first ``heuristic_rounds`` rounds; with ``opponents: heuristic`` the learner holds one side
   of each game and HeuristicAgent the others), ``train.expert_iteration.labelling.PositionStream``;
2. **labels** them with the teacher (``SearchAgent.action_values``, e.g. ``search:fast``; ``heuristic``: the
   heuristic's card, one-hot, on every card decision with a choice,
   ``train.expert_iteration.labelling.card_choice_values``): the distillation target is softmax(values /
   ``temperature``) over the valued legal actions, the heuristic's action (or the behaviour policy's probabilities)
   where the teacher gives none, ``train.expert_iteration.labelling.label_positions``; the value target is the hand's
   points for the deciding side;
3. **trains** the policy with cross-entropy to the target and the value head with MSE on the
   labelled positions of the last ``replay_rounds`` rounds.

With ``collect_shards: K``, steps 1 and 2 run in K shards of the games, each with its own seeds
(``train/expert_iteration/collect_actors.py``): one after another in this process, or with ``actors: N`` on N persistent
Ray actors (``actors_ray``: a local Ray or a cluster), the same data either way; step 3 stays here (``device``),
and the driver keeps each shard's games between rounds (in the checkpoint: ``--resume`` works the same).

The network is ``agents.policy.SpadesPolicy`` and the checkpoints have PPO's payload format
(``train/runs/checkpoint.py``), so ``neural:path=RUN/checkpoints/best.pt`` plays them and
``spades export`` slims them. Run it with ``spades train --config configs/train/expert_iteration.yaml``
(the ``algorithm: expert_iteration`` key picks this trainer), or at any table with its game family's generic
config, ``spades train --rules PRESET`` (``train/expert_iteration/train_rules.py``); resume a stopped or killed run with
``spades train --resume RUN/checkpoints/latest.pt``: it goes on bit-identically to a run never stopped.
TensorBoard: ``losses/*``, ``agreement/*`` (the network's greedy action against the teacher's choice on
the round's fresh positions, before training on them), ``time/*`` (collect, label, update seconds, and
each part's decisions per second, ``decision_rates``) and ``eval/*`` (duplicate evaluation against
HeuristicAgent, ``train.ppo.trainer.evaluate_against_heuristic``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.heuristic import HeuristicAgent
from agents.neural import NeuralAgent, SpadesPolicy, value_scale_of
from train.evaluation.network_eval import (
    clone_policy,
    eval_gain,
    evaluate_against,
    evaluate_against_heuristic,
)
from train.expert_iteration.collect_actors import numpy_weights, open_sharded_collection
from train.expert_iteration.config import ExpertIterationConfig
from train.expert_iteration.labelling import LabelSpec, PositionStream, heuristic_behaviour, label_positions
from train.expert_iteration.steps import (
    TRAIN_KEYS,
    against_heuristic,
    distillation_loss,
    learner_behaviour,
    learner_rows,
    round_teacher,
    teacher_agreement,
    train_arrays,
    train_on_replay,
    with_reference_probs,
)
from train.runs.checkpoint import (
    array_to_tensor,
    env_state,
    load_run_state,
    restore_env,
    restore_rng_states,
    save_checkpoint,
    save_network,
    tensor_to_array,
)
from train.runs.round_progress import round_bar, say
from train.runs.scaffold import (
    BestNetwork,
    RunStart,
    anneal_learning_rate,
    load_initial_weights,
    open_writer,
    run_payload,
    run_rounds,
    start_run,
)

__all__ = ["TRAIN_KEYS", "distillation_loss", "teacher_agreement", "learner_behaviour", "with_reference_probs", "train"]

#: Keys of a full checkpoint beyond ``REQUIRED_KEYS``: the run state that resuming needs.
RUN_KEYS = (
    "optimizer",
    "rng",
    "update",
    "run_name",
    "env",
    "next_obs",
    "next_mask",
    "next_seat",
    "replay",
    "reference",
)


def _load_resume(resume: str | Path) -> tuple[dict[str, Any], ExpertIterationConfig]:
    ckpt = load_run_state(resume, RUN_KEYS, "expert-iteration ")
    return ckpt, ExpertIterationConfig.from_dict(ckpt["config"], source=f"checkpoint {resume}")


def collect_and_label(
    stream: PositionStream, config: ExpertIterationConfig, behaviour, spec: LabelSpec, ray, learner_only: bool = False
) -> tuple[dict[str, np.ndarray], float, float]:
    """One batch's round in this process (labelling on Ray tasks with ``label_workers``): (the positions'
    ``TRAIN_KEYS`` arrays, collect seconds, label seconds); ``learner_only``: the learner's side's decisions only."""
    t0 = time.perf_counter()
    positions = stream.collect(config.num_steps, behaviour, config.reward_scale)
    if learner_only:
        positions = positions.take(learner_rows(positions, stream.env.engine, stream.env.num_envs))
    t1 = time.perf_counter()
    labels = label_positions(positions, spec, ray)
    fresh = train_arrays(positions, labels, card_values=config.card_value_hidden > 0)
    return fresh, t1 - t0, time.perf_counter() - t1


def decision_rates(played: int, collect_s: float, labelled: int, label_s: float, trained: int, update_s: float):
    """A round's decisions per second in each of its parts (TensorBoard ``time/*``): decisions ``played`` by the
    behaviour policy while collecting, positions ``labelled`` by the teacher, positions ``trained`` on per second
    of the update (each epoch's pass counted once). With ``collect_shards`` the seconds are the shards' summed,
    so the first two are per worker."""
    return {
        "time/play_decisions_per_s": played / max(collect_s, 1e-9),
        "time/label_decisions_per_s": labelled / max(label_s, 1e-9),
        "time/update_positions_per_s": trained / max(update_s, 1e-9),
    }


def train(
    config: ExpertIterationConfig | None = None,
    *,
    resume: str | Path | None = None,
    stop_at: int | None = None,
    quiet: bool = False,
    device: str | None = None,
    actors: int | None = None,
    before_shard=None,
    progress: bool = False,
) -> Path:
    """Run (or resume) expert iteration; return the path of the last checkpoint written.

    ``resume``: a checkpoint (``RUN/checkpoints/latest.pt``) to continue from with its own config,
    beside it. ``stop_at``: stop after this many rounds in total, as if killed right after a checkpoint.
    ``device`` overrides the config's, and so does ``actors`` (where the shards run: a resumed run may move
    to Ray actors or back into this process; the data do not depend on it). ``before_shard``: with
    ``collect_shards``, called on the worker with each ``train.expert_iteration.collect_actors.ShardTask`` before it
    runs (tests use it to kill an actor). ``progress``: a bar over the rounds with its ETA (on a terminal only,
    ``train.runs.round_progress``).
    """
    # actors validated again by the config: actors need collect_shards
    start = start_run(config, resume, _load_resume, "expert iteration", device=device, actors=actors)
    run = ExpertIterationRun(start, resume, quiet)
    with run.session(before_shard):  # Ray (if any) and the bar are closed however the run ends
        return run.play(stop_at, progress)


class ExpertIterationRun:
    """One run's state: its games, network, optimizer, replay and generators (restored when resumed), and the
    steps of its rounds. ``train`` drives it."""

    def __init__(self, start: RunStart, resume: str | Path | None, quiet: bool) -> None:
        config, ckpt, dev = start.config, start.ckpt, start.device
        self.start, self.config, self.rules, self.dev, self.quiet = start, config, start.rules, dev, quiet
        self.resume = resume
        # ---- seeding, in one block (the teacher is seeded per round and chunk by the labelling)
        self.rngs = {
            "behaviour": np.random.default_rng([config.seed, 1]),
            "minibatches": np.random.default_rng([config.seed, 2]),
        }
        # ---- games, network, optimizer
        self.stream = PositionStream(self.rules, config.num_envs, config.seed, config.episode)
        if ckpt is not None and not config.collect_shards:
            restore_env(self.stream.env, ckpt["env"], resume)
            pending = ("next_obs", "next_mask", "next_seat")
            self.stream.obs, self.stream.mask, self.stream.seat = (tensor_to_array(ckpt[k]) for k in pending)
        engine = self.stream.env.engine
        obs_dim = self.stream.obs.shape[1]
        self.policy = SpadesPolicy.for_engine(
            engine, obs_dim, hidden=config.hidden, depth=config.depth,
            card_features=config.card_features, card_feature_logits=config.card_feature_logits,
            card_value_hidden=config.card_value_hidden, card_value_torso=config.card_value_torso,
        ).to(dev)  # fmt: skip
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=config.learning_rate, eps=1e-5)
        # The network the targets anchor to with ``anchor_to: initial``: the one the run starts from, frozen
        # (built before the RNG states are restored: building a network draws from torch's RNG).
        self.reference = None
        if config.anchor_to == "initial":
            self.reference = SpadesPolicy(**self.policy.hyperparameters()).to(dev).eval()
        self.replay: list[dict[str, np.ndarray]] = []
        self.global_step, self.start_round = 0, 0
        self.best = BestNetwork(functools.partial(eval_gain, rules=self.rules), ckpt)
        if ckpt is not None:
            self.policy.load_state_dict(ckpt["model"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.replay = [{k: tensor_to_array(v) for k, v in part.items()} for part in ckpt["replay"]]
            self.global_step, self.start_round = ckpt["global_step"], ckpt["update"]
            restore_rng_states(self.rngs, ckpt["rng"])
        elif config.init_from:
            load_initial_weights(self.policy, config.init_from)
        self.heuristic = HeuristicAgent(seed=config.seed)
        if self.reference is not None:
            self.reference.load_state_dict(ckpt["reference"] if ckpt is not None else self.policy.state_dict())
        self.writer = open_writer(start, self.global_step)
        self.label_spec = LabelSpec(
            rules=self.rules,
            teacher=config.teacher,
            seed=(config.seed,),
            temperature=config.temperature,
            anchor=config.anchor,
            chunk=config.label_chunk,
            unvalued=config.unvalued,
            target=config.target,
            cards=config.card_labels,
        )
        self.ray = None
        self.sharded = None
        self.bar = None
        self.echo = say(None)

    @contextlib.contextmanager
    def session(self, before_shard):
        """Ray for the whole run (``label_workers`` or ``actors``) and the shards' actors, shut down however the
        run ends; the writer closed after."""
        config = self.config
        with contextlib.ExitStack() as stack:
            stack.callback(self.writer.close)
            if config.label_workers or config.actors:
                from train.distributed.ray_shards import RayOptions, ray_session

                address = config.actors_ray if config.actors else config.label_ray
                self.ray = RayOptions(address=address, workers=config.label_workers or config.actors)
                stack.enter_context(ray_session(self.ray))
            if config.collect_shards:
                ckpt = self.start.ckpt
                self.sharded = open_sharded_collection(
                    config,
                    self.label_spec,
                    self.policy,
                    self.reference,
                    self.stream.env.state,
                    ckpt and ckpt["env"],
                    self.resume,
                    before_shard,
                )
                stack.callback(self.sharded.close)
            yield self

    def play(self, stop_at: int | None, progress: bool) -> Path:
        """The rounds from where the run stands to ``stop_at`` (None: all); the path of the last checkpoint."""
        config = self.config
        stop = config.rounds if stop_at is None else min(stop_at, config.rounds)
        self.bar = round_bar(stop, min(self.start_round, stop), progress, desc=self.rules.name)
        self.echo = say(self.bar)
        try:
            if self.start.ckpt is None and config.eval_initial:
                self.evaluate(0)
            stopped = stop == 0 or self.start_round >= stop
            last_path = self.checkpoint(0) if stopped else self.start.checkpoints / "latest.pt"
            return run_rounds(
                self.start_round, stop, config.rounds, config, self.round, self.evaluate, self.checkpoint, last_path
            )
        finally:
            if self.bar is not None:
                self.bar.close()

    def round(self, rnd: int) -> None:
        """Collect and label a round's positions, train on the replay, log the round."""
        config = self.config
        if config.anneal_lr:
            anneal_learning_rate(self.optimizer, config.learning_rate, rnd, config.rounds)
        t0 = time.perf_counter()
        self.policy.eval()
        fresh, collect_s, label_s = self.collect(rnd)
        self.global_step += len(fresh["obs"])
        t2 = time.perf_counter()
        scalars = teacher_agreement(self.policy, fresh, self.dev)
        self.replay = [*self.replay, fresh][-config.replay_rounds :]
        sums, m = train_on_replay(self.policy, self.optimizer, self.replay, self.rngs["minibatches"], config, self.dev)
        t3 = time.perf_counter()
        scalars |= {f"losses/{k}": float(np.mean(v)) for k, v in sums.items()}
        scalars |= {
            "time/collect_s": collect_s,
            "time/label_s": label_s,
            "time/collect_label_s": t2 - t0,
            **({"time/workers_cpu_s": self.sharded.cpu_s} if config.collect_shards else {}),
            "time/update_s": t3 - t2,
            **decision_rates(config.num_envs * config.num_steps, collect_s, len(fresh["obs"]), label_s, m, t3 - t2),
            "charts/learning_rate": self.optimizer.param_groups[0]["lr"],
            "charts/trained_positions": float(m),
        }
        for key, value in scalars.items():
            self.writer.add_scalar(key, value, self.global_step)
        if not self.quiet:
            self.echo(
                f"round {rnd + 1}/{config.rounds} positions {self.global_step} "
                f"agree {scalars['agreement/teacher']:.3f} nil {scalars['agreement/teacher_nil_hands']:.3f} "
                f"best {scalars['agreement/teacher_best']:.3f} "
                f"ce {scalars['losses/cross_entropy']:.3f} "
                f"v {scalars['losses/value_loss']:.3f} "
                + (f"cv {scalars['losses/card_value_loss']:.4f} " if "losses/card_value_loss" in scalars else "")
                + f"collect {collect_s:.1f}s label {label_s:.1f}s "
                f"(wall {t2 - t0:.1f}s) update {t3 - t2:.1f}s"
            )
        if self.bar is not None:
            self.bar.update(1)

    def collect(self, rnd: int) -> tuple[dict[str, np.ndarray], float, float]:
        """A round's labelled positions, collect seconds and label seconds: in shards or in this process."""
        config = self.config
        heuristic_round = rnd < config.heuristic_rounds
        teacher = round_teacher(config, heuristic_round, functools.partial(self.write_teacher, rnd))
        if config.collect_shards:
            weights = None if heuristic_round else numpy_weights(self.policy)
            return self.sharded.round(rnd, heuristic_round, weights, teacher)
        if heuristic_round:
            behaviour = heuristic_behaviour(self.heuristic)
        else:
            behaviour = learner_behaviour(self.policy, self.rngs["behaviour"], self.dev)
            if config.opponents == "heuristic":
                behaviour = against_heuristic(behaviour, self.heuristic)
        if self.reference is not None:
            behaviour = with_reference_probs(behaviour, self.reference, self.dev)
        spec = dataclasses.replace(self.label_spec, seed=(config.seed, rnd), teacher=teacher)
        learner_only = config.train_on == "learner" and not heuristic_round
        return collect_and_label(self.stream, config, behaviour, spec, self.ray, learner_only)

    def payload(self, done: int) -> dict[str, Any]:
        return run_payload(self, done)

    def write_teacher(self, done: int) -> Path:
        """The network as it is now, for a teacher that searches with it (``{network}``)."""
        return save_network(self.start.checkpoints / "teacher.pt", self.payload(done))

    def games_state(self) -> dict[str, Any]:
        """The games in progress: the one batch's (and its pending decisions), or each shard's."""
        if self.config.collect_shards:
            return {"env": self.sharded.checkpoint_state(), "next_obs": None, "next_mask": None, "next_seat": None}
        return {
            "env": env_state(self.stream.env.state),
            "next_obs": array_to_tensor(self.stream.obs),
            "next_mask": array_to_tensor(self.stream.mask),
            "next_seat": array_to_tensor(self.stream.seat),
        }

    def checkpoint(self, done: int, name: str = "latest.pt") -> Path:
        reference = self.reference
        return save_checkpoint(
            self.start.checkpoints / name,
            {
                **self.payload(done),
                **self.games_state(),
                "replay": [{k: array_to_tensor(v) for k, v in part.items()} for part in self.replay],
                "best_diff": self.best.diff,
                "reference": None
                if reference is None
                else {k: v.detach().cpu() for k, v in reference.state_dict().items()},
            },
        )

    def evaluate(self, done: int) -> None:
        """Duplicate evaluation against HeuristicAgent (and ``eval_search``); ``best.pt`` keeps the best network."""
        config = self.config
        agent = NeuralAgent(
            clone_policy(self.policy, torch.device("cpu")), greedy=True, name="ppo", rules=self.rules,
            card_margin=config.card_margin, value_scale=value_scale_of(config.to_dict()),
        )  # fmt: skip
        result = evaluate_against_heuristic(agent, config.rules, config.eval_deals, config.eval_seed)
        scalars = {f"eval/{k}": v for k, v in result.items()}
        if config.eval_search:
            vs = evaluate_against(agent, config.eval_search, config.rules, config.eval_search_deals, config.eval_seed)
            scalars |= {f"eval_search/{k}": v for k, v in vs.items() if k in ("diff", "diff_ci95", "board_win_rate")}
        for key, value in scalars.items():
            self.writer.add_scalar(key, value, self.global_step)
        if not self.quiet:
            shown = " ".join(f"{k.removeprefix('eval/')} {v:.2f}" for k, v in scalars.items())
            self.echo(f"eval round {done} {shown}")
        if config.keep_best and self.best.improves(result["diff"]):
            self.checkpoint(done, "best.pt")
