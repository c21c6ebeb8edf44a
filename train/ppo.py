"""PPO self-play for Spades, in the CleanRL style: read it top to bottom.

One network (``agents.neural.SpadesPolicy``: shared torso, card and bidding heads)
plays every seat of ``num_envs`` games in lockstep (``spades_env.VectorSpades``).
Each decision is a transition of the seat that took it; a seat's transitions are
chained per game (``train.ppo_core.TurnBuffer``), and the reward of a hand (the
change of the seat's side score, times ``reward_scale``) is credited to each seat's
last decision of that hand. Optionally a hand's opponents are a past snapshot of
the network (an opponent pool) or HeuristicAgent; their decisions are not trained on.

Run it with ``spades train --config configs/train/smoke.yaml`` (see ``train/cli.py``)
or call ``train(PPOConfig.from_yaml(path))`` (every setting: ``train/ppo_config.py``). TensorBoard logs go to
``{run_dir}/{run_name}`` (behaviour cloning's to ``{run_dir}/{run_name}/imitation``),
checkpoints to ``{run_dir}/{run_name}/checkpoints/``. Resume a stopped or killed run
with ``spades train --resume {run_dir}/{run_name}/checkpoints/latest.pt`` (or
``train(None, resume=path)``): it goes on with the checkpoint's config, beside the
checkpoint, bit-identically to a run that was never stopped.
"""

from __future__ import annotations

import dataclasses
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.base import DecisionContext
from agents.heuristic import HeuristicAgent
from agents.neural import NeuralAgent, SpadesPolicy, torch_device
from train.checkpoint import (
    CHECKPOINT_FORMAT,
    CheckpointError,
    array_to_tensor,
    env_state,
    load_checkpoint,
    restore_env,
    save_checkpoint,
    tensor_to_array,
)
from train.ppo_config import PPOConfig
from train.ppo_core import MaskedCategorical, TurnBuffer, explained_variance, ppo_loss

if TYPE_CHECKING:
    from spades_env.rules import Rules

#: ``opponent`` codes of a game besides pool indices 0, 1, ...
SELF_PLAY, HEURISTIC = -1, -2


@dataclass
class HandStats:
    """Bidding statistics of the hands finished since the last log (partnership or cutthroat)."""

    hands: int = 0
    bids: float = 0.0
    bid_count: int = 0
    sides: int = 0
    contracts: int = 0
    sets: int = 0
    bags: float = 0.0
    nils: int = 0
    nils_made: int = 0
    blind_nils: int = 0
    seat_bids: int = 0
    points: float = 0.0

    def add(self, finished: Any, side_of_seat: np.ndarray, n_sides: int) -> None:
        """Count the hands of an ``engine.FinishedHands`` (bags, sets and nils as the engine scored them)."""
        bids, blind = finished.bids, finished.blind
        nil = bids == 0  # nil and blind nil
        onehot = np.eye(n_sides, dtype=np.int64)[side_of_seat]  # (N, S)
        has_contract = np.where(nil, 0, bids) @ onehot > 0
        self.hands += len(bids)
        self.bids += float(bids[~nil].sum())
        self.bid_count += int((~nil).sum())
        self.sides += bids.shape[0] * n_sides
        self.contracts += int(has_contract.sum())
        self.sets += int((has_contract & ~finished.made).sum())
        self.bags += float(finished.bags_added.sum())
        self.seat_bids += bids.size
        self.nils += int(nil.sum())
        self.nils_made += int(finished.nil_made.sum())
        self.blind_nils += int(blind.sum())
        self.points += float(finished.delta.sum())

    def scalars(self) -> dict[str, float]:
        """``bidding/*`` scalars (empty when no hand finished)."""
        if not self.hands:
            return {}
        return {
            "bidding/mean_bid": self.bids / max(1, self.bid_count),
            "bidding/set_rate": self.sets / max(1, self.contracts),
            "bidding/bags_per_hand": self.bags / self.sides,
            "bidding/nil_rate": self.nils / self.seat_bids,
            "bidding/nil_success": self.nils_made / self.nils if self.nils else float("nan"),
            "bidding/blind_nil_rate": self.blind_nils / self.seat_bids,
            "bidding/points_per_side_hand": self.points / self.sides,
            "bidding/hands": float(self.hands),
        }


