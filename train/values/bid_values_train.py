"""The ``bid_values`` trainer: the bidding head learns each bid's value from rollouts on the real deal.

Each round

1. **deals** ``deals`` new hands (hand mode); the learner holds one side of each (the other seats:
   HeuristicAgent) and bids greedily on its values (``explore`` of its bids at random);
2. **values** every candidate bid of each of the learner's bidding decisions on the real deal, the bidding
   finished by the same bidders and the hand played out by the compiled heuristic
   (``train.values.bid_values.collect_bid_positions``);
3. **trains** the bidding head's outputs, read as values, toward the rollouts' values centred on each
   decision's mean (``train.values.bid_values.centred_value_loss``), on the last ``replay_rounds`` rounds.

With ``card_weight`` or ``card_value_hidden`` the realized hands are played out too (the learner's cards by the
network) and its kept card decisions train the card head toward the heuristic's card (DAgger) and/or a card value
head toward every legal card's value on the real deal (``train/values/card_values.py``).

``pipeline: true`` collects each next round in a thread of its own while the update trains
(``train/values/bid_values_round.py``).

The checkpoints have PPO's payload format (``train/runs/checkpoint.py``), and the config's ``card_play`` says who plays
the cards when ``neural:path=RUN/checkpoints/best.pt`` plays them. Run it with ``spades train --config
configs/train/bid_values.yaml`` (``algorithm: bid_values``); resume a stopped or killed run with ``spades train
--resume RUN/checkpoints/latest.pt``: it goes on bit-identically to a run never stopped (the replay's games are
kept, their observations encoded again). TensorBoard: ``losses/value_loss``, ``regret/*`` (the points the
learner's bid, before training on the round, and the heuristic's bid leave to the best candidate of the
round's rollouts: the rollouts see every hand, so neither reaches 0), ``bidding/*``, ``time/*``, ``eval/*``
(duplicate evaluation against HeuristicAgent, ``train.evaluation.network_eval.evaluate_against_heuristic``).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.heuristic import HeuristicAgent
from agents.neural import NeuralAgent, SpadesPolicy
from train.evaluation.network_eval import clone_policy, eval_gain, evaluate_against_heuristic
from train.runs.checkpoint import load_run_state, restore_rng_states, save_checkpoint
from train.runs.scaffold import (
    BestNetwork,
    RunStart,
    anneal_learning_rate,
    open_writer,
    run_payload,
    run_rounds,
    start_run,
)
from train.values.bid_values import BidLearner, BidPositions, CardPositions, card_loss, centred_value_loss
from train.values.bid_values_config import BidValuesConfig
from train.values.bid_values_network import (
    collected_from_payload,
    collected_payload,
    load_network,
    load_value_teacher,
    positions_from_payload,
    positions_payload,
)
from train.values.bid_values_round import CARD_SCALARS_SHOWN, Collected, RoundCollector, bid_line
from train.values.card_values import card_value_loss

#: Keys of a full checkpoint beyond ``REQUIRED_KEYS``: the run state that resuming needs.
RUN_KEYS = ("optimizer", "rng", "update", "run_name", "replay")


def train_on_replay(
    policy, optimizer, replay: list[BidPositions], rng, config: BidValuesConfig, dev, cards: list[CardPositions] = ()
) -> dict[str, float]:
    """``epochs`` passes of minibatch Adam over the replay's bid positions (and, with ``cards``, as many
    minibatches of its card positions, the card loss weighing ``card_weight``); the last pass's mean losses."""
    bids = config.trains_bids  # else the bids' loss moves nothing (Hearts: there are none)
    if bids:
        obs = torch.as_tensor(np.concatenate([p.obs for p in replay]), device=dev)
        cand = torch.as_tensor(np.concatenate([p.cand for p in replay]), device=dev)
        values = torch.as_tensor(np.concatenate([p.values for p in replay]) / config.value_scale, device=dev)
    card_obs = card_mask = card_target = card_values = None
    if cards:
        card_obs = torch.as_tensor(np.concatenate([p.obs for p in cards]), device=dev)
        card_mask = torch.as_tensor(np.concatenate([p.mask for p in cards]), device=dev)
        card_target = torch.as_tensor(np.concatenate([p.target for p in cards]), device=dev)
        if config.card_value_hidden:
            card_values = torch.as_tensor(np.concatenate([p.values for p in cards]) / config.value_scale, device=dev)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    off = policy.n_card_actions
    policy.train()
    sums: dict[str, list[float]] = {}
    for _ in range(config.epochs):
        sums = {"value_loss": [], "card_loss": [], "card_value_loss": []}
        order = torch.as_tensor(rng.permutation(sum(len(p) for p in replay)), device=dev)  # drawn even if unused
        steps = range(0, len(order) if bids else len(card_obs), config.minibatch)  # minibatches of what trains
        card_batches = np.array_split(rng.permutation(len(card_obs)), len(steps)) if card_obs is not None else None
        for i, lo in enumerate(steps):
            idx = order[lo : lo + config.minibatch]
            loss = torch.zeros((), device=dev)
            if bids:
                loss = centred_value_loss(policy.action_logits(obs[idx])[:, off:], cand[idx], values[idx])
                sums["value_loss"].append(loss.item())
            if card_batches is not None and len(card_batches[i]):
                c = torch.as_tensor(card_batches[i], device=dev)
                if config.card_weight > 0:
                    logits = policy.action_logits(card_obs[c], bids=False)[:, :off]
                    cl = card_loss(logits, card_mask[c], card_target[c])
                    sums["card_loss"].append(cl.item())
                    loss = loss + config.card_weight * cl
                if card_values is not None:
                    vl = card_value_loss(policy, card_obs[c], card_mask[c], card_values[c])
                    sums["card_value_loss"].append(vl.item())
                    loss = loss + config.card_value_weight * vl
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, config.max_grad_norm)
            optimizer.step()
    policy.eval()
    return {k: float(np.mean(v)) for k, v in sums.items() if v}


