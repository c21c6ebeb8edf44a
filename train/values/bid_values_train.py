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

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.checkpoint_io import observation_differences
from agents.heuristic import HeuristicAgent
from agents.neural import NeuralAgent, SpadesPolicy, torch_device
from train.evaluation.network_eval import clone_policy, due_after, eval_gain, evaluate_against_heuristic
from train.runs.checkpoint import (
    array_to_tensor,
    env_state,
    load_checkpoint,
    load_run_state,
    make_run_name,
    restore_rng_states,
    run_path_of,
    save_checkpoint,
    seed_everything,
    state_from_env,
    tensor_to_array,
    training_payload,
)
from train.values.bid_values import BidLearner, BidPositions, CardPositions, card_loss, centred_value_loss
from train.values.bid_values_config import BidValuesConfig
from train.values.bid_values_round import CARD_SCALARS_SHOWN, Collected, RoundCollector, bid_line
from train.values.card_values import ValuedCardPositions, card_value_loss

#: Keys of a full checkpoint beyond ``REQUIRED_KEYS``: the run state that resuming needs.
RUN_KEYS = ("optimizer", "rng", "update", "run_name", "replay")
#: The arrays of a ``BidPositions`` and a ``CardPositions`` a checkpoint keeps (the observations are encoded
#: again from the games).
KEPT = {
    BidPositions: ("seat", "cand", "values", "heuristic"),
    CardPositions: ("seat", "mask", "target", "base", "played"),
    ValuedCardPositions: ("seat", "mask", "target", "base", "played", "values"),
}


def checked_checkpoint(path: str, engine, encoder) -> dict[str, Any]:
    """The checkpoint at ``path``; refused (ValueError) where its observations or actions would mean something
    else at ``engine``'s table."""
    from spades_env.observation import VERSION as OBS_VERSION
    from spades_env.rules import Rules

    ckpt = load_checkpoint(path)
    if ckpt["obs_version"] != OBS_VERSION:
        raise ValueError(f"{path}: observation VERSION {ckpt['obs_version']} != current {OBS_VERSION}")
    trained = Rules.from_dict(ckpt["rules"], source=f"checkpoint {path}")
    diffs = observation_differences(trained, engine.rules)
    sizes = (engine.layout.n_actions, engine.layout.bid_offset, encoder.size)
    hp = ckpt["model_hparams"]
    if diffs or sizes != (hp["n_actions"], hp["n_card_actions"], hp["obs_dim"]):
        why = "; ".join(diffs) or f"sizes {sizes} != the network's {hp}"
        raise ValueError(f"{path} was trained on {trained.name!r}, not {engine.rules.name!r}: {why}")
    return ckpt


def load_network(config: BidValuesConfig, engine, encoder) -> SpadesPolicy:
    """The network of ``init_from`` (``checked_checkpoint``), with a new bidding torso and head where ``bid_depth``
    asks for one it lacks, and a new card value head where ``card_value_hidden`` asks for one it lacks."""
    init = checked_checkpoint(config.init_from, engine, encoder)
    hp, state = dict(init["model_hparams"]), init["model"]
    fresh = False
    for wanted, prefixes in (
        ({"bid_hidden": config.bid_hidden, "bid_depth": config.bid_depth} if config.bid_depth else {}, ("bid_",)),
        ({"card_value_hidden": config.card_value_hidden} if config.card_value_hidden else {}, ("card_value_head.",)),
        ({"card_value_torso": True} if config.card_value_torso else {}, ("card_value_torso.",)),
    ):
        if wanted and {k: hp.get(k) for k in wanted} != wanted:  # new layers replace the loaded ones
            hp |= wanted
            state = {k: v for k, v in state.items() if not k.startswith(prefixes)}
            fresh = True
    policy = SpadesPolicy(**hp)
    policy.load_state_dict(state, strict=not fresh)
    if policy.card_value_torso is not None and not any(k.startswith("card_value_torso.") for k in state):
        # a new value torso starts as a copy of the shared one: a loaded value head then gives its values as before
        policy.card_value_torso.load_state_dict(policy.torso.state_dict())
    return policy


def load_value_teacher(path: str, engine, encoder) -> tuple[SpadesPolicy, float]:
    """The network of a bid-values checkpoint (``value_teacher``) and the points one unit of its values is worth;
    refused (ValueError) unless a bid-values run made it (another network's bidding outputs are not values)."""
    ckpt = checked_checkpoint(path, engine, encoder)
    config = ckpt.get("config") or {}
    if config.get("algorithm") != "bid_values":
        raise ValueError(
            f"value_teacher {path} is not a bid-values network (its config's algorithm is "
            f"{config.get('algorithm')!r}): its bidding head's outputs are not values"
        )
    net = SpadesPolicy(**ckpt["model_hparams"])
    net.load_state_dict(ckpt["model"])
    return net.eval(), float(config.get("value_scale", 100.0))


def positions_payload(part: BidPositions | CardPositions) -> dict[str, Any]:
    """A replay round as checkpoint data: its games and arrays, not its observations."""
    return {"state": env_state(part.state), **{k: array_to_tensor(getattr(part, k)) for k in KEPT[type(part)]}}


