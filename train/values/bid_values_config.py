"""Every setting of a bid-values run (``train/values/bid_values_train.py``), read from a YAML recipe.

``spades train --config FILE`` runs it when the file says ``algorithm: bid_values``
(``train.expert_iteration.config.trainer_for`` dispatches).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba

from train.runs.config_file import ConfigFile

#: The ``algorithm`` key that sends a training config to the bid-values trainer.
ALGORITHM = "bid_values"
#: The ``train_layers`` settings: every layer, the bidding head alone (with its own torso where it has one; the
#: shared torso and the card head kept as loaded), or the card value head alone (every other layer kept as loaded).
TRAIN_LAYERS = ("all", "bid_head", "card_values")
#: The ``card_play`` settings: who plays the cards of the trained network's games (its checkpoint's default).
CARD_PLAY = ("heuristic", "network")
#: The ``card_rollout`` settings: who plays the learner's seats when a valued card's hand is played out.
CARD_ROLLOUT = ("heuristic", "network")


@dataclass(frozen=True)
class BidValuesConfig(ConfigFile):
    """Rounds of (deal, value every candidate bid of the learner's side on the real deal, regress the bid head)."""

    KIND: ClassVar[str] = "bid-values"

    algorithm: str = ALGORITHM
    """Always ``bid_values`` (what tells ``spades train`` which trainer reads the file)."""
    exp_name: str = "bid_values"
    """Name of the experiment, part of the run name ``{rules}__{exp_name}__{seed}__{time}``."""
    rules: str = "partnership"
    """Rules preset name or rules YAML path (Spades with bidding; Hearts, which has no bids, only with
    ``train_layers: card_values``: ``configs/train/hearts_card_values.yaml``)."""
    seed: int = 1
    """Seed of everything: the deals, the exploration, the minibatches."""
    device: str = "cpu"
    """``cpu`` or ``cuda`` (the network and the update; deals and rollouts run on the CPU)."""
    threads: int = 1
    """torch CPU threads (results depend on it)."""
    rollout_threads: int = 1
    """Threads of the engine and of the compiled heuristic rollouts that value the bids and label the cards
    (``agents.search_rollouts``): the same values, and so the same run, on any number."""

    init_from: str = "checkpoints/partnership_bids.pt"
    """The checkpoint (full or slim) whose network is trained: its torso, card head and sizes."""
    fresh_head: bool = True
    """Zero the bidding head's last layer first: the values are learned from scratch, not from the loaded
    network's logits (which are a policy's, not values)."""
    train_layers: str = "all"
    """``all``, ``bid_head`` (only the bidding head, and its own torso with ``bid_depth``, learns: the shared
    torso and the card head stay the loaded network's, so its card play is unchanged, bit for bit) or
    ``card_values`` (only the card value head learns, with its own torso where it has one: the bids, the shared torso
    and the card head stay the loaded network's)."""
    bid_hidden: int = 256
    """With ``bid_depth``: the width of the new bidding torso."""
    bid_depth: int = 0
    """0: the bidding head reads the loaded network's shared torso. N: a new bidding torso of N layers of
    ``bid_hidden`` reads the observation, with a new bidding head (``agents.policy.SpadesPolicy``'s
    ``bid_depth``), in place of the loaded bidding head; with ``train_layers: bid_head`` (the bidding torso and
    head learn) the card play stays the loaded network's, bit for bit."""
    card_play: str = "heuristic"
    """Who plays the cards when the trained network plays (stored in its checkpoint, what ``neural:path=``
    follows): ``heuristic`` or ``network`` (the loaded network's own card play, e.g. with ``train_layers:
    bid_head``). The rollouts that value the bids play the heuristic's cards either way."""

    value_teacher: str | None = None
    """None: the candidates are valued by rollouts on the real deal. A checkpoint of a bid-values run (e.g.
    ``checkpoints/partnership_bid_values.pt``): its network's values label them instead (distillation, no rollouts;
    its outputs times its own ``value_scale``), e.g. into a smaller bidding torso (``bid_depth``)."""
    card_weight: float = 0.0
    """0: only the bids train. w > 0: the realized hands are played out too, the learner's cards by the network,
    and its card decisions are trained toward the heuristic's card (cross-entropy, weight w against the bids'
    loss), so that with ``train_layers: all`` the network keeps (and relearns, under its new bids) the card play
    it was cloned with (``configs/train/card_imitation.yaml``); use it with ``card_play: network``."""
    card_keep: float = 0.125
    """With ``card_weight``: the share of the learner's card decisions (with more than one legal card) kept."""
    card_keep_nil: float | None = None
    """With ``card_weight``: the share kept instead in hands where a seat bid nil (the hands where the cloned card
    play loses most against the heuristic's); None: ``card_keep``."""

    card_value_hidden: int = 0
    """0: no card values. N: the network has a card value head of width N on its shared torso (a new one where the
    loaded network lacks it) and the learner's kept card decisions (``card_keep``, ``card_keep_nil``) are valued,
    every legal card played out by the heuristic on the real deal (``train/values/card_values.py``); the head regresses
    those values centred on each decision's mean. Use it with ``card_play: network``."""
    card_rollout: str = "heuristic"
    """With ``card_value_hidden``: who plays each valued card's hand out at the learner's seats. ``heuristic``: the
    compiled heuristic plays every seat (``train.values.card_values.card_values_on_deal``: one step of policy
    improvement over the heuristic). ``network``: the network itself as it plays (its card head under its margin rule)
    at the learner's seats, the heuristic at the others (``card_values_by_network``: the values of the network's own
    continuation, one more step of policy iteration; ~100x the heuristic's rollout time, in the batched engine)."""
    card_opponent: str = "heuristic"
    """With ``card_weight`` or ``card_value_hidden``: the bot (a spec, e.g. ``search:fast``) that plays the other
    side's cards in the first ``card_opponent_share`` of each round's deals while the learner plays its hands (its
    bids stay the heuristic's; the labels and the rollouts stay the heuristic's). The learner's positions then come
    from games against that bot: a value head learned on games against the heuristic reads the opponents' earlier
    plays as the heuristic's."""
    card_opponent_share: float = 1.0
    """With ``card_opponent``: the share of each round's deals played against it (the others: the heuristic)."""
    card_value_torso: bool = False
    """With ``card_value_hidden``: the value head reads a torso of its own (the shared torso's shape, a copy of the
    loaded network's shared torso to start with) instead of the shared one, and with ``train_layers: card_values``
    that torso learns with the head (the shared one cannot: the card head and the bids read it)."""
    card_value_weight: float = 1.0
    """With ``card_value_hidden``: the weight of the card values' loss against the bids'."""
    card_margin: float = 4.0
    """With ``card_value_hidden``: the network plays its card head's card unless the value head finds a legal card
    better by more than this many points (``agents.neural.margin_cards``; stored in the checkpoint, what
    ``neural:path=`` plays; ``neural:...,margin=M`` overrides it)."""

    rounds: int = 30
    """Deal-value-train rounds."""
    deals: int = 8192
    """Fresh deals per round (hand mode: each the first hand of a new match); the learner holds side
    ``g % n_sides`` of deal ``g``, HeuristicAgent the other seats."""
    explore: float = 0.1
    """Share of the learner's bids drawn uniformly from the candidates instead of its best value (the
    positions then cover bids it would not make; the rollouts finish the bidding greedily)."""
    replay_rounds: int = 4
    """Train on the valued positions of the last this many rounds."""
    epochs: int = 1
    """Passes over the replay per round."""
    minibatch: int = 512
    """Positions per gradient step."""
    learning_rate: float = 3e-4
    """Adam learning rate."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``rounds``."""
    max_grad_norm: float = 1.0
    """Gradient clipping norm."""
    value_scale: float = 100.0
    """Points per unit of the regressed values."""

    pipeline: bool = False
    """Collect the next round (deal, bid, play, label) in a thread of its own while this round's update trains, on a
    copy of the network as it was before the update (``train.values.bid_values_round``): each round's positions are then
    played by the network of one update before. On two cores a round takes about the longer of the two instead of
    their sum; the run is as reproducible as without (its checkpoints keep the collected next round)."""

    run_dir: str = "runs"
    """Where runs write TensorBoard logs and checkpoints."""
    checkpoint_every: int = 1
    """Save ``checkpoints/latest.pt`` every this many rounds (and at the end)."""
    eval_every: int = 5
    """Duplicate evaluation against HeuristicAgent every this many rounds (0 = only at the end)."""
    eval_final: bool = True
    """Evaluate at the end of the run."""
    eval_deals: int = 1024
    """Boards per evaluation (each played in both seatings)."""
    eval_seed: int = 1_000_003
    """Seed of the evaluation deals (fixed: evaluations compare like with like)."""
    keep_best: bool = True
    """Save ``checkpoints/best.pt`` whenever an evaluation gives the best ``diff`` so far."""

    @property
    def trains_bids(self) -> bool:
        """Whether the run trains bids: not with ``train_layers: card_values`` (its rounds bid, but value no bid)."""
        return self.train_layers != "card_values"

    def __post_init__(self) -> None:
        checks = {
            "algorithm": self.algorithm == ALGORITHM,
            "device": self.device == "cpu" or self.device.startswith("cuda"),
            "train_layers": self.train_layers in TRAIN_LAYERS,
            "card_play": self.card_play in CARD_PLAY,
            "card_rollout": self.card_rollout in CARD_ROLLOUT,
            "init_from": bool(self.init_from),
            "bid_hidden": self.bid_hidden >= 2,
            "bid_depth": self.bid_depth >= 0,
            "card_weight": self.card_weight >= 0,
            "card_keep": 0.0 < self.card_keep <= 1.0,
            "card_keep_nil": self.card_keep_nil is None or 0.0 < self.card_keep_nil <= 1.0,
            "card_value_hidden": self.card_value_hidden >= 0,
            "card_opponent": bool(self.card_opponent.strip()),
            "card_opponent_share": 0.0 <= self.card_opponent_share <= 1.0,
            "card_value_weight": self.card_value_weight >= 0,
            "card_margin": self.card_margin >= 0,
            "rounds": self.rounds >= 0,
            "deals": self.deals >= 1,
            "explore": 0.0 <= self.explore <= 1.0,
            "replay_rounds": self.replay_rounds >= 1,
            "epochs": self.epochs >= 1,
            "minibatch": self.minibatch >= 1,
            "max_grad_norm": self.max_grad_norm > 0,
            "value_scale": self.value_scale > 0,
            "threads": self.threads >= 1,
            "rollout_threads": 1 <= self.rollout_threads <= numba.config.NUMBA_NUM_THREADS,
            "checkpoint_every": self.checkpoint_every >= 1,
            "eval_every": self.eval_every >= 0,
            "eval_deals": self.eval_deals >= 1,
        }
        bad = [k for k, ok in checks.items() if not ok]
        if bad:
            allowed = {"train_layers": TRAIN_LAYERS, "card_play": CARD_PLAY, "card_rollout": CARD_ROLLOUT}
            hints = [f" ({k}: one of {', '.join(allowed[k])})" for k in bad if k in allowed]
            if "rollout_threads" in bad:
                hints.append(f" (rollout_threads: 1..{numba.config.NUMBA_NUM_THREADS}, NUMBA_NUM_THREADS)")
            values = ", ".join(f"{k}={getattr(self, k)!r}" for k in bad)
            raise ValueError(f"bad bid-values config value(s): {values}{''.join(hints)}")
        if self.card_value_torso and not self.card_value_hidden:
            raise ValueError("bid-values config: card_value_torso needs card_value_hidden > 0 (a value head to feed)")
        if self.train_layers == "card_values" and not self.card_value_hidden:
            raise ValueError("bid-values config: train_layers 'card_values' needs card_value_hidden > 0 (a value head)")
