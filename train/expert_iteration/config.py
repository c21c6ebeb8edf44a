"""Every setting of an expert-iteration run (``train/expert_iteration/trainer.py``), read from a YAML recipe.

``spades train --config FILE`` runs expert iteration when the file says ``algorithm: expert_iteration``
(PPO otherwise: ``train/ppo/config.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from train.runs.config_file import ConfigFile

#: The ``opponents`` settings.
OPPONENTS = ("self", "heuristic")
#: The ``target`` settings: the softmax of the teacher's values, or its chosen card one-hot
#: (``train.expert_iteration.labelling``).
TARGETS = ("values", "choice")
#: The ``card_labels`` settings: card decisions valued by the teacher's search, or each legal card by one rollout on
#: the real deal (``train.values.card_values.deal_card_values``).
CARD_LABELS = ("teacher", "deal")
#: The ``train_on`` settings.
TRAIN_ON = ("all", "learner")

#: What ``teacher`` writes for the network being trained (``ExpertIterationConfig.teacher``).
NETWORK = "{network}"

#: The ``algorithm`` key that sends a training config to expert iteration.
ALGORITHM = "expert_iteration"


@dataclass(frozen=True)
class ExpertIterationConfig(ConfigFile):
    """Rounds of (collect positions with the behaviour policy, label them with the teacher, train on the labels)."""

    KIND: ClassVar[str] = "expert-iteration"

    algorithm: str = ALGORITHM
    """Always ``expert_iteration`` (what tells ``spades train`` which trainer reads the file)."""
    exp_name: str = "expit"
    """Name of the experiment, part of the run name ``{rules}__{exp_name}__{seed}__{time}``."""
    rules: str = "partnership"
    """Rules preset name or rules YAML path (the learned bot plays partnership-layout presets)."""
    seed: int = 1
    """Seed of everything: network init, deals, behaviour sampling, the teacher, minibatches."""
    device: str = "cpu"
    """``cpu`` or ``cuda`` (the network and the update; games and the teacher run on the CPU)."""
    threads: int = 1
    """torch CPU threads (results depend on it)."""

    rounds: int = 50
    """Collect-label-train rounds."""
    num_envs: int = 256
    """Games played in lockstep by the behaviour policy."""
    num_steps: int = 64
    """Decisions per game per round (num_envs * num_steps positions labelled per round)."""
    episode: str = "match"
    """``match`` (scores and bags carry over between hands) or ``hand``."""
    heuristic_rounds: int = 0
    """The first this many rounds are played by HeuristicAgent instead of the learner (e.g. 1 from scratch)."""

    opponents: str = "self"
    """Who plays the other seats of the learner's rounds: ``self`` (the behaviour policy plays every seat) or
    ``heuristic`` (HeuristicAgent plays every seat but those of side ``g % n_sides`` in game ``g``: the positions
    are those the learner meets against the heuristic, as the evaluation plays it; the heuristic's decisions are
    labelled and trained on too)."""
    train_on: str = "all"
    """Which positions of a learner round are labelled and trained on: ``all`` or, with ``opponents: heuristic``,
    ``learner`` (only the learner's own decisions: the heuristic's seats are dropped before labelling, so a
    round holds ``num_envs * num_steps / n_sides`` positions)."""
    teacher: str = "search:fast"
    """Bot spec of the teacher; its ``action_values`` label every position (``agents.search``). ``{network}`` in it
    (e.g. ``guided:fast,path={network}``) stands for the network being trained: each round the run writes the
    network that plays the round to ``checkpoints/teacher.pt`` and the teacher searches with it, so that the
    search gets the better network every round (the rounds played by the heuristic are labelled by
    ``warmup_teacher``)."""
    warmup_teacher: str = "search:fast"
    """The teacher of the ``heuristic_rounds`` when ``teacher`` names ``{network}`` (the network has not learned
    yet); unused otherwise."""
    target: str = "values"
    """What a card decision with a choice is trained toward: ``values`` (the softmax of the teacher's action
    values at ``temperature``) or ``choice`` (the card the teacher's ``act`` plays, one-hot; e.g.
    ``search:play_margin=3``, which plays the heuristic's card unless the search values another more than 3 points
    above it). ``train.expert_iteration.labelling.LabelSpec.target``."""
    card_labels: str = "teacher"
    """Who values the card decisions with a choice: ``teacher`` (its search, from what the seat knows) or ``deal``
    (each legal card played on the real deal, then the heuristic plays every seat to the hand's end: one rollout,
    about 1/16 of ``search:fast``'s cost; in expectation over the deals the seat cannot tell apart, the card's value
    under the heuristic's continuation). A labeller at training time, not a bot: the network still sees only its
    seat. The teacher then values the other decisions (bids, passes) only; needs ``target: values``."""
    nil_weight: float = 1.0
    """Weight of the positions of hands where a seat bid nil (blind nil included) in the cross-entropy, the others'
    being 1: the learned partnership bot's card play lost its points to the heuristic's in those hands."""
    temperature: float = 5.0
    """Distillation target: softmax(values / temperature) over the valued legal actions (points)."""
    anchor: float = 0.0
    """Share of the behaviour policy's own probabilities in the target of valued decisions (a trust
    region against a noisy teacher: ``train.expert_iteration.labelling.LabelSpec.anchor``; 0: the teacher alone)."""
    anchor_to: str = "behaviour"
    """What ``anchor`` and ``unvalued: behaviour`` mix in: ``behaviour`` (the probabilities of the policy that
    played the round: the anchor moves with the learner) or ``initial`` (the network the run started from,
    frozen: ``init_from``'s; learned bids and card play then stay anchored to it)."""
    unvalued: str = "teacher"
    """Target where the teacher gives no values (one legal card, bids without ``bid_samples``):
    ``teacher`` (its choice there, the heuristic's action) or ``behaviour`` (the behaviour policy's own)."""
    label_chunk: int = 256
    """Positions per teacher call; chunk k of round r is searched with the seed ``(seed, r, k)``."""

    label_workers: int = 0
    """0: label in this process; N: as Ray tasks on N workers (``label_ray``), one shard of whole chunks
    each; the labels, and so the run, are the same either way."""
    label_ray: str = "local"
    """With ``label_workers``: ``local`` (a Ray started on this machine with N CPUs) or a cluster address
    (``host:port``, ``ray://host:port``, ``auto``), as ``spades tournament --ray``."""

    collect_shards: int = 0
    """0: collect and label the round as one batch of ``num_envs`` games (in this process; labelling on Ray
    tasks with ``label_workers``). K: the games are cut into K shards, each played and labelled by a worker
    with its own seeds (behaviour ``(seed, 1, round, shard)``, teacher ``(seed, round, shard, chunk)``), so
    the data depend on K but not on where the shards run (``actors``; ``train.expert_iteration.collect_actors``)."""
    actors: int = 0
    """With ``collect_shards``: 0 runs the shards one after another in this process; N on N persistent Ray
    actors (1 CPU each; ``actors_ray``), each holding its games, the teacher and a copy of the network, sent
    the weights every round. The same checkpoints either way; the learner stays in this process (``device``)."""
    actors_ray: str = "local"
    """With ``actors``: ``local`` (a Ray started on this machine with ``actors`` CPUs) or a cluster address
    (``host:port``, ``ray://host:port``, ``auto``), as ``spades tournament --ray``."""

    replay_rounds: int = 1
    """Train on the labelled positions of the last this many rounds (1: the current round only)."""
    epochs: int = 2
    """Passes over the training positions per round."""
    minibatch: int = 2048
    """Positions per gradient step."""
    learning_rate: float = 1e-4
    """Adam learning rate."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``rounds``."""
    vf_coef: float = 0.5
    """Weight of the value regression (the existing value head, on ``ret``)."""
    max_grad_norm: float = 1.0
    """Gradient clipping norm."""
    reward_scale: float = 0.01
    """A hand's points times this is the value target."""

    hidden: int = 512
    """Width of the torso layers (must match ``init_from``)."""
    depth: int = 3
    """Number of torso layers (must match ``init_from``)."""
    card_features: bool = False
    """The network's torsos also read the card-counting inputs it derives from its observation
    (``agents.card_features``: which of its cards are the highest still out, which would take the trick, who is
    winning it; must match ``init_from``)."""
    card_feature_logits: bool = False
    """With ``card_features``: each card's logit adds that card's own features weighted by a gate on the torso
    (``train.ppo.config.PPOConfig.card_feature_logits``)."""
    card_value_hidden: int = 0
    """> 0: a card value head of this width learns each legal card's value from the labels of the card decisions
    (the teacher's or, with ``card_labels: deal``, the real deal's values: a regression centred on each decision's
    mean, ``train.values.bid_values.centred_value_loss``, in units of ``reward_scale``), beside the card head
    that learns their softmax; the network then plays its card head's card unless a legal card's value beats it by
    more than ``card_margin`` points (``agents.neural.margin_cards``). A regression averages the one-deal labels
    over the deals the seat cannot tell apart, which a softmax target does not."""
    card_value_torso: bool = False
    """With ``card_value_hidden``: the value head reads a torso of its own, so that learning the values moves no
    weight the card head or the bids read."""
    card_value_coef: float = 1.0
    """Weight of the card value regression in the loss."""
    card_margin: float = 0.0
    """Points a legal card's value must beat the card head's card by to be played instead, where the network has
    a card value head (the run's evaluations and the checkpoint's ``neural`` bot; ``neural:margin=M`` overrides)."""
    init_from: str | None = None
    """Start from this checkpoint's network (full or slim, e.g. checkpoints/partnership_ppo.pt)."""

    run_dir: str = "runs"
    """Where runs write TensorBoard logs and checkpoints."""
    checkpoint_every: int = 1
    """Save ``checkpoints/latest.pt`` every this many rounds (and at the end)."""
    eval_every: int = 0
    """Duplicate evaluation against HeuristicAgent every this many rounds (0 = only at the end)."""
    eval_initial: bool = False
    """Evaluate the starting network before the first round too (round 0 on the curve)."""
    eval_final: bool = True
    """Evaluate at the end of the run."""
    eval_deals: int = 256
    """Boards per evaluation (each played in both seatings)."""
    eval_seed: int = 1_000_003
    """Seed of the evaluation deals (fixed: evaluations compare like with like)."""
    eval_search: str = ""
    """A second opponent for every evaluation, a bot spec such as ``search:fast`` (curves ``eval_search/diff``,
    ``eval_search/diff_ci95``, ``eval_search/board_win_rate``); empty: HeuristicAgent only. ``best.pt`` follows
    the evaluation against the heuristic."""
    eval_search_deals: int = 128
    """Boards per evaluation against ``eval_search`` (a search bot plays ~400-1800 decisions/s)."""
    keep_best: bool = True
    """Save ``checkpoints/best.pt`` whenever an evaluation gives the best ``diff`` so far."""

    def __post_init__(self) -> None:
        checks = {
            "algorithm": self.algorithm == ALGORITHM,
            "episode": self.episode in ("match", "hand"),
            "device": self.device == "cpu" or self.device.startswith("cuda"),
            "unvalued": self.unvalued in ("teacher", "behaviour"),
            "temperature": self.temperature > 0,
            "nil_weight": self.nil_weight > 0,
            "anchor": 0.0 <= self.anchor < 1.0,
            "anchor_to": self.anchor_to in ("behaviour", "initial"),
            "opponents": self.opponents in OPPONENTS,
            "train_on": self.train_on in TRAIN_ON,
            "target": self.target in TARGETS,
            "card_labels": self.card_labels in CARD_LABELS,
            "card_feature_logits": self.card_features or not self.card_feature_logits,
            "card_value_hidden": self.card_value_hidden >= 0,
            "card_value_torso": self.card_value_hidden > 0 or not self.card_value_torso,
            "card_value_coef": self.card_value_coef >= 0,
            "card_margin": self.card_margin >= 0,
            "rounds": self.rounds >= 0,
            "num_envs": self.num_envs >= 1,
            "num_steps": self.num_steps >= 1,
            "heuristic_rounds": self.heuristic_rounds >= 0,
            "label_chunk": self.label_chunk >= 1,
            "label_workers": self.label_workers >= 0,
            "collect_shards": 0 <= self.collect_shards <= self.num_envs,
            "actors": self.actors >= 0,
            "replay_rounds": self.replay_rounds >= 1,
            "epochs": self.epochs >= 1,
            "minibatch": self.minibatch >= 1,
            "threads": self.threads >= 1,
            "checkpoint_every": self.checkpoint_every >= 1,
            "eval_every": self.eval_every >= 0,
            "eval_deals": self.eval_deals >= 1,
            "warmup_teacher": NETWORK not in self.warmup_teacher,
            "eval_search_deals": self.eval_search_deals >= 1,
        }
        bad = [k for k, ok in checks.items() if not ok]
        if bad:
            raise ValueError(
                f"bad expert-iteration config value(s): {', '.join(f'{k}={getattr(self, k)!r}' for k in bad)}"
            )
        if self.eval_search:
            from agents import parse_spec

            try:
                parse_spec(self.eval_search)
            except ValueError as error:
                raise ValueError(
                    f"bad expert-iteration config value eval_search={self.eval_search!r}: {error}"
                ) from None
        if self.train_on == "learner" and self.opponents != "heuristic":
            raise ValueError(
                f"train_on='learner' needs opponents='heuristic' (with opponents={self.opponents!r} the learner "
                "plays every seat: use train_on='all')"
            )
        if self.card_labels == "deal" and self.target != "values":
            raise ValueError(f"card_labels='deal' needs target='values' (got target={self.target!r})")
        if self.card_value_hidden and self.target != "values":
            raise ValueError(
                f"card_value_hidden={self.card_value_hidden} needs target='values' (the card values it learns; got "
                f"target={self.target!r})"
            )
        if self.actors and not self.collect_shards:
            raise ValueError(
                f"actors={self.actors} needs collect_shards >= 1 (the shards the actors collect and label)"
            )
        if self.label_workers and self.collect_shards:
            raise ValueError(
                f"label_workers={self.label_workers} is for collect_shards: 0; with "
                f"collect_shards={self.collect_shards} the shards' workers label (actors: N puts them on Ray)"
            )


def is_expert_iteration(data: dict[str, Any] | None) -> bool:
    """Whether a training config mapping (a YAML file's, a checkpoint's) is an expert-iteration one."""
    return isinstance(data, dict) and data.get("algorithm") == ALGORITHM