def make_run_name(config: PPOConfig, rules_name: str) -> str:
    """``{rules}__{exp_name}__{seed}__{unix time}``."""
    return f"{rules_name}__{config.exp_name}__{config.seed}__{int(time.time())}"


def evaluate_against_heuristic(agent: Any, rules: str, boards: int, seed: int) -> dict[str, float]:
    """Duplicate tournament (``train/tournament.py``, hand mode) of ``agent`` against HeuristicAgent.

    ``rules`` is a preset name or rules YAML path.
    Returns ``points_per_hand`` of each bot (bag-adjusted), ``diff`` (agent - heuristic,
    mean per board) with ``diff_ci95`` (half-width of its 95% interval) and ``board_win_rate``.
    """
    from agents import make_agent
    from train.tournament import TournamentConfig, run_tournament

    config = TournamentConfig(bots=("ppo", "heuristic"), rules=rules, boards=boards, mode="hand", seed=seed)
    factory = lambda spec, s: agent if spec == "ppo" else make_agent(spec, seed=s)  # noqa: E731
    report = run_tournament(config, None, progress=False, agent_factory=factory)
    pair = report["pairs"][0]
    return {
        "points_per_hand": pair["points_per_hand"]["ppo"],
        "heuristic_points_per_hand": pair["points_per_hand"]["heuristic"],
        "diff": pair["diff"],
        "diff_ci95": pair["diff_ci95"],
        "board_win_rate": pair["board_wins"]["ppo"] / max(1, pair["boards"]),
    }


def evaluate(policy: SpadesPolicy, config: PPOConfig, rules: Rules | None = None) -> dict[str, float] | None:
    """``eval/*`` scalars of the greedy policy (trained on ``rules``) against HeuristicAgent, or None if the
    tournament is missing."""
    try:
        import train.tournament  # noqa: F401
    except ImportError:
        return None
    agent = NeuralAgent(_clone(policy, torch.device("cpu")), greedy=True, name="ppo", rules=rules)
    result = evaluate_against_heuristic(agent, config.rules, config.eval_deals, config.eval_seed)
    return {f"eval/{k}": v for k, v in result.items()}


def _clone(policy: SpadesPolicy, device: torch.device) -> SpadesPolicy:
    copy = SpadesPolicy(**policy.hyperparameters())
    copy.load_state_dict({k: v.detach().to("cpu").clone() for k, v in policy.state_dict().items()})
    return copy.to(device).eval()


