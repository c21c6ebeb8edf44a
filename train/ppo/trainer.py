"""PPO self-play for Spades, in the CleanRL style: ``PPORun`` reads top to bottom, one step a method.

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

import functools
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.neural import SpadesPolicy
from spades_env.envs.vector import VectorSpades
from train.evaluation.network_eval import eval_gain, evaluate, evaluate_against_heuristic
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
    load_run_state,
    restore_env,
    restore_rng_states,
    save_checkpoint,
    tensor_to_array,
)
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
    start = start_run(config, resume, _load_resume, "train", device=device)
    torch.backends.cudnn.deterministic = start.config.torch_deterministic
    run = PPORun(start, resume, quiet)
    try:
        run.imitate()
        return run.play(stop_at)
    finally:
        run.writer.close()


def _load_resume(resume: str | Path) -> tuple[dict[str, Any], PPOConfig]:
    ckpt = load_run_state(resume, RUN_KEYS)
    return ckpt, PPOConfig.from_dict(ckpt["config"], source=f"checkpoint {resume}")


class PPORun:
    """One run's state: the games, the network (and a perfect critic), optimizer, turn buffer, opponents, paired
    games and bids learned in hindsight, restored when resumed. ``train`` drives it: ``imitate`` then ``play``."""

    def __init__(self, start: RunStart, resume: str | Path | None, quiet: bool) -> None:
        config, ckpt, rules = start.config, start.ckpt, start.rules
        self.start, self.config, self.rules, self.device, self.quiet = start, config, rules, start.device, quiet
        # ---- seeding, in one block
        self.rngs = {
            "actions": np.random.default_rng([config.seed, 1]),
            "minibatches": np.random.default_rng([config.seed, 2]),
            "pool": np.random.default_rng([config.seed, 3]),
        }
        self.open_games(resume)
        self.build_network()
        self.global_step, self.start_update = 0, 0
        if ckpt is not None:
            self.restore(ckpt)
        elif config.init_from:
            load_initial_weights(self.policy, config.init_from)
        # On resume TensorBoard drops what a killed run logged after its checkpoint: every step past
        # the checkpoint's (its own update logged at ``global_step`` stays). Behaviour cloning logs
        # by examples seen, in a directory of its own, so that no purge reaches it.
        self.writer = open_writer(start, self.global_step)
        self.best = BestNetwork(functools.partial(eval_gain, rules=rules), ckpt)

    def open_games(self, resume: str | Path | None) -> None:
        """The vector of games, new or as the checkpoint left them, and their pending decisions."""
        config, ckpt = self.config, self.start.ckpt
        perfect = config.critic == "perfect"
        self.envs = VectorSpades(
            self.rules,
            config.num_envs,
            seed=config.seed,
            perfect_information=perfect,
            auto_reset=not config.paired,  # twins restart their matches together (train/ppo/pairing.py)
            episode=config.episode,
            reward="points",
        )
        if ckpt is not None:
            restore_env(self.envs, ckpt["env"], resume)
            self.pending = tuple(tensor_to_array(ckpt[k]) for k in ("next_obs", "next_mask", "next_seat"))
        else:
            seeds = PairedGames.seeds(config.seed, config.num_envs) if config.paired else config.seed
            next_obs, info = self.envs.reset(seed=seeds)
            self.pending = (next_obs, info["action_mask"], info["to_play"])

    def build_network(self) -> None:
        """The policy (and a perfect critic), optimizer, turn buffer, opponents, paired games, hindsight bids."""
        config, engine, device = self.config, self.envs.engine, self.device
        n_players, n_sides = engine.n_players, engine.n_sides
        obs_dim, n_actions = self.pending[0].shape[1], self.pending[1].shape[1]
        perfect = config.critic == "perfect"
        columns = policy_columns(self.envs.encoder) if perfect else None
        self.policy = SpadesPolicy.for_engine(
            engine,
            obs_dim if columns is None else len(columns),
            hidden=config.hidden,
            depth=config.depth,
            card_features=config.card_features,
            card_feature_logits=config.card_feature_logits,
        ).to(device)
        if perfect:
            obs_dim += ActorCritic.EXTRA_COLUMNS
        self.critic = PerfectCritic(obs_dim, config.hidden, config.depth).to(device) if perfect else None
        self.model = ActorCritic(self.policy, self.critic, columns)
        self.optimizer = self.model.make_optimizer(config.learning_rate)
        self.buffer = TurnBuffer(config.num_envs, n_players, config.num_steps, obs_dim, n_actions)
        self.opponents = Opponents(config, n_sides, self.rngs["pool"])
        self.pairing = PairedGames(config.num_envs, n_players, config.pair_weight) if config.paired else None
        self.hindsight = None
        if config.bid_learning == "hindsight":
            n_bids = engine.layout.bid_end - engine.layout.bid_offset
            if n_bids <= 0:
                raise ValueError(f"bid_learning: hindsight needs bids, and the rules {self.rules.name!r} have none")
            self.hindsight = HindsightBids(config.num_envs, n_players, obs_dim, n_bids)
        if self.pairing is not None and self.start.ckpt is None:
            self.pairing.draw_opponents(self.opponents, self.envs.state, np.arange(config.num_envs))

    def restore(self, ckpt: dict[str, Any]) -> None:
        """Everything the checkpoint holds of the run, the generators last."""
        self.policy.load_state_dict(ckpt["model"])
        if self.critic is not None:
            self.critic.load_state_dict(ckpt["critic"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.buffer.load_state_dict({k: tensor_to_array(v) for k, v in ckpt["buffer"].items()})
        self.opponents.restore(ckpt["pool"], self.policy, self.device)  # before the RNG states are restored
        self.opponents.learner_side = tensor_to_array(ckpt["learner_side"])
        self.opponents.opponent = tensor_to_array(ckpt["opponent"])
        if self.pairing is not None:
            self.pairing.load_state_dict({k: tensor_to_array(v) for k, v in ckpt["pairing"].items()})
        if self.hindsight is not None:
            self.hindsight.load_state_dict({k: tensor_to_array(v) for k, v in ckpt["hindsight"].items()})
        self.global_step, self.start_update = ckpt["global_step"], ckpt["update"]
        restore_rng_states(self.rngs, ckpt["rng"])

    def imitate(self) -> None:
        """A new run with ``imitation_updates``: behaviour cloning of HeuristicAgent first (its own TensorBoard
        directory, ``imitation.pt``, an evaluation after it)."""
        config = self.config
        if self.start.ckpt is not None or config.imitation_updates <= 0:
            return
        from torch.utils.tensorboard import SummaryWriter

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
        bc_writer = SummaryWriter(str(self.start.path / "imitation"))
        behaviour_clone(self.policy, imitation, device=self.device, writer=bc_writer, quiet=self.quiet)
        bc_writer.close()
        if not self.quiet:
            print(f"imitation took {time.time() - bc_start:.0f} s", flush=True)
        self.checkpoint(0, "imitation.pt")
        if config.eval_every or (config.total_updates == 0 and config.eval_final):
            self.evaluate(0, 0, "eval after imitation")

    def play(self, stop_at: int | None) -> Path:
        """The updates from where the run stands to ``stop_at`` (None: all); the path of the last checkpoint."""
        config = self.config
        stop = config.total_updates if stop_at is None else min(stop_at, config.total_updates)
        last_path = self.checkpoint(0) if stop == 0 else self.start.checkpoints / "latest.pt"
        self.clock = (time.time(), self.global_step)
        evaluate = lambda done: self.evaluate(done, self.global_step, f"eval {done}")  # noqa: E731
        return run_rounds(
            self.start_update, stop, config.total_updates, config, self.update, evaluate, self.checkpoint, last_path
        )

    def update(self, update: int) -> None:
        """One rollout of ``num_steps`` decisions in every game, the PPO update on it, the pool's snapshot, the log."""
        config = self.config
        if config.anneal_lr:
            anneal_learning_rate(self.optimizer, config.learning_rate, update, config.total_updates)
        rollout_start = time.time()
        stats = HandStats()
        self.pending = collect_rollout(
            self.model,
            self.envs,
            self.buffer,
            self.opponents,
            self.pending,
            config=config,
            rng=self.rngs["actions"],
            stats=stats,
            device=self.device,
            pairing=self.pairing,
            hindsight=self.hindsight,
        )
        self.global_step += config.num_envs * config.num_steps
        bid_examples = None if self.hindsight is None else self.hindsight.take()
        rollout_time = time.time() - rollout_start
        # ---- advantages over each seat's chain of decisions; optimize the policy and value network
        result = ppo_update(
            self.model,
            self.optimizer,
            self.buffer,
            config=config,
            bid_offset=self.envs.engine.layout.bid_offset,
            rng=self.rngs["minibatches"],
            device=self.device,
            hindsight=bid_examples,
        )
        if config.pool_prob > 0 and (update + 1) % config.pool_every == 0:
            self.opponents.add_snapshot(self.policy, self.device)
        scalars = self.rates(rollout_time) | result.scalars() | stats.scalars() | hindsight_scalars(bid_examples)
        scalars |= {} if self.pairing is None else self.pairing.scalars()
        for key, value in scalars.items():
            self.writer.add_scalar(key, value, self.global_step)
        if not self.quiet:
            bid = scalars.get("bidding/mean_bid", float("nan"))
            pts = scalars.get("bidding/points_per_side_hand", float("nan"))
            print(
                f"update {update + 1}/{config.total_updates} step {self.global_step} "
                f"dps {scalars['charts/decisions_per_s']:.0f} ev {scalars['losses/explained_variance']:.3f} "
                f"ent {scalars['losses/entropy']:.3f} mean_bid {bid:.2f} pts/side-hand {pts:.1f}",
                flush=True,
            )

    def rates(self, rollout_time: float) -> dict[str, float]:
        """The update's ``charts/*``: learning rate, decisions per second (run and rollout), pool size."""
        config = self.config
        start_time, start_step = self.clock
        elapsed = time.time() - start_time
        return {
            "charts/learning_rate": self.optimizer.param_groups[0]["lr"],
            "charts/decisions_per_s": (self.global_step - start_step) / max(elapsed, 1e-9),
            "charts/rollout_decisions_per_s": config.num_envs * config.num_steps / max(rollout_time, 1e-9),
            "charts/pool_size": float(len(self.opponents.pool)),
        }

    def extra_state(self) -> dict[str, Any]:
        """What a perfect critic, paired games and bids learned in hindsight add to a checkpoint."""
        extra: dict[str, Any] = {}
        if self.critic is not None:
            extra["critic_hparams"] = self.critic.hyperparameters()
            extra["critic"] = {k: v.detach().cpu() for k, v in self.critic.state_dict().items()}
        if self.pairing is not None:
            extra["pairing"] = {k: array_to_tensor(v) for k, v in self.pairing.state_dict().items()}
        if self.hindsight is not None:
            extra["hindsight"] = {k: array_to_tensor(v) for k, v in self.hindsight.state_dict().items()}
        return extra

    def checkpoint(self, update: int, name: str = "latest.pt") -> Path:
        next_obs, next_mask, next_seat = self.pending
        payload = run_payload(self, update)
        return save_checkpoint(
            self.start.checkpoints / name,
            {
                **payload,
                "env": env_state(self.envs.state),
                "next_obs": array_to_tensor(next_obs),
                "next_mask": array_to_tensor(next_mask),
                "next_seat": array_to_tensor(next_seat),
                "buffer": {k: array_to_tensor(v) for k, v in self.buffer.state_dict().items()},
                "pool": self.opponents.pool,
                "learner_side": array_to_tensor(self.opponents.learner_side),
                "opponent": array_to_tensor(self.opponents.opponent),
                "best_diff": self.best.diff,
                **self.extra_state(),
            },
        )

    def evaluate(self, update: int, step: int, label: str = "eval") -> None:
        """Duplicate evaluation against HeuristicAgent; ``best.pt`` keeps the best network so far."""
        result = evaluate(self.policy, self.config, self.rules)
        if result is None:
            return
        for key, value in result.items():
            self.writer.add_scalar(key, value, step)
        if not self.quiet:
            print(f"{label} " + " ".join(f"{k.removeprefix('eval/')} {v:.2f}" for k, v in result.items()), flush=True)
        if self.config.keep_best and self.best.improves(result["eval/diff"]):
            self.checkpoint(update, "best.pt")
