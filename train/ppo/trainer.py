"""PPO self-play for Spades, in the CleanRL style: ``train`` reads top to bottom.

One network (``agents.policy.SpadesPolicy``: shared torso, card and bidding heads)
plays every seat of ``num_envs`` games in lockstep (``spades_env.VectorSpades``).
The pieces live beside it: rollout collection and the opponents (``train/ppo/rollout.py``),
the update (``train/ppo/update.py``), bidding statistics (``train/ppo/stats.py``),
evaluation against HeuristicAgent (``train/evaluation/network_eval.py``), buffer, GAE and loss
(``train/ppo/core.py``) and the settings (``train/ppo/config.py``).

Run it with ``spades train --config configs/train/smoke.yaml`` (see ``train/cli/training.py``)
or call ``train(PPOConfig.from_yaml(path))`` (every setting: ``train/ppo/config.py``). TensorBoard logs go to
``{run_dir}/{run_name}`` (behaviour cloning's to ``{run_dir}/{run_name}/imitation``),
checkpoints to ``{run_dir}/{run_name}/checkpoints/``. Resume a stopped or killed run
with ``spades train --resume {run_dir}/{run_name}/checkpoints/latest.pt`` (or
``train(None, resume=path)``): it goes on with the checkpoint's config, beside the
checkpoint, bit-identically to a run that was never stopped.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.neural import SpadesPolicy, torch_device
from train.evaluation.network_eval import due_after, eval_gain, evaluate, evaluate_against_heuristic
from train.ppo.config import PPOConfig
from train.ppo.core import TurnBuffer
from train.ppo.critic import ActorCritic, PerfectCritic, policy_columns
from train.ppo.hindsight_bids import HindsightBids, hindsight_scalars
from train.ppo.opponents import HEURISTIC, SELF_PLAY, Opponents
from train.ppo.pairing import PairedGames
from train.ppo.rollout import collect_rollout
from train.ppo.stats import HandStats
from train.ppo.update import ppo_update
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
    seed_everything,
    tensor_to_array,
    training_payload,
)

__all__ = [
    "HEURISTIC",
    "SELF_PLAY",
    "HandStats",
    "PPOConfig",
    "evaluate",
    "evaluate_against_heuristic",
    "train",
]


#: Keys of a full checkpoint beyond ``REQUIRED_KEYS``: the run state that resuming needs.
RUN_KEYS = (
    "optimizer", "rng", "update", "run_name", "env", "next_obs", "next_mask", "next_seat",
    "buffer", "pool", "learner_side", "opponent",
)  # fmt: skip


def train(
    config: PPOConfig | None = None,
    *,
    resume: str | Path | None = None,
    stop_at: int | None = None,
    quiet: bool = False,
    device: str | None = None,
) -> Path:
    """Run (or resume) PPO self-play; return the path of the last checkpoint written.

    ``resume``: a checkpoint to continue from; its config is used (``config``, which may be
    None then, only supplies ``device``); logs and checkpoints go on in the run directory
    that holds it. ``device`` overrides the config's device.
    ``stop_at``: stop after this many updates in total, as if the run had been killed
    right after a checkpoint (used to test that resuming reproduces a full run).
    """
    from torch.utils.tensorboard import SummaryWriter

    from spades_env.envs.vector import VectorSpades
    from spades_env.observation import VERSION as OBS_VERSION
    from spades_env.rules import resolve_rules

    if config is None and resume is None:
        raise ValueError("train needs a config, or a checkpoint to resume")
    device_name = device if device is not None else (config.device if config is not None else None)
    if device_name is not None:
        torch_device(device_name)  # a missing GPU fails before any work
    ckpt = load_run_state(resume, RUN_KEYS) if resume is not None else None
    if ckpt is not None:
        config = PPOConfig.from_dict(ckpt["config"], source=f"checkpoint {resume}")
    assert config is not None
    if device_name is not None:
        config = dataclasses.replace(config, device=device_name)
    device = torch_device(config.device)
    rules = resolve_rules(ckpt["rules"] if ckpt else config.rules)
    run_name = ckpt["run_name"] if ckpt else make_run_name(config, rules.name)
    run_path = run_path_of(config.run_dir, run_name, resume)
    ckpt_dir = run_path / "checkpoints"

    # ---- seeding, in one block
    seed_everything(config.seed, config.threads)
    torch.backends.cudnn.deterministic = config.torch_deterministic
    rngs = {
        "actions": np.random.default_rng([config.seed, 1]),
        "minibatches": np.random.default_rng([config.seed, 2]),
        "pool": np.random.default_rng([config.seed, 3]),
    }

    # ---- environment, network, optimizer, buffer
    perfect = config.critic == "perfect"
    envs = VectorSpades(
        rules,
        config.num_envs,
        seed=config.seed,
        perfect_information=perfect,
        auto_reset=not config.paired,  # twins restart their matches together (train/ppo/pairing.py)
        episode=config.episode,
        reward="points",
    )
    if ckpt is not None:
        restore_env(envs, ckpt["env"], resume)
        next_obs, next_mask, next_seat = (tensor_to_array(ckpt[k]) for k in ("next_obs", "next_mask", "next_seat"))
    else:
        seeds = PairedGames.seeds(config.seed, config.num_envs) if config.paired else config.seed
        next_obs, info = envs.reset(seed=seeds)
        next_mask, next_seat = info["action_mask"], info["to_play"]
    engine = envs.engine
    n_players, n_sides = engine.n_players, engine.n_sides
    obs_dim, n_actions = next_obs.shape[1], next_mask.shape[1]
    columns = policy_columns(envs.encoder) if perfect else None
    policy_dim = obs_dim if columns is None else len(columns)
    policy = SpadesPolicy.for_engine(
        engine,
        policy_dim,
        hidden=config.hidden,
        depth=config.depth,
        card_features=config.card_features,
        card_feature_logits=config.card_feature_logits,
    ).to(device)
    if perfect:
        obs_dim += ActorCritic.EXTRA_COLUMNS
    critic = PerfectCritic(obs_dim, config.hidden, config.depth).to(device) if perfect else None
    model = ActorCritic(policy, critic, columns)
    optimizer = model.make_optimizer(config.learning_rate)
    buffer = TurnBuffer(config.num_envs, n_players, config.num_steps, obs_dim, n_actions)
    opponents = Opponents(config, n_sides, rngs["pool"])
    pairing = PairedGames(config.num_envs, n_players, config.pair_weight) if config.paired else None
    hindsight = None
    if config.bid_learning == "hindsight":
        n_bids = engine.layout.bid_end - engine.layout.bid_offset
        if n_bids <= 0:
            raise ValueError(f"bid_learning: hindsight needs bids, and the rules {rules.name!r} have none")
        hindsight = HindsightBids(config.num_envs, n_players, obs_dim, n_bids)
    if pairing is not None and ckpt is None:
        pairing.draw_opponents(opponents, envs.state, np.arange(config.num_envs))
    global_step, start_update = 0, 0
    if ckpt is not None:
        policy.load_state_dict(ckpt["model"])
        if critic is not None:
            critic.load_state_dict(ckpt["critic"])
        optimizer.load_state_dict(ckpt["optimizer"])
        buffer.load_state_dict({k: tensor_to_array(v) for k, v in ckpt["buffer"].items()})
        opponents.restore(ckpt["pool"], policy, device)  # before the RNG states are restored
        opponents.learner_side = tensor_to_array(ckpt["learner_side"])
        opponents.opponent = tensor_to_array(ckpt["opponent"])
        if pairing is not None:
            pairing.load_state_dict({k: tensor_to_array(v) for k, v in ckpt["pairing"].items()})
        if hindsight is not None:
            hindsight.load_state_dict({k: tensor_to_array(v) for k, v in ckpt["hindsight"].items()})
        global_step, start_update = ckpt["global_step"], ckpt["update"]
        restore_rng_states(rngs, ckpt["rng"])
    elif config.init_from:
        init = load_checkpoint(config.init_from)
        if init["obs_version"] != OBS_VERSION:
            raise ValueError(f"{config.init_from}: observation VERSION {init['obs_version']} != current {OBS_VERSION}")
        if init["model_hparams"] != policy.hyperparameters():
            raise ValueError(f"{config.init_from}: network {init['model_hparams']} != {policy.hyperparameters()}")
        policy.load_state_dict(init["model"])

    # On resume TensorBoard drops what a killed run logged after its checkpoint: every step past
    # the checkpoint's (its own update logged at ``global_step`` stays). Behaviour cloning logs
    # by examples seen, in a directory of its own, so that no purge reaches it.
    writer = SummaryWriter(str(run_path), purge_step=global_step + 1 if ckpt else None)
    if ckpt is None:
        table = "\n".join(f"|{k}|{v}|" for k, v in config.to_dict().items())
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")
        writer.add_text("rules", "|field|value|\n|-|-|\n" + "\n".join(f"|{k}|{v}|" for k, v in rules.to_dict().items()))

    if ckpt is None and config.imitation_updates > 0:
        from train.ppo.imitation import ImitationConfig, behaviour_clone

        def either(value: int | None, default: int) -> int:
            return default if value is None else value

        imitation = ImitationConfig(
            rules=config.rules,
            updates=config.imitation_updates,
            num_envs=either(config.imitation_num_envs, config.num_envs),
            num_steps=either(config.imitation_num_steps, config.num_steps),
            epochs=either(config.imitation_epochs, config.update_epochs),
            minibatch=either(
                config.imitation_minibatch, max(1, config.num_envs * config.num_steps // config.num_minibatches)
            ),
            learning_rate=config.imitation_learning_rate,
            reward_scale=config.reward_scale,
            episode=config.episode,
            seed=config.seed,
            heldout=config.imitation_heldout,
        )
        bc_start = time.time()
        bc_writer = SummaryWriter(str(run_path / "imitation"))
        behaviour_clone(policy, imitation, device=device, writer=bc_writer, quiet=quiet)
        bc_writer.close()
        if not quiet:
            print(f"imitation took {time.time() - bc_start:.0f} s", flush=True)

    def extra_state() -> dict[str, Any]:
        """What a perfect critic, paired games and bids learned in hindsight add to a checkpoint."""
        extra: dict[str, Any] = {}
        if critic is not None:
            extra["critic_hparams"] = critic.hyperparameters()
            extra["critic"] = {k: v.detach().cpu() for k, v in critic.state_dict().items()}
        if pairing is not None:
            extra["pairing"] = {k: array_to_tensor(v) for k, v in pairing.state_dict().items()}
        if hindsight is not None:
            extra["hindsight"] = {k: array_to_tensor(v) for k, v in hindsight.state_dict().items()}
        return extra

    def checkpoint(update: int, name: str = "latest.pt") -> Path:
        return save_checkpoint(
            ckpt_dir / name,
            {
                **training_payload(
                    rules=rules,
                    config=config,
                    policy=policy,
                    optimizer=optimizer,
                    rngs=rngs,
                    global_step=global_step,
                    update=update,
                    run_name=run_name,
                ),
                "env": env_state(envs.state),
                "next_obs": array_to_tensor(next_obs),
                "next_mask": array_to_tensor(next_mask),
                "next_seat": array_to_tensor(next_seat),
                "buffer": {k: array_to_tensor(v) for k, v in buffer.state_dict().items()},
                "pool": opponents.pool,
                "learner_side": array_to_tensor(opponents.learner_side),
                "opponent": array_to_tensor(opponents.opponent),
                "best_diff": best["diff"],
                **extra_state(),
            },
        )

    worst = eval_gain(-float("inf"), rules)  # the diff of gain -inf (eval_gain is its own inverse)
    best = {"diff": ckpt.get("best_diff", worst) if ckpt else worst}

    def run_eval(update: int, step: int, label: str = "eval") -> None:
        """Duplicate evaluation against HeuristicAgent; ``best.pt`` keeps the best network so far."""
        result = evaluate(policy, config, rules)
        if result is None:
            return
        for key, value in result.items():
            writer.add_scalar(key, value, step)
        if not quiet:
            print(f"{label} " + " ".join(f"{k.removeprefix('eval/')} {v:.2f}" for k, v in result.items()), flush=True)
        if config.keep_best and eval_gain(result["eval/diff"], rules) > eval_gain(best["diff"], rules):
            best["diff"] = result["eval/diff"]
            checkpoint(update, "best.pt")

    if ckpt is None and config.imitation_updates > 0:
        checkpoint(0, "imitation.pt")
        if config.eval_every or (config.total_updates == 0 and config.eval_final):
            run_eval(0, 0, "eval after imitation")

    stop = config.total_updates if stop_at is None else min(stop_at, config.total_updates)
    last_path = checkpoint(0) if stop == 0 else ckpt_dir / "latest.pt"
    stats = HandStats()
    start_time, start_step = time.time(), global_step
    for update in range(start_update, stop):
        if config.anneal_lr:
            for group in optimizer.param_groups:
                group["lr"] = config.learning_rate * (1.0 - update / config.total_updates)
        rollout_start = time.time()

        # ---- rollout: num_steps decisions in every game
        next_obs, next_mask, next_seat = collect_rollout(
            model,
            envs,
            buffer,
            opponents,
            (next_obs, next_mask, next_seat),
            config=config,
            rng=rngs["actions"],
            stats=stats,
            device=device,
            pairing=pairing,
            hindsight=hindsight,
        )
        global_step += config.num_envs * config.num_steps
        bid_examples = None if hindsight is None else hindsight.take()
        rollout_time = time.time() - rollout_start

        # ---- advantages over each seat's chain of decisions; optimize the policy and value network
        result = ppo_update(
            model,
            optimizer,
            buffer,
            config=config,
            bid_offset=engine.layout.bid_offset,
            rng=rngs["minibatches"],
            device=device,
            hindsight=bid_examples,
        )

        # ---- snapshots for the opponent pool
        if config.pool_prob > 0 and (update + 1) % config.pool_every == 0:
            opponents.add_snapshot(policy, device)

        # ---- logging
        elapsed = time.time() - start_time
        scalars = (
            {
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
                "charts/decisions_per_s": (global_step - start_step) / max(elapsed, 1e-9),
                "charts/rollout_decisions_per_s": config.num_envs * config.num_steps / max(rollout_time, 1e-9),
                "charts/pool_size": float(len(opponents.pool)),
            }
            | result.scalars()
            | stats.scalars()
            | ({} if pairing is None else pairing.scalars())
            | hindsight_scalars(bid_examples)
        )
        for key, value in scalars.items():
            writer.add_scalar(key, value, global_step)
        if not quiet:
            bid = scalars.get("bidding/mean_bid", float("nan"))
            pts = scalars.get("bidding/points_per_side_hand", float("nan"))
            print(
                f"update {update + 1}/{config.total_updates} step {global_step} "
                f"dps {scalars['charts/decisions_per_s']:.0f} ev {scalars['losses/explained_variance']:.3f} "
                f"ent {scalars['losses/entropy']:.3f} mean_bid {bid:.2f} pts/side-hand {pts:.1f}",
                flush=True,
            )
        stats = HandStats()

        done = update + 1
        eval_due, save_due = due_after(done, config.total_updates, stop, config)
        if eval_due:
            run_eval(done, global_step, f"eval {done}")
        if save_due:
            last_path = checkpoint(done)
    writer.close()
    return last_path