def train(
    config: BidValuesConfig | None = None,
    *,
    resume: str | Path | None = None,
    stop_at: int | None = None,
    quiet: bool = False,
    device: str | None = None,
) -> Path:
    """Run (or resume) bid-values training; return the path of the last checkpoint written.

    ``resume``: a checkpoint (``RUN/checkpoints/latest.pt``) to continue from with its own config, beside it.
    ``stop_at``: stop after this many rounds in total, as if killed right after a checkpoint. ``device``
    overrides the config's."""
    start = start_run(config, resume, _load_resume, "bid-values training", device=device)
    run = BidValuesRun(start, quiet)
    try:
        return run.play(stop_at)
    finally:
        run.collector.close()
        run.writer.close()


def _load_resume(resume: str | Path) -> tuple[dict[str, Any], BidValuesConfig]:
    ckpt = load_run_state(resume, RUN_KEYS, "bid-values ")
    return ckpt, BidValuesConfig.from_dict(ckpt["config"], source=f"checkpoint {resume}")


def trained_parameters(policy: SpadesPolicy, train_layers: str) -> list[torch.nn.Parameter]:
    """The parameters ``train_layers`` trains: all, the bidding head and its own torso (``bid_head``), or the card
    value head and torso (``card_values``: the rest frozen, no gradient flows into it)."""
    if train_layers == "bid_head":
        layers = (policy.bid_head, getattr(policy, "bid_torso", None))
        return [p for m in layers if m is not None for p in m.parameters()]
    if train_layers != "card_values":
        return list(policy.parameters())
    params = [p for m in (policy.card_value_head, policy.card_value_torso) if m is not None for p in m.parameters()]
    for p in policy.parameters():
        p.requires_grad_(False)
    for p in params:
        p.requires_grad_(True)
    return params


