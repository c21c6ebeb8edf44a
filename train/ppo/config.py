"""Every setting of a PPO training run (``train/ppo/trainer.py``), loaded from ``configs/train/*.yaml``."""

from __future__ import annotations

from dataclasses import dataclass

from agents.options import CARD_PLAYERS
from train.runs.config_file import ConfigFile

#: The ``critic`` settings (``train/ppo/critic.py``).
CRITICS = ("shared", "perfect")
#: The ``bid_learning`` settings.
BID_LEARNING = ("ppo", "hindsight")
#: The ``hindsight_nil`` settings.
HINDSIGHT_NIL = ("scored", "played")
#: The ``card_anchor_hands`` settings.
ANCHOR_HANDS = ("all", "nil")


@dataclass(frozen=True)
class PPOConfig(ConfigFile):
    """Every setting of a training run; loaded from ``configs/train/*.yaml``."""

    exp_name: str = "ppo"
    """Name of the experiment, part of the run name ``{rules}__{exp_name}__{seed}__{time}``."""
    rules: str = "partnership"
    """Rules preset name (``spades_env/presets/``) or path to a rules YAML file."""
    seed: int = 1
    """Seed of everything: network init, deals, action sampling, minibatches, the opponent pool."""
    torch_deterministic: bool = True
    """Deterministic cuDNN kernels on GPU (CPU runs are deterministic for a fixed ``threads``)."""
    device: str = "cpu"
    """``cpu`` or ``cuda`` (the network and the update; the games always run in NumPy)."""
    threads: int = 1
    """torch CPU threads (keep it small on a shared machine; results depend on it)."""

    num_envs: int = 64
    """Games played in lockstep."""
    num_steps: int = 64
    """Steps per rollout; each step is one decision in every game (num_envs * num_steps per update)."""
    total_updates: int = 100
    """PPO updates in the whole run (learning-rate annealing runs over this many)."""
    episode: str = "match"
    """What a game of the vector env is: ``match`` (scores and bags carry over) or ``hand``."""
    credit: str = "hand"
    """Where a seat's return stops: ``hand`` (each hand is an episode for GAE) or ``match``."""
    reward_scale: float = 0.01
    """Points of a hand are multiplied by this to give the reward."""
    bag_adjusted_reward: bool = False
    """A hand's reward is its side's bag-adjusted points (the hand's bag penalties put back, every bag taken
    charged ``bag_penalty / bag_limit``: the points tournaments and evaluations compare) instead of the
    change of the side's score, where a bag penalty lands on whichever hand takes the ``bag_limit``-th bag."""
    paired: bool = False
    """Duplicate-paired games (``train/ppo/pairing.py``): games 2k and 2k+1 play the same deals (bot opponents on
    the other side in the twin), and a seat's hand reward becomes its own minus ``pair_weight`` times its
    twin's (same seat, same cards). Needs an even ``num_envs``, ``episode: match``, ``credit: hand`` and
    ``pool_prob: 0``."""
    pair_weight: float = 1.0
    """How much of the twin's hand reward is subtracted (1: the duplicate difference; 0: none)."""
    opponent_reward_weight: float = 0.0
    """A seat's hand reward becomes its side's minus this times the mean reward of the other sides (after
    ``bag_adjusted_reward``, before ``reward_scale`` and pairing). Tournaments compare a side's points with
    the other sides' points, so with several opponent sides (cutthroat) setting one of them (making it miss
    its bid) is worth points there that an own-points reward does not pay for. 0: own points only."""

    card_play: str = "network"
    """Who plays the cards in training games: ``network`` (the learner plays and learns them) or ``heuristic``
    (HeuristicAgent plays every card at the table, not trained on: the network learns only its other decisions,
    bids, blind nil and Bemo, under the heuristic's card play, as the bidding benchmark measures them; the
    evaluations and the checkpoint's ``neural`` bot then play the same way). The cards are not stored in the
    rollout: with ``credit: hand`` a bid's return is its hand's reward."""

    card_anchor: float = 0.0
    """Weight of a term pulling the network's card play toward HeuristicAgent's: on every card the learner plays
    (``card_play: network``), the update adds ``card_anchor`` times the cross-entropy of the heuristic's card in
    that position, ``-log pi(heuristic's card)``, to the PPO loss (a KL anchor to the heuristic's one-hot
    policy). PPO still moves the cards where its advantages say so, against that pull; the bids are free.
    0: none (the heuristic is not asked)."""
    card_anchor_hands: str = "all"
    """Which cards ``card_anchor`` pulls: ``all`` the learner's, or ``nil`` only those of hands where a seat bid nil
    (blind nil included): the network's card play loses its points to the heuristic's there."""

    learning_rate: float = 3e-4
    """Adam learning rate."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``total_updates``."""
    gamma: float = 1.0
    """Discount per decision of the same seat."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    num_minibatches: int = 4
    """Minibatches per epoch (the batch is every trainable decision of the rollout)."""
    update_epochs: int = 4
    """Passes over the batch per update."""
    norm_adv: bool = True
    """Normalize advantages per minibatch."""
    clip_coef: float = 0.2
    """PPO clipping of the probability ratio (and of the value change, with ``clip_vloss``)."""
    clip_vloss: bool = True
    """Clip the value loss as in PPO2."""
    ent_coef: float = 0.01
    """Entropy bonus weight."""
    bid_ent_coef: float | None = None
    """Entropy bonus weight of the bidding decisions (bids, blind nil, Bemo: a legal action from the bid range on);
    None: ``ent_coef``. A seat bids once a hand and plays 13 cards, so under one weight the bids get a fourteenth of
    the bonus: from scratch their entropy collapses within the first million decisions on the low bids that pay
    while the card play is weak, and stays there (``losses/bid_entropy`` ~0) when the card play has learned to
    take more tricks. A larger weight keeps the bids exploring."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    target_kl: float | None = None
    """Stop an update's epochs early once the approximate KL exceeds this (None = never)."""

    hidden: int = 256
    """Width of the torso layers."""
    depth: int = 2
    """Number of torso layers."""
    card_features: bool = False
    """The policy's torsos also read the card-counting inputs it derives from its observation
    (``agents.card_features``: which of its cards are the highest still out, which would take the trick, who is
    winning it, the cards of each suit still out); the observation itself is the same."""
    card_feature_logits: bool = False
    """With ``card_features``: each card's logit adds that card's own features (beats, highest out, lowest of mine,
    ...) weighted by a gate on the torso (one weight per feature, shared by every card), so that a preference such
    as "take the trick" is learned once rather than once per card."""
    critic: str = "shared"
    """Where values come from: ``shared`` (the policy network's own value head, on the seat's own
    observation) or ``perfect`` (a separate value network, ``train/ppo/critic.py``, ``hidden`` x ``depth``,
    fed the perfect-information observation with every seat's hand; the policy still sees only its own)."""

    bid_learning: str = "ppo"
    """How the learner's regular bids learn: ``ppo`` (as every other decision) or ``hindsight``
    (``train/ppo/hindsight_bids.py``: at each hand's end every candidate bid is scored with the tricks as they fell,
    the bidding head regresses those values and bids greedily on them; blind nil and Bemo stay with PPO)."""
    bid_explore: float = 0.1
    """``bid_learning: hindsight``: the share of the learner's bids that are a uniformly random legal bid."""
    bid_value_coef: float = 1.0
    """``bid_learning: hindsight``: weight of the bidding head's value loss beside PPO's loss."""
    hindsight_nil: str = "scored"
    """``bid_learning: hindsight``: how nil is valued (``train/ppo/hindsight_bids.py``): ``scored`` with the tricks as
    they fell, as every bid; ``played`` only where the seat bid it, every other bid only where it did not."""

    pool_prob: float = 0.0
    """Probability that a hand's opponents are a past snapshot instead of the current network."""
    heuristic_prob: float = 0.0
    """Probability that a hand's opponents are HeuristicAgent (checked before ``pool_prob``)."""
    pool_every: int = 10
    """Add a snapshot of the network to the pool every this many updates."""
    pool_size: int = 5
    """Snapshots kept (the oldest is dropped)."""

    imitation_updates: int = 0
    """Behaviour-cloning rounds of HeuristicAgent before PPO (``train/ppo/imitation.py``; 0 = none).
    Each round collects ``num_envs * num_steps`` heuristic decisions and fits them for
    ``update_epochs`` passes; the value head learns the heuristic's hand returns."""
    imitation_learning_rate: float = 1e-3
    """Adam learning rate of behaviour cloning (annealed linearly to 0 over its rounds)."""
    imitation_epochs: int | None = None
    """Passes over each behaviour-cloning round's examples (None = ``update_epochs``)."""
    imitation_num_envs: int | None = None
    """Games the heuristic plays per behaviour-cloning round (None = ``num_envs``)."""
    imitation_num_steps: int | None = None
    """Decisions per game per behaviour-cloning round (None = ``num_steps``)."""
    imitation_minibatch: int | None = None
    """Examples per behaviour-cloning gradient step (None = the PPO minibatch size)."""
    imitation_heldout: int = 0
    """Held-out heuristic decisions whose agreement is logged during behaviour cloning (0 = none)."""
    init_from: str | None = None
    """Start from the network weights of this checkpoint (a training checkpoint or a slim one;
    its ``hidden``/``depth`` must match) instead of a fresh network; nothing else is taken from it."""
    keep_best: bool = True
    """Save ``checkpoints/best.pt`` whenever an evaluation gives the best ``diff`` so far."""

    run_dir: str = "runs"
    """Where runs write TensorBoard logs and checkpoints."""
    checkpoint_every: int = 10
    """Save ``checkpoints/latest.pt`` every this many updates (and at the end)."""
    eval_every: int = 0
    """Duplicate evaluation against HeuristicAgent every this many updates (0 = only at the end)."""
    eval_deals: int = 64
    """Boards (deals) per evaluation; each is played in both seatings (duplicate)."""
    eval_final: bool = True
    """Evaluate at the end of the run."""
    eval_seed: int = 1_000_003
    """Seed of the evaluation deals (fixed, so evaluations compare like with like)."""
    eval_search: str = ""
    """A second opponent for every evaluation, a bot spec such as ``search:fast`` (its curves are
    ``eval_search/diff`` and ``eval_search/diff_ci95``); empty: HeuristicAgent only. ``best.pt`` follows the
    evaluation against the heuristic."""
    eval_search_deals: int = 64
    """Boards per evaluation against ``eval_search`` (a search bot plays ~400-1800 decisions/s)."""

    def __post_init__(self) -> None:
        checks = {
            "episode": self.episode in ("match", "hand"),
            "critic": self.critic in CRITICS,
            "credit": self.credit in ("hand", "match"),
            "device": self.device == "cpu" or self.device.startswith("cuda"),
            "num_envs": self.num_envs >= 1,
            "num_steps": self.num_steps >= 1,
            "num_minibatches": self.num_minibatches >= 1,
            "pool_prob": 0.0 <= self.pool_prob <= 1.0,
            "heuristic_prob": 0.0 <= self.heuristic_prob <= 1.0,
            "pool_every": self.pool_every >= 1,
            "pool_size": self.pool_size >= 1,
            "checkpoint_every": self.checkpoint_every >= 1,
            "imitation_updates": self.imitation_updates >= 0,
            "imitation_epochs": self.imitation_epochs is None or self.imitation_epochs >= 1,
            "imitation_num_envs": self.imitation_num_envs is None or self.imitation_num_envs >= 1,
            "imitation_num_steps": self.imitation_num_steps is None or self.imitation_num_steps >= 1,
            "imitation_minibatch": self.imitation_minibatch is None or self.imitation_minibatch >= 1,
            "imitation_heldout": self.imitation_heldout >= 0,
            "total_updates": self.total_updates >= 0,
            "bid_ent_coef": self.bid_ent_coef is None or self.bid_ent_coef >= 0,
            "bid_learning": self.bid_learning in BID_LEARNING,
            "bid_explore": 0.0 <= self.bid_explore <= 1.0,
            "bid_value_coef": self.bid_value_coef >= 0,
            "hindsight_nil": self.hindsight_nil in HINDSIGHT_NIL,
            "eval_search_deals": self.eval_search_deals >= 1,
            "opponent_reward_weight": 0.0 <= self.opponent_reward_weight <= 1.0,
            "card_play": self.card_play in CARD_PLAYERS,
            "card_anchor": self.card_anchor >= 0 and (self.card_anchor == 0 or self.card_play == "network"),
            "card_anchor_hands": self.card_anchor_hands in ANCHOR_HANDS,
            "card_feature_logits": self.card_features or not self.card_feature_logits,
        }
        if self.paired:
            checks |= {
                "num_envs": self.num_envs % 2 == 0,
                "episode": self.episode == "match",
                "credit": self.credit == "hand",
                "pool_prob": self.pool_prob == 0,
            }
        if self.eval_search:
            from agents import parse_spec

            try:
                parse_spec(self.eval_search)
            except ValueError as error:
                raise ValueError(f"bad training config value eval_search={self.eval_search!r}: {error}") from None
        bad = [k for k, ok in checks.items() if not ok]
        if bad:
            allowed = {
                "critic": f"one of {CRITICS}",
                "bid_ent_coef": "None or >= 0",
                "bid_learning": f"one of {list(BID_LEARNING)}",
                "bid_explore": "0 <= p <= 1",
                "bid_value_coef": ">= 0",
                "hindsight_nil": f"one of {list(HINDSIGHT_NIL)}",
                "opponent_reward_weight": "0 <= w <= 1",
                "card_play": f"one of {list(CARD_PLAYERS)}",
                "card_anchor": ">= 0, and 0 unless card_play: network",
                "card_anchor_hands": f"one of {list(ANCHOR_HANDS)}",
                "card_feature_logits": "false unless card_features: true",
            }
            if self.paired:
                paired = {"num_envs": "even", "episode": "'match'", "credit": "'hand'", "pool_prob": "0"}
                allowed |= {k: f"{v} with paired: true" for k, v in paired.items()}
            items = [f"{k}={getattr(self, k)!r}" + (f" ({allowed[k]})" if k in allowed else "") for k in bad]
            raise ValueError(f"bad training config value(s): {', '.join(items)}")
