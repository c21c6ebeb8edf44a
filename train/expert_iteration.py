"""Expert iteration: the network learns to play what the search bot would play, round after round.

Each round

1. **collects** ``num_envs * num_steps`` positions: the behaviour policy plays every seat of
   ``num_envs`` lockstep games (the learner network sampling from its own policy; HeuristicAgent
   for the first ``heuristic_rounds`` rounds), ``train.labelling.PositionStream``;
2. **labels** them with the teacher (``SearchAgent.action_values``, e.g. ``search:fast``):
   the distillation target is softmax(values / ``temperature``) over the valued legal actions,
   the heuristic's action (or the behaviour policy's probabilities) where the teacher gives none,
   ``train.labelling.label_positions``; the value target is the hand's points for the deciding side;
3. **trains** the policy with cross-entropy to the target and the value head with MSE on the
   labelled positions of the last ``replay_rounds`` rounds.

The network is ``agents.neural.SpadesPolicy`` and the checkpoints have PPO's payload format
(``train/checkpoint.py``), so ``neural:path=RUN/checkpoints/best.pt`` plays them and
``spades export`` slims them. Run it with ``spades train --config configs/train/expert_iteration.yaml``
(the ``algorithm: expert_iteration`` key picks this trainer); resume a stopped or killed run with
``spades train --resume RUN/checkpoints/latest.pt``: it goes on bit-identically to a run never stopped.
TensorBoard: ``losses/*``, ``agreement/*`` (the network's greedy action against the teacher's choice on
the round's fresh positions, before training on them), ``time/*`` (collect, label, update seconds) and
``eval/*`` (duplicate evaluation against HeuristicAgent, ``train.ppo.evaluate_against_heuristic``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.heuristic import HeuristicAgent
from agents.neural import NeuralAgent, SpadesPolicy, torch_device
from train.checkpoint import (
    CHECKPOINT_FORMAT,
    CheckpointError,
    array_to_tensor,
    env_state,
    load_checkpoint,
    restore_env,
    restore_rng_states,
    rng_states,
    save_checkpoint,
    tensor_to_array,
)
from train.expert_iteration_config import ExpertIterationConfig
from train.labelling import LabelSpec, PositionStream, heuristic_behaviour, label_positions
from train.ppo import make_run_name
from train.ppo_core import MaskedCategorical
from train.ppo_eval import clone_policy, evaluate_against_heuristic

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
#: The arrays a labelled position trains on (one dict of them per round in the replay).
TRAIN_KEYS = ("obs", "mask", "target", "ret", "has_ret", "valued", "teacher_action", "teacher_best")


def distillation_loss(
    policy: SpadesPolicy,
    obs: torch.Tensor,
    mask: torch.Tensor,
    target: torch.Tensor,
    ret: torch.Tensor,
    has_ret: torch.Tensor,
    vf_coef: float,
) -> tuple[torch.Tensor, dict[str, float]]:
    """Cross-entropy of the masked policy to ``target`` ((B, A) probabilities over legal actions) plus
    ``vf_coef`` times half the squared error of the value head on ``ret`` where ``has_ret``."""
    logits, value = policy(obs)
    logp = MaskedCategorical(logits, mask).logits
    ce = -torch.where(mask, target * logp, torch.zeros_like(logp)).sum(-1).mean()
    v_loss = 0.5 * (((value - ret) ** 2) * has_ret).sum() / has_ret.sum().clamp(min=1)
    return ce + vf_coef * v_loss, {"cross_entropy": ce.item(), "value_loss": v_loss.item()}


@torch.no_grad()
def teacher_agreement(policy: SpadesPolicy, data: dict[str, np.ndarray], device: torch.device) -> dict[str, float]:
    """How often the greedy policy plays the teacher's choice: on the decisions the teacher valued
    (``agreement/teacher``: argmax equality, where a tie between equally valued cards counts only the
    heuristic's pick), there with one of the teacher's best-valued actions (``agreement/teacher_best``:
    ties count) and on every decision (``agreement/all``)."""
    hits = []
    for lo in range(0, len(data["obs"]), 8192):
        obs = torch.as_tensor(data["obs"][lo : lo + 8192], device=device)
        mask = torch.as_tensor(data["mask"][lo : lo + 8192], device=device)
        hits.append(MaskedCategorical(policy(obs)[0], mask).mode().cpu().numpy())
    mode = np.concatenate(hits) if hits else np.zeros(0, np.int64)
    hit = mode == data["teacher_action"]
    best = data["teacher_best"][np.arange(len(mode)), mode]
    valued = data["valued"]
    return {
        "agreement/teacher": float(hit[valued].mean()) if valued.any() else float("nan"),
        "agreement/teacher_best": float(best[valued].mean()) if valued.any() else float("nan"),
        "agreement/all": float(hit.mean()) if len(hit) else float("nan"),
        "agreement/valued_fraction": float(valued.mean()) if len(valued) else float("nan"),
    }


def learner_behaviour(policy: SpadesPolicy, rng: np.random.Generator, device: torch.device):
    """The network as a behaviour policy: each action sampled from its masked softmax (``rng``)."""

    @torch.no_grad()
    def act(obs: np.ndarray, mask: np.ndarray, ctx) -> tuple[np.ndarray, np.ndarray]:
        logits, _ = policy(torch.as_tensor(obs, device=device))
        dist = MaskedCategorical(logits, torch.as_tensor(mask, device=device))
        return dist.sample(rng), dist.probs.float().cpu().numpy()

    return act


def with_reference_probs(behaviour, reference: SpadesPolicy, device: torch.device):
    """``behaviour``'s actions with ``reference``'s probabilities (what the targets anchor to)."""

    @torch.no_grad()
    def act(obs: np.ndarray, mask: np.ndarray, ctx) -> tuple[np.ndarray, np.ndarray]:
        action, _ = behaviour(obs, mask, ctx)
        logits, _ = reference(torch.as_tensor(obs, device=device))
        return action, MaskedCategorical(logits, torch.as_tensor(mask, device=device)).probs.float().cpu().numpy()

    return act


def _load_resume(resume: str | Path) -> tuple[dict[str, Any], ExpertIterationConfig]:
    from spades_env.observation import VERSION as OBS_VERSION

    ckpt = load_checkpoint(resume)
    if ckpt.get("slim"):
        raise ValueError(f"{resume}: a slim checkpoint holds no run state to resume; use init_from to start from it")
    missing = [k for k in RUN_KEYS if k not in ckpt]
    if missing or ckpt["format"] != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"checkpoint {resume}: no expert-iteration run state of format {CHECKPOINT_FORMAT} to resume "
            f"(format {ckpt['format']}, lacking {missing})"
        )
    if ckpt["obs_version"] != OBS_VERSION:
        raise ValueError(f"{resume}: observation VERSION {ckpt['obs_version']} != current {OBS_VERSION}")
    return ckpt, ExpertIterationConfig.from_dict(ckpt["config"], source=f"checkpoint {resume}")


def train(
    config: ExpertIterationConfig | None = None,
    *,
    resume: str | Path | None = None,
    stop_at: int | None = None,
    quiet: bool = False,
    device: str | None = None,
) -> Path:
    """Run (or resume) expert iteration; return the path of the last checkpoint written.

    ``resume``: a checkpoint (``RUN/checkpoints/latest.pt``) to continue from with its own config,
    beside it. ``stop_at``: stop after this many rounds in total, as if killed right after a checkpoint.
    ``device`` overrides the config's.
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
    dev = torch_device(config.device)
    rules = resolve_rules(ckpt["rules"] if ckpt else config.rules)
    run_name = ckpt["run_name"] if ckpt else make_run_name(config, rules.name)
    run_path = Path(config.run_dir) / run_name
    if resume is not None and Path(resume).resolve().parent.name == "checkpoints":
        run_path = Path(resume).resolve().parent.parent
    ckpt_dir = run_path / "checkpoints"

    # ---- seeding, in one block (the teacher is seeded per round and chunk by the labelling)
    random.seed(config.seed)
    np.random.seed(config.seed)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    rngs = {
        "behaviour": np.random.default_rng([config.seed, 1]),
        "minibatches": np.random.default_rng([config.seed, 2]),
    }

    # ---- games, network, optimizer
    stream = PositionStream(rules, config.num_envs, config.seed, config.episode)
    if ckpt is not None:
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
    best = {"diff": -float("inf")}
    if ckpt is not None:
        policy.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        replay = [{k: tensor_to_array(v) for k, v in part.items()} for part in ckpt["replay"]]
        global_step, start_round = ckpt["global_step"], ckpt["update"]
        best["diff"] = ckpt.get("best_diff", -float("inf"))
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

    def checkpoint(done: int, name: str = "latest.pt") -> Path:
        return save_checkpoint(
            ckpt_dir / name,
            {
                "format": CHECKPOINT_FORMAT,
                "rules": rules.to_dict(),
                "obs_version": OBS_VERSION,
                "config": config.to_dict(),
                "model_hparams": policy.hyperparameters(),
                "model": {k: v.detach().cpu() for k, v in policy.state_dict().items()},
                "optimizer": optimizer.state_dict(),
                "rng": rng_states(rngs),
                "global_step": global_step,
                "update": done,
                "run_name": run_name,
                "env": env_state(stream.env.state),
                "next_obs": array_to_tensor(stream.obs),
                "next_mask": array_to_tensor(stream.mask),
                "next_seat": array_to_tensor(stream.seat),
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
        for key, value in result.items():
            writer.add_scalar(f"eval/{key}", value, global_step)
        if not quiet:
            print(f"eval round {done} " + " ".join(f"{k} {v:.2f}" for k, v in result.items()), flush=True)
        if config.keep_best and result["diff"] > best["diff"]:
            best["diff"] = result["diff"]
            checkpoint(done, "best.pt")

    ray = None
    session = contextlib.ExitStack()
    if config.label_workers:
        from train.ray_shards import RayOptions, ray_session

        ray = RayOptions(address=config.label_ray, workers=config.label_workers)
        session.enter_context(ray_session(ray))  # one Ray for the whole run

    with session:  # Ray (if any) is shut down however the run ends
        if ckpt is None and config.eval_initial:
            run_eval(0)
        stop = config.rounds if stop_at is None else min(stop_at, config.rounds)
        last_path = checkpoint(0) if stop == 0 or start_round >= stop else ckpt_dir / "latest.pt"
        for rnd in range(start_round, stop):
            if config.anneal_lr:
                optimizer.param_groups[0]["lr"] = config.learning_rate * (1.0 - rnd / max(1, config.rounds))

            # ---- collect
            t0 = time.perf_counter()
            policy.eval()
            if rnd < config.heuristic_rounds:
                behaviour = heuristic_behaviour(heuristic)
            else:
                behaviour = learner_behaviour(policy, rngs["behaviour"], dev)
            if reference is not None:
                behaviour = with_reference_probs(behaviour, reference, dev)
            positions = stream.collect(config.num_steps, behaviour, config.reward_scale)
            global_step += len(positions)

            # ---- label
            t1 = time.perf_counter()
            spec = LabelSpec(
                rules=rules,
                teacher=config.teacher,
                seed=(config.seed, rnd),
                temperature=config.temperature,
                anchor=config.anchor,
                chunk=config.label_chunk,
                unvalued=config.unvalued,
            )
            labels = label_positions(positions, spec, ray)
            fresh = {
                "obs": positions.obs,
                "mask": positions.mask,
                "target": labels.target,
                "ret": positions.ret,
                "has_ret": positions.has_ret,
                "valued": labels.valued,
                "teacher_action": labels.action,
                "teacher_best": labels.best,
            }
            t2 = time.perf_counter()
            scalars = teacher_agreement(policy, fresh, dev)
            replay = [*replay, fresh][-config.replay_rounds :]

            # ---- train on the replay
            data = {k: torch.as_tensor(np.concatenate([part[k] for part in replay]), device=dev) for k in TRAIN_KEYS}
            has_ret = data["has_ret"].float()
            policy.train()
            sums: dict[str, list[float]] = {}
            m = len(has_ret)
            for _ in range(config.epochs):
                order = rngs["minibatches"].permutation(m)
                for lo in range(0, m, config.minibatch):
                    mb = torch.as_tensor(order[lo : lo + config.minibatch], device=dev)
                    loss, stats = distillation_loss(
                        policy, data["obs"][mb], data["mask"][mb], data["target"][mb], data["ret"][mb], has_ret[mb],
                        config.vf_coef,
                    )  # fmt: skip
                    optimizer.zero_grad()
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(policy.parameters(), config.max_grad_norm)
                    optimizer.step()
                    for k, v in stats.items():
                        sums.setdefault(k, []).append(v)
            policy.eval()
            t3 = time.perf_counter()

            # ---- logging
            scalars |= {f"losses/{k}": float(np.mean(v)) for k, v in sums.items()}
            scalars |= {
                "time/collect_s": t1 - t0,
                "time/label_s": t2 - t1,
                "time/update_s": t3 - t2,
                "charts/labels_per_s": len(positions) / max(t2 - t1, 1e-9),
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
                "charts/trained_positions": float(m),
            }
            for key, value in scalars.items():
                writer.add_scalar(key, value, global_step)
            if not quiet:
                print(
                    f"round {rnd + 1}/{config.rounds} positions {global_step} "
                    f"agree {scalars['agreement/teacher']:.3f} best {scalars['agreement/teacher_best']:.3f} "
                    f"ce {scalars['losses/cross_entropy']:.3f} "
                    f"v {scalars['losses/value_loss']:.3f} collect {t1 - t0:.0f}s label {t2 - t1:.0f}s "
                    f"update {t3 - t2:.0f}s",
                    flush=True,
                )

            done = rnd + 1
            if (config.eval_every and done % config.eval_every == 0) or (done == config.rounds and config.eval_final):
                run_eval(done)
            if done % config.checkpoint_every == 0 or done == stop:
                last_path = checkpoint(done)
    writer.close()
    return last_path
