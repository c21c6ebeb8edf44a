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
from agents.neural import NeuralAgent, SpadesPolicy, torch_device
from train.evaluation.network_eval import (
    clone_policy,
    due_after,
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
    load_checkpoint,
    load_run_state,
    make_run_name,
    restore_env,
    restore_rng_states,
    run_path_of,
    save_checkpoint,
    save_network,
    seed_everything,
    tensor_to_array,
    training_payload,
)
from train.runs.round_progress import round_bar, say

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
    fresh = train_arrays(positions, labels)
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
    from torch.utils.tensorboard import SummaryWriter

    from spades_env.observation import VERSION as OBS_VERSION
    from spades_env.rules import resolve_rules

    if config is None and resume is None:
        raise ValueError("expert iteration needs a config, or a checkpoint to resume")
    if device is not None:
        torch_device(device)  # a missing GPU fails before any work
    ckpt, config = _load_resume(resume) if resume is not None else (None, config)
    assert config is not None
    if device is not None:
        config = dataclasses.replace(config, device=device)
    if actors is not None:
        config = dataclasses.replace(config, actors=actors)  # validated again: actors need collect_shards
    dev = torch_device(config.device)
    rules = resolve_rules(ckpt["rules"] if ckpt else config.rules)
    run_name = ckpt["run_name"] if ckpt else make_run_name(config, rules.name)
    run_path = run_path_of(config.run_dir, run_name, resume)
    ckpt_dir = run_path / "checkpoints"

    # ---- seeding, in one block (the teacher is seeded per round and chunk by the labelling)
    seed_everything(config.seed, config.threads)
    rngs = {
        "behaviour": np.random.default_rng([config.seed, 1]),
        "minibatches": np.random.default_rng([config.seed, 2]),
    }

    # ---- games, network, optimizer
    stream = PositionStream(rules, config.num_envs, config.seed, config.episode)
    if ckpt is not None and not config.collect_shards:
        restore_env(stream.env, ckpt["env"], resume)
        pending = ("next_obs", "next_mask", "next_seat")
        stream.obs, stream.mask, stream.seat = (tensor_to_array(ckpt[k]) for k in pending)
    engine = stream.env.engine
    policy = SpadesPolicy.for_engine(engine, stream.obs.shape[1], hidden=config.hidden, depth=config.depth).to(dev)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate, eps=1e-5)
    # The network the targets anchor to with ``anchor_to: initial``: the one the run starts from, frozen
    # (built before the RNG states are restored: building a network draws from torch's RNG).
    reference = None
    if config.anchor_to == "initial":
        reference = SpadesPolicy(**policy.hyperparameters()).to(dev).eval()
    replay: list[dict[str, np.ndarray]] = []
    global_step, start_round = 0, 0
    worst = eval_gain(-float("inf"), rules)  # the diff of gain -inf (Hearts: +inf points)
    best = {"diff": worst}
    if ckpt is not None:
        policy.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        replay = [{k: tensor_to_array(v) for k, v in part.items()} for part in ckpt["replay"]]
        global_step, start_round = ckpt["global_step"], ckpt["update"]
        best["diff"] = ckpt.get("best_diff", worst)
        restore_rng_states(rngs, ckpt["rng"])
    elif config.init_from:
        init = load_checkpoint(config.init_from)
        if init["obs_version"] != OBS_VERSION:
            raise ValueError(f"{config.init_from}: observation VERSION {init['obs_version']} != current {OBS_VERSION}")
        if init["model_hparams"] != policy.hyperparameters():
            raise ValueError(f"{config.init_from}: network {init['model_hparams']} != {policy.hyperparameters()}")
        policy.load_state_dict(init["model"])
    heuristic = HeuristicAgent(seed=config.seed)
    if reference is not None:
        reference.load_state_dict(ckpt["reference"] if ckpt is not None else policy.state_dict())

    writer = SummaryWriter(str(run_path), purge_step=global_step + 1 if ckpt else None)
    if ckpt is None:
        table = "\n".join(f"|{k}|{v}|" for k, v in config.to_dict().items())
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")

    def run_games() -> dict[str, Any]:
        """The games in progress: the one batch's (and its pending decisions), or each shard's."""
        if config.collect_shards:
            return {"env": sharded.checkpoint_state(), "next_obs": None, "next_mask": None, "next_seat": None}
        return {
            "env": env_state(stream.env.state),
            "next_obs": array_to_tensor(stream.obs),
            "next_mask": array_to_tensor(stream.mask),
            "next_seat": array_to_tensor(stream.seat),
        }

    sharded = None

    def payload(done: int) -> dict[str, Any]:
        return training_payload(
            rules=rules,
            config=config,
            policy=policy,
            optimizer=optimizer,
            rngs=rngs,
            global_step=global_step,
            update=done,
            run_name=run_name,
        )

    def write_teacher(done: int) -> Path:
        """The network as it is now, for a teacher that searches with it (``{network}``)."""
        return save_network(ckpt_dir / "teacher.pt", payload(done))

    def checkpoint(done: int, name: str = "latest.pt") -> Path:
        return save_checkpoint(
            ckpt_dir / name,
            {
                **payload(done),
                **run_games(),
                "replay": [{k: array_to_tensor(v) for k, v in part.items()} for part in replay],
                "best_diff": best["diff"],
                "reference": None
                if reference is None
                else {k: v.detach().cpu() for k, v in reference.state_dict().items()},
            },
        )

    def run_eval(done: int) -> None:
        """Duplicate evaluation against HeuristicAgent; ``best.pt`` keeps the best network so far."""
        agent = NeuralAgent(clone_policy(policy, torch.device("cpu")), greedy=True, name="ppo", rules=rules)
        result = evaluate_against_heuristic(agent, config.rules, config.eval_deals, config.eval_seed)
        scalars = {f"eval/{k}": v for k, v in result.items()}
        if config.eval_search:
            vs = evaluate_against(agent, config.eval_search, config.rules, config.eval_search_deals, config.eval_seed)
            scalars |= {f"eval_search/{k}": v for k, v in vs.items() if k in ("diff", "diff_ci95", "board_win_rate")}
        for key, value in scalars.items():
            writer.add_scalar(key, value, global_step)
        if not quiet:
            echo(f"eval round {done} " + " ".join(f"{k.removeprefix('eval/')} {v:.2f}" for k, v in scalars.items()))
        if config.keep_best and eval_gain(result["diff"], rules) > eval_gain(best["diff"], rules):
            best["diff"] = result["diff"]
            checkpoint(done, "best.pt")

    label_spec = LabelSpec(
        rules=rules,
        teacher=config.teacher,
        seed=(config.seed,),
        temperature=config.temperature,
        anchor=config.anchor,
        chunk=config.label_chunk,
        unvalued=config.unvalued,
        target=config.target,
    )
    ray = None
    session = contextlib.ExitStack()
    if config.label_workers or config.actors:
        from train.distributed.ray_shards import RayOptions, ray_session

        address = config.actors_ray if config.actors else config.label_ray
        ray = RayOptions(address=address, workers=config.label_workers or config.actors)
        session.enter_context(ray_session(ray))  # one Ray for the whole run

    with session:  # Ray (if any) is shut down however the run ends
        if config.collect_shards:
            sharded = open_sharded_collection(
                config, label_spec, policy, reference, stream.env.state, ckpt and ckpt["env"], resume, before_shard
            )
            session.callback(sharded.close)
        stop = config.rounds if stop_at is None else min(stop_at, config.rounds)
        bar = round_bar(stop, min(start_round, stop), progress, desc=rules.name)
        if bar is not None:
            session.callback(bar.close)
        echo = say(bar)
        if ckpt is None and config.eval_initial:
            run_eval(0)
        last_path = checkpoint(0) if stop == 0 or start_round >= stop else ckpt_dir / "latest.pt"
        for rnd in range(start_round, stop):
            if config.anneal_lr:
                optimizer.param_groups[0]["lr"] = config.learning_rate * (1.0 - rnd / max(1, config.rounds))

            # ---- collect and label
            t0 = time.perf_counter()
            policy.eval()
            heuristic_round = rnd < config.heuristic_rounds
            teacher = round_teacher(config, heuristic_round, functools.partial(write_teacher, rnd))
            if config.collect_shards:
                weights = None if heuristic_round else numpy_weights(policy)
                fresh, collect_s, label_s = sharded.round(rnd, heuristic_round, weights, teacher)
            else:
                if heuristic_round:
                    behaviour = heuristic_behaviour(heuristic)
                else:
                    behaviour = learner_behaviour(policy, rngs["behaviour"], dev)
                    if config.opponents == "heuristic":
                        behaviour = against_heuristic(behaviour, heuristic)
                if reference is not None:
                    behaviour = with_reference_probs(behaviour, reference, dev)
                spec = dataclasses.replace(label_spec, seed=(config.seed, rnd), teacher=teacher)
                learner_only = config.train_on == "learner" and not heuristic_round
                fresh, collect_s, label_s = collect_and_label(stream, config, behaviour, spec, ray, learner_only)
            global_step += len(fresh["obs"])
            t2 = time.perf_counter()
            scalars = teacher_agreement(policy, fresh, dev)
            replay = [*replay, fresh][-config.replay_rounds :]

            # ---- train on the replay
            sums, m = train_on_replay(policy, optimizer, replay, rngs["minibatches"], config, dev)
            t3 = time.perf_counter()

            # ---- logging
            scalars |= {f"losses/{k}": float(np.mean(v)) for k, v in sums.items()}
            scalars |= {
                "time/collect_s": collect_s,
                "time/label_s": label_s,
                "time/collect_label_s": t2 - t0,
                **({"time/workers_cpu_s": sharded.cpu_s} if config.collect_shards else {}),
                "time/update_s": t3 - t2,
                **decision_rates(config.num_envs * config.num_steps, collect_s, len(fresh["obs"]), label_s, m, t3 - t2),
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
                "charts/trained_positions": float(m),
            }
            for key, value in scalars.items():
                writer.add_scalar(key, value, global_step)
            if not quiet:
                echo(
                    f"round {rnd + 1}/{config.rounds} positions {global_step} "
                    f"agree {scalars['agreement/teacher']:.3f} nil {scalars['agreement/teacher_nil_hands']:.3f} "
                    f"best {scalars['agreement/teacher_best']:.3f} "
                    f"ce {scalars['losses/cross_entropy']:.3f} "
                    f"v {scalars['losses/value_loss']:.3f} collect {collect_s:.1f}s label {label_s:.1f}s "
                    f"(wall {t2 - t0:.1f}s) update {t3 - t2:.1f}s"
                )
            if bar is not None:
                bar.update(1)

            done = rnd + 1
            eval_due, save_due = due_after(done, config.rounds, stop, config)
            if eval_due:
                run_eval(done)
            if save_due:
                last_path = checkpoint(done)
    writer.close()
    return last_path
