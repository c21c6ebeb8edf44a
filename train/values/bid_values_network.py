"""The networks a bid-values run starts from (``init_from``, ``value_teacher``: checked against the table) and its
positions saved in a checkpoint (their games and arrays; the observations encoded again when read back)."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.checkpoint_io import observation_differences
from agents.neural import SpadesPolicy
from train.runs.checkpoint import array_to_tensor, env_state, load_checkpoint, state_from_env, tensor_to_array
from train.values.bid_values import BidPositions, CardPositions
from train.values.bid_values_config import BidValuesConfig
from train.values.bid_values_round import Collected
from train.values.card_values import ValuedCardPositions

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
    state = state_from_env(data["state"], encoder.rules.game)
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