class BidValuesRun:
    """One run's state: the network, optimizer, replays (bids and cards), generators, the round collector and a
    collected round not trained on yet (``pipeline``), restored when resumed. ``train`` drives it."""

    def __init__(self, start: RunStart, quiet: bool) -> None:
        from spades_env.engine import SpadesEngine
        from spades_env.observation import encoder_for

        config, ckpt, rules, dev = start.config, start.ckpt, start.rules, start.device
        self.start, self.config, self.rules, self.dev, self.quiet = start, config, rules, dev, quiet
        if not rules.has_bidding and config.trains_bids:
            raise ValueError(
                f"bid-values training at {rules.name!r} (Hearts, no bids) trains only card values: "
                f"train_layers must be 'card_values', got {config.train_layers!r}"
            )
        self.rngs = {
            "explore": np.random.default_rng([config.seed, 1]),
            "minibatches": np.random.default_rng([config.seed, 2]),
            "cards": np.random.default_rng([config.seed, 4]),
        }
        self.engine = SpadesEngine(rules, threads=config.rollout_threads)
        self.encoder = encoder_for(self.engine)
        policy = load_network(config, self.engine, self.encoder)
        if config.fresh_head:
            torch.nn.init.zeros_(policy.bid_head[-1].weight)
            torch.nn.init.zeros_(policy.bid_head[-1].bias)
        self.policy = policy.to(dev).eval()
        params = trained_parameters(self.policy, config.train_layers)
        self.optimizer = torch.optim.Adam(params, lr=config.learning_rate, eps=1e-5)
        self.replay: list[BidPositions] = []
        self.card_replay: list[CardPositions] = []
        self.global_step, self.start_round = 0, 0
        self.best = BestNetwork(functools.partial(eval_gain, rules=rules), ckpt)
        if ckpt is not None:
            self.restore(ckpt)
        self.learner = BidLearner(self.policy, self.engine, self.encoder, dev, config.card_margin, config.value_scale)
        heuristic = HeuristicAgent(seed=config.seed)
        teacher, teacher_scale = None, 100.0
        if config.value_teacher:
            teacher_net, teacher_scale = load_value_teacher(config.value_teacher, self.engine, self.encoder)
            teacher = BidLearner(teacher_net.to(dev), self.engine, self.encoder, dev)
        self.collector = RoundCollector(config, self.engine, heuristic, self.rngs, teacher, teacher_scale)
        self.pending = None
        if ckpt is not None and ckpt.get("pending"):
            self.pending = collected_from_payload(ckpt["pending"], self.encoder)
        self.writer = open_writer(start, self.global_step)

    def restore(self, ckpt: dict[str, Any]) -> None:
        """The network, optimizer, replays, progress and generators of the checkpoint."""
        self.policy.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.replay = [positions_from_payload(part, self.encoder) for part in ckpt["replay"]]
        self.card_replay = [
            positions_from_payload(part, self.encoder, CardPositions) for part in ckpt.get("card_replay", [])
        ]
        self.global_step, self.start_round = ckpt["global_step"], ckpt["update"]
        restore_rng_states(self.rngs, ckpt["rng"])

    def play(self, stop_at: int | None) -> Path:
        """The rounds from where the run stands to ``stop_at`` (None: all); the path of the last checkpoint."""
        config = self.config
        stop = config.rounds if stop_at is None else min(stop_at, config.rounds)
        stopped = stop == 0 or self.start_round >= stop
        last_path = self.checkpoint(0) if stopped else self.start.checkpoints / "latest.pt"
        rounds = (self.start_round, stop, config.rounds, config)
        return run_rounds(*rounds, self.round, self.evaluate, self.checkpoint, last_path)

    def round(self, rnd: int) -> None:
        """Collect a round (or take the one collected during the last update), start the next one's collection
        with ``pipeline``, train on the replays, log."""
        config = self.config
        if config.anneal_lr:
            anneal_learning_rate(self.optimizer, config.learning_rate, rnd, config.rounds)
        t0 = time.perf_counter()
        round_data = self.pending if self.pending is not None else self.collector.collect(rnd, self.learner)
        self.pending, following = None, None
        if config.pipeline and rnd + 1 < config.rounds:  # the next round's collection runs during this update
            frozen = clone_policy(self.policy, self.dev)
            twin = BidLearner(frozen, self.engine, self.encoder, self.dev, config.card_margin, config.value_scale)
            following = self.collector.start(rnd + 1, twin)
        fresh, fresh_cards = round_data.bids, round_data.cards
        if fresh_cards is not None:
            self.card_replay = [*self.card_replay, fresh_cards][-config.replay_rounds :]
        t1 = time.perf_counter()
        positions = len(fresh) if fresh is not None else len(fresh_cards)  # Hearts: no bid positions
        self.global_step += positions
        if fresh is not None:
            self.replay = [*self.replay, fresh][-config.replay_rounds :]
        losses = train_on_replay(
            self.policy, self.optimizer, self.replay, self.rngs["minibatches"], config, self.dev, self.card_replay
        )
        t2 = time.perf_counter()
        if following is not None:
            self.pending = following.result()
        t3 = time.perf_counter()
        self.log(rnd, round_data, losses, positions, (t0, t1, t2, t3))

    def log(self, rnd: int, round_data: Collected, losses: dict[str, float], positions: int, times: tuple) -> None:
        """A round's scalars to TensorBoard and its line (``times``: start, collected, trained, next collected)."""
        config = self.config
        t0, t1, t2, t3 = times
        wait = (t1 - t0) + (t3 - t2)  # of the round, waiting for a collection (sequentially: all of it)
        loss = losses.get("value_loss", losses.get("card_value_loss", 0.0))
        scalars = dict(round_data.scalars) | {f"losses/{k}": v for k, v in losses.items()}
        collect_s = round_data.times["time/collect_value_s"]
        scalars |= round_data.times | {
            "time/update_s": t2 - t1,
            "time/round_s": t3 - t0,  # the round's wall time (with pipeline: the update and the next collection)
            "time/wait_collect_s": wait,
            "charts/positions_per_s": positions / max(collect_s, 1e-9),
            "charts/learning_rate": self.optimizer.param_groups[0]["lr"],
        }
        for key, value in scalars.items():
            self.writer.add_scalar(key, value, self.global_step)
        if not self.quiet:
            parts = round_data.times
            print(
                f"round {rnd + 1}/{config.rounds} positions {self.global_step} loss {loss:.4f} "
                + bid_line(scalars)
                + "".join(f"{name} {scalars[tag]:.3f} " for name, tag in CARD_SCALARS_SHOWN if tag in scalars)
                + f"collect {collect_s:.1f}s (bid {parts['time/bid_s']:.1f} play {parts['time/play_cards_s']:.1f} "
                + f"label {parts['time/label_cards_s']:.1f}) update {t2 - t1:.1f}s"
                + (f" wait {wait:.1f}s of {t3 - t0:.1f}s" if config.pipeline else ""),
                flush=True,
            )

    def checkpoint(self, done: int, name: str = "latest.pt") -> Path:
        payload = run_payload(self, done)
        payload["replay"] = [positions_payload(part) for part in self.replay]
        payload["card_replay"] = [positions_payload(part) for part in self.card_replay]
        payload["best_diff"] = self.best.diff
        payload["pending"] = collected_payload(self.pending) if self.pending is not None else None
        return save_checkpoint(self.start.checkpoints / name, payload)

    def evaluate(self, done: int) -> None:
        """Duplicate evaluation against HeuristicAgent; ``best.pt`` keeps the best network so far."""
        config = self.config
        net = clone_policy(self.policy, torch.device("cpu"))
        agent = NeuralAgent(
            net, greedy=True, name="ppo", rules=self.rules, play=config.card_play, seed=config.seed,
            card_margin=config.card_margin, value_scale=config.value_scale,
        )  # fmt: skip
        result = evaluate_against_heuristic(agent, config.rules, config.eval_deals, config.eval_seed)
        for key, value in result.items():
            self.writer.add_scalar(f"eval/{key}", value, self.global_step)
        if not self.quiet:
            print(f"eval round {done} " + " ".join(f"{k} {v:.2f}" for k, v in result.items()), flush=True)
        if config.keep_best and self.best.improves(result["diff"]):
            self.checkpoint(done, "best.pt")