def positions_from_payload(data: dict[str, Any], encoder, kind: type = BidPositions) -> Any:
    """``positions_payload`` of a ``kind`` read back, the observations encoded again (the same bits); card positions
    with values come back as ``ValuedCardPositions``."""
    if kind is CardPositions and "values" in data:
        kind = ValuedCardPositions
    state = state_from_env(data["state"])
    unrecorded = np.full(state.batch_size, -1, np.int64)  # the choices, in a checkpoint from before they were kept
    arrays = {k: tensor_to_array(data[k]) if k in data else unrecorded for k in KEPT[kind]}
    obs = encoder.encode(state, np.arange(state.batch_size), arrays["seat"])
    return kind(state=state, obs=obs, **arrays)


def collected_payload(data: Collected) -> dict[str, Any]:
    """A collected round not trained on yet (``pipeline``: the next round's, at a checkpoint) as checkpoint data."""
    return {
        "bids": positions_payload(data.bids) if data.bids is not None else None,
        "cards": positions_payload(data.cards) if data.cards is not None else None,
        "scalars": dict(data.scalars),
        "times": dict(data.times),
    }


def collected_from_payload(data: dict[str, Any], encoder) -> Collected:
    """``collected_payload`` read back."""
    bids = positions_from_payload(data["bids"], encoder) if data["bids"] is not None else None
    cards = positions_from_payload(data["cards"], encoder, CardPositions) if data["cards"] is not None else None
    return Collected(bids, cards, dict(data["scalars"]), dict(data["times"]))


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
    from torch.utils.tensorboard import SummaryWriter

    from spades_env.engine import SpadesEngine
    from spades_env.observation import encoder_for
    from spades_env.rules import resolve_rules

    if config is None and resume is None:
        raise ValueError("bid-values training needs a config, or a checkpoint to resume")
    if device is not None:
        torch_device(device)  # a missing GPU fails before any work
    ckpt = load_run_state(resume, RUN_KEYS, "bid-values ") if resume is not None else None
    if ckpt is not None:
        config = BidValuesConfig.from_dict(ckpt["config"], source=f"checkpoint {resume}")
    assert config is not None
    if device is not None:
        config = dataclasses.replace(config, device=device)
    dev = torch_device(config.device)
    rules = resolve_rules(ckpt["rules"] if ckpt else config.rules)
    if not rules.has_bidding and config.trains_bids:
        raise ValueError(
            f"bid-values training at {rules.name!r} (Hearts, no bids) trains only card values: "
            f"train_layers must be 'card_values', got {config.train_layers!r}"
        )
    run_name = ckpt["run_name"] if ckpt else make_run_name(config, rules.name)
    run_path = run_path_of(config.run_dir, run_name, resume)
    ckpt_dir = run_path / "checkpoints"

    seed_everything(config.seed, config.threads)
    rngs = {
        "explore": np.random.default_rng([config.seed, 1]),
        "minibatches": np.random.default_rng([config.seed, 2]),
        "cards": np.random.default_rng([config.seed, 4]),
    }

    engine = SpadesEngine(rules, threads=config.rollout_threads)
    encoder = encoder_for(engine)
    policy = load_network(config, engine, encoder)
    if config.fresh_head:
        torch.nn.init.zeros_(policy.bid_head[-1].weight)
        torch.nn.init.zeros_(policy.bid_head[-1].bias)
    policy = policy.to(dev).eval()
    params = list(policy.parameters())
    if config.train_layers == "bid_head":  # the bidding head and its own torso, if it has one
        params = [
            p for m in (policy.bid_head, getattr(policy, "bid_torso", None)) if m is not None for p in m.parameters()
        ]
    elif config.train_layers == "card_values":  # the rest frozen: no gradient flows into it
        value_layers = (policy.card_value_head, policy.card_value_torso)
        params = [p for m in value_layers if m is not None for p in m.parameters()]
        for p in policy.parameters():
            p.requires_grad_(False)
        for p in params:
            p.requires_grad_(True)
    optimizer = torch.optim.Adam(params, lr=config.learning_rate, eps=1e-5)
    replay: list[BidPositions] = []
    card_replay: list[CardPositions] = []
    global_step, start_round = 0, 0
    best = {"diff": -float("inf")}
    if ckpt is not None:
        policy.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        replay = [positions_from_payload(part, encoder) for part in ckpt["replay"]]
        card_replay = [positions_from_payload(part, encoder, CardPositions) for part in ckpt.get("card_replay", [])]
        global_step, start_round = ckpt["global_step"], ckpt["update"]
        best["diff"] = ckpt.get("best_diff", best["diff"])
        restore_rng_states(rngs, ckpt["rng"])
    learner = BidLearner(policy, engine, encoder, dev, config.card_margin, config.value_scale)
    heuristic = HeuristicAgent(seed=config.seed)
    teacher, teacher_scale = None, 100.0
    if config.value_teacher:
        teacher_net, teacher_scale = load_value_teacher(config.value_teacher, engine, encoder)
        teacher = BidLearner(teacher_net.to(dev), engine, encoder, dev)
    collector = RoundCollector(config, engine, heuristic, rngs, teacher, teacher_scale)
    pending = collected_from_payload(ckpt["pending"], encoder) if ckpt is not None and ckpt.get("pending") else None

    writer = SummaryWriter(str(run_path), purge_step=global_step + 1 if ckpt else None)
    if ckpt is None:
        table = "\n".join(f"|{k}|{v}|" for k, v in config.to_dict().items())
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")

    def checkpoint(done: int, name: str = "latest.pt") -> Path:
        payload = training_payload(
            rules=rules, config=config, policy=policy, optimizer=optimizer, rngs=rngs,
            global_step=global_step, update=done, run_name=run_name,
        )  # fmt: skip
        payload["replay"] = [positions_payload(part) for part in replay]
        payload["card_replay"] = [positions_payload(part) for part in card_replay]
        payload["best_diff"] = best["diff"]
        payload["pending"] = collected_payload(pending) if pending is not None else None
        return save_checkpoint(ckpt_dir / name, payload)

    def run_eval(done: int) -> None:
        """Duplicate evaluation against HeuristicAgent; ``best.pt`` keeps the best network so far."""
        net = clone_policy(policy, torch.device("cpu"))
        agent = NeuralAgent(
            net, greedy=True, name="ppo", rules=rules, play=config.card_play, seed=config.seed,
            card_margin=config.card_margin, value_scale=config.value_scale,
        )  # fmt: skip
        result = evaluate_against_heuristic(agent, config.rules, config.eval_deals, config.eval_seed)
        for key, value in result.items():
            writer.add_scalar(f"eval/{key}", value, global_step)
        if not quiet:
            print(f"eval round {done} " + " ".join(f"{k} {v:.2f}" for k, v in result.items()), flush=True)
        if config.keep_best and eval_gain(result["diff"], rules) > best["diff"]:
            best["diff"] = result["diff"]
            checkpoint(done, "best.pt")

    stop = config.rounds if stop_at is None else min(stop_at, config.rounds)
    last_path = checkpoint(0) if stop == 0 or start_round >= stop else ckpt_dir / "latest.pt"
    try:
        for rnd in range(start_round, stop):
            if config.anneal_lr:
                optimizer.param_groups[0]["lr"] = config.learning_rate * (1.0 - rnd / max(1, config.rounds))
            t0 = time.perf_counter()
            round_data = pending if pending is not None else collector.collect(rnd, learner)
            pending, following = None, None
            if config.pipeline and rnd + 1 < config.rounds:  # the next round's collection runs during this update
                frozen = clone_policy(policy, dev)
                twin = BidLearner(frozen, engine, encoder, dev, config.card_margin, config.value_scale)
                following = collector.start(rnd + 1, twin)
            fresh, fresh_cards, scalars = round_data.bids, round_data.cards, dict(round_data.scalars)
            if fresh_cards is not None:
                card_replay = [*card_replay, fresh_cards][-config.replay_rounds :]
            t1 = time.perf_counter()
            positions = len(fresh) if fresh is not None else len(fresh_cards)  # Hearts: no bid positions
            global_step += positions
            if fresh is not None:
                replay = [*replay, fresh][-config.replay_rounds :]
            losses = train_on_replay(policy, optimizer, replay, rngs["minibatches"], config, dev, card_replay)
            t2 = time.perf_counter()
            if following is not None:
                pending = following.result()
            t3 = time.perf_counter()
            wait = (t1 - t0) + (t3 - t2)  # of the round, waiting for a collection (sequentially: all of it)
            loss = losses.get("value_loss", losses.get("card_value_loss", 0.0))
            scalars |= {f"losses/{k}": v for k, v in losses.items()}
            collect_s = round_data.times["time/collect_value_s"]
            scalars |= round_data.times | {
                "time/update_s": t2 - t1,
                "time/round_s": t3 - t0,  # the round's wall time (with pipeline: the update and the next collection)
                "time/wait_collect_s": wait,
                "charts/positions_per_s": positions / max(collect_s, 1e-9),
                "charts/learning_rate": optimizer.param_groups[0]["lr"],
            }
            for key, value in scalars.items():
                writer.add_scalar(key, value, global_step)
            if not quiet:
                times = round_data.times
                print(
                    f"round {rnd + 1}/{config.rounds} positions {global_step} loss {loss:.4f} "
                    + bid_line(scalars)
                    + "".join(f"{name} {scalars[tag]:.3f} " for name, tag in CARD_SCALARS_SHOWN if tag in scalars)
                    + f"collect {collect_s:.1f}s (bid {times['time/bid_s']:.1f} play {times['time/play_cards_s']:.1f} "
                    + f"label {times['time/label_cards_s']:.1f}) update {t2 - t1:.1f}s"
                    + (f" wait {wait:.1f}s of {t3 - t0:.1f}s" if config.pipeline else ""),
                    flush=True,
                )
            done = rnd + 1
            eval_due, save_due = due_after(done, config.rounds, stop, config)
            if eval_due:
                run_eval(done)
            if save_due:
                last_path = checkpoint(done)
    finally:
        collector.close()
    writer.close()
    return last_path