def _rng_states(rngs: dict[str, np.random.Generator]) -> dict[str, Any]:
    states: dict[str, Any] = {k: g.bit_generator.state for k, g in rngs.items()}
    states["torch"] = torch.get_rng_state()
    if torch.cuda.is_available():
        states["torch_cuda"] = torch.cuda.get_rng_state_all()
    return states


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
    ckpt = load_checkpoint(resume) if resume is not None else None
    if ckpt is not None and ckpt.get("slim"):
        raise ValueError(f"{resume}: a slim checkpoint holds no run state to resume; use init_from to start from it")
    if ckpt is not None:
        missing = [k for k in RUN_KEYS if k not in ckpt]
        if missing or ckpt["format"] != CHECKPOINT_FORMAT:
            raise CheckpointError(
                f"checkpoint {resume}: no run state of format {CHECKPOINT_FORMAT} to resume "
                f"(format {ckpt['format']}, lacking {missing})"
            )
        config = PPOConfig.from_dict(ckpt["config"], source=f"checkpoint {resume}")
        if ckpt["obs_version"] != OBS_VERSION:
            raise ValueError(f"{resume}: observation VERSION {ckpt['obs_version']} != current {OBS_VERSION}")
    assert config is not None
    if device_name is not None:
        config = dataclasses.replace(config, device=device_name)
    device = torch_device(config.device)
    rules = resolve_rules(ckpt["rules"] if ckpt else config.rules)
    run_name = ckpt["run_name"] if ckpt else make_run_name(config, rules.name)
    run_path = Path(config.run_dir) / run_name
    if resume is not None and Path(resume).resolve().parent.name == "checkpoints":
        run_path = Path(resume).resolve().parent.parent  # go on writing beside the checkpoint
    ckpt_dir = run_path / "checkpoints"

    # ---- seeding, in one block
    random.seed(config.seed)
    np.random.seed(config.seed)
    torch.manual_seed(config.seed)
    torch.set_num_threads(config.threads)
    torch.backends.cudnn.deterministic = config.torch_deterministic
    rngs = {
        "actions": np.random.default_rng([config.seed, 1]),
        "minibatches": np.random.default_rng([config.seed, 2]),
        "pool": np.random.default_rng([config.seed, 3]),
    }

    # ---- environment, network, optimizer, buffer
    envs = VectorSpades(rules, config.num_envs, seed=config.seed, episode=config.episode, reward="points")
    if ckpt is not None:
        restore_env(envs, ckpt["env"], resume)
        next_obs, next_mask, next_seat = (tensor_to_array(ckpt[k]) for k in ("next_obs", "next_mask", "next_seat"))
    else:
        next_obs, info = envs.reset(seed=config.seed)
        next_mask, next_seat = info["action_mask"], info["to_play"]
    engine = envs.engine
    side_of_seat = engine.side_of_seat
    n_players, n_sides = engine.n_players, engine.n_sides
    obs_dim, n_actions = next_obs.shape[1], next_mask.shape[1]
    policy = SpadesPolicy.for_engine(engine, obs_dim, hidden=config.hidden, depth=config.depth).to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.learning_rate, eps=1e-5)
    buffer = TurnBuffer(config.num_envs, n_players, config.num_steps, obs_dim, n_actions)
    pool: list[dict[str, torch.Tensor]] = []
    pool_nets: list[SpadesPolicy] = []
    # Per game: the side the learner plays, and who plays the others: SELF_PLAY, HEURISTIC or a pool index.
    learner_side = np.zeros(config.num_envs, np.int64)
    opponent = np.full(config.num_envs, SELF_PLAY, np.int64)
    heuristic = HeuristicAgent(seed=config.seed)
    global_step, start_update = 0, 0
    if ckpt is not None:
        policy.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        buffer.load_state_dict({k: tensor_to_array(v) for k, v in ckpt["buffer"].items()})
        pool = ckpt["pool"]
        # The pool networks are built before the RNG states are restored: building a network
        # draws from torch's RNG, which the uninterrupted run did when each snapshot was taken.
        pool_nets = [_net_from(snapshot, policy, device) for snapshot in pool]
        learner_side, opponent = tensor_to_array(ckpt["learner_side"]), tensor_to_array(ckpt["opponent"])
        global_step, start_update = ckpt["global_step"], ckpt["update"]
        for name, g in rngs.items():
            g.bit_generator.state = ckpt["rng"][name]
        torch.set_rng_state(ckpt["rng"]["torch"])
        if "torch_cuda" in ckpt["rng"] and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(ckpt["rng"]["torch_cuda"])
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
        from train.imitation import ImitationConfig, behaviour_clone

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

    def checkpoint(update: int, name: str = "latest.pt") -> Path:
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
                "rng": _rng_states(rngs),
                "global_step": global_step,
                "update": update,
                "run_name": run_name,
                "env": env_state(envs.state),
                "next_obs": array_to_tensor(next_obs),
                "next_mask": array_to_tensor(next_mask),
                "next_seat": array_to_tensor(next_seat),
                "buffer": {k: array_to_tensor(v) for k, v in buffer.state_dict().items()},
                "pool": pool,
                "learner_side": array_to_tensor(learner_side),
                "opponent": array_to_tensor(opponent),
                "best_diff": best["diff"],
            },
        )

    def draw_opponents(games: np.ndarray) -> None:
        """New learner side and opponents for the given games (at hand ends)."""
        if len(games) == 0 or (config.heuristic_prob == 0 and (config.pool_prob == 0 or not pool)):
            return
        g = rngs["pool"]
        learner_side[games] = g.integers(n_sides, size=len(games))
        use_bot = g.random(len(games)) < config.heuristic_prob
        use_pool = (g.random(len(games)) < config.pool_prob) & (len(pool) > 0)
        snapshot = g.integers(max(1, len(pool)), size=len(games))
        opponent[games] = np.where(use_bot, HEURISTIC, np.where(use_pool, snapshot, SELF_PLAY))

    best = {"diff": ckpt.get("best_diff", -float("inf")) if ckpt else -float("inf")}

    def run_eval(update: int, step: int, label: str = "eval") -> None:
        """Duplicate evaluation against HeuristicAgent; ``best.pt`` keeps the best network so far."""
        result = evaluate(policy, config, rules)
        if result is None:
            return
        for key, value in result.items():
            writer.add_scalar(key, value, step)
        if not quiet:
            print(f"{label} " + " ".join(f"{k[5:]} {v:.2f}" for k, v in result.items()), flush=True)
        if config.keep_best and result["eval/diff"] > best["diff"]:
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
            optimizer.param_groups[0]["lr"] = config.learning_rate * (1.0 - update / config.total_updates)
        rollout_start = time.time()

        # ---- rollout: num_steps decisions in every game
        policy.eval()
        for _ in range(config.num_steps):
            obs_t = torch.as_tensor(next_obs, device=device)
            mask_t = torch.as_tensor(next_mask, device=device)
            with torch.no_grad():
                logits, value = policy(obs_t)
                dist = MaskedCategorical(logits, mask_t)
                action = dist.sample(rngs["actions"])
                learn = (opponent == SELF_PLAY) | (side_of_seat[next_seat] == learner_side)
                for k in np.unique(opponent[~learn]):
                    rows = np.flatnonzero(~learn & (opponent == k))
                    if k == HEURISTIC:
                        ctx = DecisionContext(engine, envs.state, rows, next_seat[rows])
                        action[rows] = heuristic.act(None, next_mask[rows], ctx)
                        continue
                    opp_logits, _ = pool_nets[k](obs_t[rows])
                    action[rows] = MaskedCategorical(opp_logits, mask_t[rows]).sample(rngs["actions"])
                logprob = dist.log_prob(torch.as_tensor(action, device=device))
            buffer.add(next_obs, next_mask, action, logprob.cpu().numpy(), value.cpu().numpy(), next_seat, learn)
            next_obs, rewards, terminated, truncated, info = envs.step(action)
            next_mask, next_seat = info["action_mask"], info["to_play"]
            hand_done = np.asarray(info["hand_done"], bool)
            episode_end = hand_done if config.credit == "hand" else (terminated | truncated)
            buffer.add_rewards(
                np.asarray(rewards, np.float32) * config.reward_scale, episode_end | terminated | truncated
            )
            for finished in info.get("finished_hands", ()):
                stats.add(finished, side_of_seat, n_sides)
            draw_opponents(np.flatnonzero(hand_done))
        global_step += config.num_envs * config.num_steps
        rollout_time = time.time() - rollout_start

        # ---- advantages over each seat's chain of decisions
        advantages, returns = buffer.advantages(config.gamma, config.gae_lambda)
        flat = np.flatnonzero(buffer.trainable().reshape(-1))
        b_obs = torch.as_tensor(buffer.obs.reshape(-1, obs_dim)[flat], device=device)
        b_mask = torch.as_tensor(buffer.mask.reshape(-1, n_actions)[flat], device=device)
        b_actions = torch.as_tensor(buffer.action.reshape(-1)[flat], device=device)
        b_logprobs = torch.as_tensor(buffer.logprob.reshape(-1)[flat], device=device)
        b_values = torch.as_tensor(buffer.value.reshape(-1)[flat], device=device)
        b_adv = torch.as_tensor(advantages.reshape(-1)[flat], device=device)
        b_returns = torch.as_tensor(returns.reshape(-1)[flat], device=device)
        b_bidding = b_mask[:, engine.layout.bid_offset :].any(-1)

        # ---- optimize the policy and value network
        policy.train()
        batch = len(flat)
        mb_size = max(1, batch // config.num_minibatches)
        clipfracs, last_stats, bid_entropy = [], {}, []
        for _epoch in range(config.update_epochs):
            order = rngs["minibatches"].permutation(batch)
            for start in range(0, batch - mb_size + 1, mb_size):
                mb = torch.as_tensor(order[start : start + mb_size], device=device)
                logits, new_value = policy(b_obs[mb])
                dist = MaskedCategorical(logits, b_mask[mb])
                entropy = dist.entropy()
                mb_adv = b_adv[mb]
                if config.norm_adv and len(mb) > 1:
                    mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                loss, last_stats = ppo_loss(
                    dist.log_prob(b_actions[mb]),
                    b_logprobs[mb],
                    mb_adv,
                    new_value,
                    b_values[mb],
                    b_returns[mb],
                    entropy,
                    clip_coef=config.clip_coef,
                    vf_coef=config.vf_coef,
                    ent_coef=config.ent_coef,
                    clip_vloss=config.clip_vloss,
                )
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), config.max_grad_norm)
                optimizer.step()
                clipfracs.append(last_stats["clipfrac"])
                bids = b_bidding[mb]
                if bids.any():
                    bid_entropy.append(entropy[bids].mean().item())
            if config.target_kl is not None and last_stats.get("approx_kl", 0.0) > config.target_kl:
                break
        buffer.start_rollout()

        # ---- snapshots for the opponent pool
        if config.pool_prob > 0 and (update + 1) % config.pool_every == 0:
            snapshot = {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}
            if len(pool) >= config.pool_size:
                pool.pop(0)
                pool_nets.pop(0)
                opponent[opponent == 0] = SELF_PLAY
                opponent[opponent > 0] -= 1
            pool.append(snapshot)
            pool_nets.append(_net_from(snapshot, policy, device))

        # ---- logging
        elapsed = time.time() - start_time
        y_pred, y_true = b_values.cpu().numpy(), b_returns.cpu().numpy()
        scalars = {
            "charts/learning_rate": optimizer.param_groups[0]["lr"],
            "charts/decisions_per_s": (global_step - start_step) / max(elapsed, 1e-9),
            "charts/rollout_decisions_per_s": config.num_envs * config.num_steps / max(rollout_time, 1e-9),
            "charts/trained_decisions": float(batch),
            "charts/pool_size": float(len(pool)),
            "losses/value_loss": last_stats.get("value_loss", float("nan")),
            "losses/policy_loss": last_stats.get("policy_loss", float("nan")),
            "losses/entropy": last_stats.get("entropy", float("nan")),
            "losses/bid_entropy": float(np.mean(bid_entropy)) if bid_entropy else float("nan"),
            "losses/old_approx_kl": last_stats.get("old_approx_kl", float("nan")),
            "losses/approx_kl": last_stats.get("approx_kl", float("nan")),
            "losses/clipfrac": float(np.mean(clipfracs)) if clipfracs else float("nan"),
            "losses/explained_variance": explained_variance(y_pred, y_true),
        } | stats.scalars()
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
        final = done == config.total_updates
        if (config.eval_every and done % config.eval_every == 0) or (final and config.eval_final):
            run_eval(done, global_step, f"eval {done}")
        if done % config.checkpoint_every == 0 or done == stop:
            last_path = checkpoint(done)
    writer.close()
    return last_path


def _net_from(snapshot: dict[str, torch.Tensor], like: SpadesPolicy, device: torch.device) -> SpadesPolicy:
    net = SpadesPolicy(**like.hyperparameters())
    net.load_state_dict(snapshot)
    return net.to(device).eval()
