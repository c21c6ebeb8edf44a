"""A neural-network player: the agent that plays the PPO policy network (``agents.policy.SpadesPolicy``, re-exported
here) from a checkpoint.

``agents`` imports torch only in the network modules (this one, ``agents.policy``, ``agents.card_features``,
``agents.neural_int8``) and ``agents.checkpoint_io``.
Checkpoints are written by ``train/runs/checkpoint.py`` and read by ``agents.checkpoint_io``,
so that ``agents`` never imports ``train``. A checkpoint network plays only rules whose
observations and actions mean what they meant in training (``agents.checkpoint_io.observation_differences``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent, DecisionContext, masked_logits
from agents.checkpoint_io import CheckpointError, observation_differences, read_checkpoint
from agents.neural_int8 import int8_copy, parse_precision
from agents.options import check_card_player, parse_bool
from agents.policy import SpadesPolicy, weights_loaded_next
from spades_env.engine import PLAY, SpadesEngine
from spades_env.rules import Rules


def torch_device(device: str | torch.device) -> torch.device:
    """A checked torch device: ``cpu``, ``cuda`` or ``cuda:N``, and CUDA only when a CUDA device is there."""
    allowed = "'cpu', 'cuda' or 'cuda:N'"
    try:
        dev = torch.device(str(device).strip())
    except (RuntimeError, TypeError, ValueError):
        raise ValueError(f"device must be {allowed}, got {device!r}") from None
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be {allowed}, got {device!r}")
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError(f"device {str(device)!r}: no CUDA device is available (torch sees no GPU); use cpu")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise ValueError(f"device {str(device)!r}: only {torch.cuda.device_count()} CUDA device(s) are available")
    return dev


def lone_actions(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For (B, A) legal masks: (B,) int64 each row's first legal action (its only one where it has one) and the rows
    with more than one, which need a choice: a greedy player takes a lone legal action without asking its network."""
    return np.argmax(masks, axis=1).astype(np.int64), np.flatnonzero(masks.sum(axis=1) > 1)


def margin_cards(base: np.ndarray, values: np.ndarray, legal: np.ndarray, margin: float) -> np.ndarray:
    """(B,) the card actions ``base`` (B,), each replaced by the legal card of best value (``values`` (B, C), the
    card value head's, in the units of ``margin``) where that value beats the base card's by more than ``margin``
    (a value head trusted only where it is sure; ties keep the base card)."""
    if not len(base):
        return base
    vals = np.where(legal, values, -np.inf)
    best = np.argmax(vals, axis=1)
    rows = np.arange(len(base))
    return np.where(vals[rows, best] - vals[rows, base] > margin, best, base).astype(np.int64)


def parse_margin(text: str | float | None, bot: str, option: str = "margin") -> float | None:
    """The ``margin`` option (or ``option``: points, >= 0) of a bot spec; empty or None: as the checkpoint trained."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    try:
        margin = float(text)
    except ValueError:
        margin = -1.0
    if not np.isfinite(margin) or margin < 0:
        raise ValueError(f"bot {bot!r}: option {option!r} must be a number of points >= 0, got {text!r}")
    return margin


def card_player_bot(play: str, seed: int | None) -> Agent:
    """The bot that plays a network's cards for ``play=heuristic`` or ``play=search`` (its defaults), seeded."""
    if play == "heuristic":
        from agents.heuristic import HeuristicAgent

        return HeuristicAgent(seed=seed)
    from agents.search import SearchAgent  # the search's compiled modules only when asked for

    return SearchAgent(seed=seed)


class NeuralAgent(Agent):
    """Plays a trained ``SpadesPolicy`` from observations and legal masks (greedy by default)."""

    name = "neural"
    uses_observations = True

    def __init__(
        self,
        policy: SpadesPolicy,
        *,
        greedy: bool = True,
        device: str = "cpu",
        seed: int | None = None,
        obs_version: int | None = None,
        name: str | None = None,
        rules: Rules | None = None,
        play: str = "network",
        card_margin: float = 0.0,
        value_scale: float = 100.0,
        precision: str = "float32",
        nil_margin: float = 0.0,
        bid_samples: int = 0,
        bids_are_values: bool = False,
    ) -> None:
        check_card_player(play, "neural")
        self.precision = parse_precision(precision, name or "neural")
        """``float32`` (the trained network, bit for bit) or ``int8`` (``agents.neural_int8``: about twice as fast on
        the CPU, a copy of the network whose wide layers are 8-bit integer products)."""
        super().__init__(seed)
        self.device = torch_device(device)
        if self.precision == "int8" and self.device.type != "cpu":
            raise ValueError(f"bot {name or 'neural'!r}: precision int8 plays on the CPU only, got device {device!r}")
        self.policy = policy.to(self.device).eval()
        if self.precision == "int8":
            self.policy = int8_copy(self.policy, _binary_inputs(rules, policy.obs_dim))
        self.greedy = parse_bool(greedy, "greedy")
        """Play the most probable legal action; otherwise sample from the policy (seeded)."""
        self.obs_version = obs_version
        self.rules = rules
        """The rules the network was trained on (from its checkpoint); None: only the sizes are checked."""
        if name is not None:
            self.name = name
        self.play = play
        """Who plays the cards: ``network``, or the bot ``heuristic`` or ``search`` (its defaults) for every card."""
        self.card_player: Agent | None = None
        if play != "network":
            self.card_player = card_player_bot(play, seed)
        self.card_margin = float(card_margin)
        """With a card value head: the points a legal card's value must beat the card head's card by to be
        played instead (``margin_cards``)."""
        self.value_scale = float(value_scale)
        """Points per unit of the card value head's outputs (and of the bidding head's, where its bids are values)."""
        self.nil_margin = float(nil_margin)
        """Points a nil (or blind nil) bid's value must beat the best other bid's by to be bid: 0, the network's
        own choice. For bids learned as values (a bid-values run's network), learned against the heuristic's
        defence: a stronger defence sets more nils."""
        self._nil_columns = nil_columns(rules, policy.n_card_actions)
        self._play_column: int | None = None
        self.bid_samples = int(bid_samples)
        """Sampled deals a bid's lookahead plays out (``agents.neural_lookahead``: the network's bid values averaged
        with the lookahead's); 0: the network's bids alone."""
        self.bids_are_values = bool(bids_are_values)
        """The bidding head's outputs are each bid's value (a bid-values run's network: ``bids_are_values``), which
        ``nil_margin`` and ``bid_samples`` need."""

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.card_player is not None:
            self.card_player.reset(seed)

    @classmethod
    def from_checkpoint(
        cls,
        path: str | Path,
        *,
        greedy: bool = True,
        device: str = "cpu",
        seed: int | None = None,
        play: str | None = None,
        card_margin: float | None = None,
        precision: str = "float32",
        nil_margin: float = 0.0,
        bid_samples: int = 0,
    ) -> NeuralAgent:
        """Load the policy of a training checkpoint, full or slim (``train.runs.checkpoint.export_slim``);
        fails (ValueError) on a file that is not one, or of another observation version. ``play``: who
        plays the cards; None: as in training (the checkpoint's ``card_play``, else the network).
        ``card_margin``: the card value head's margin in points; None: the checkpoint's (its config's).
        ``precision``: ``float32`` or ``int8`` (``NeuralAgent.precision``); ``nil_margin``, ``bid_samples``: for a
        network whose bids are values (``NeuralAgent.nil_margin``, ``NeuralAgent.bid_samples``)."""
        parse_precision(precision, "neural")  # before any work
        if play is not None:
            check_card_player(play, "neural")  # before any work
        from spades_env.observation import VERSION

        dev = torch_device(device)  # before any work
        ckpt: dict[str, Any] = read_checkpoint(path)
        if ckpt["obs_version"] != VERSION:
            raise ValueError(
                f"{path}: checkpoint was trained on observation VERSION {ckpt['obs_version']}, "
                f"but spades_env.observation is VERSION {VERSION}; retrain or check out the matching code"
            )
        rules = Rules.from_dict(ckpt["rules"], source=f"checkpoint {path}")
        config = ckpt.get("config") or {}
        for option, value in (("nil_margin", nil_margin), ("bid_samples", bid_samples)):
            if value and not bids_are_values(config):
                raise ValueError(
                    f"option {option!r} needs a network whose bids are values (a bid-values run's); {path} was "
                    f"trained by {config.get('algorithm', 'ppo')!r}"
                )
        if bid_samples and not rules.has_bidding:
            raise ValueError(f"option 'bid_samples' is for games with bidding; {path} plays {rules.name!r} (Hearts)")
        try:
            with weights_loaded_next():  # every weight comes from the file
                policy = SpadesPolicy(**ckpt["model_hparams"])
            policy.load_state_dict(ckpt["model"])
        except (TypeError, RuntimeError, KeyError) as error:
            lines = [line.strip() for line in str(error).splitlines() if line.strip()] or [type(error).__name__]
            first = lines[1] if len(lines) > 1 and lines[0].startswith("Error(s) in loading") else lines[0]
            message = f"checkpoint {path}: its network does not match its model_hparams ({first})"
            raise CheckpointError(message) from None
        return cls(
            policy,
            greedy=greedy,
            device=str(dev),
            seed=seed,
            obs_version=ckpt["obs_version"],
            name=f"neural:{Path(path).stem}",
            rules=rules,
            play=play or trained_card_player(ckpt),
            card_margin=card_margin if card_margin is not None else float(config.get("card_margin", 0.0)),
            value_scale=value_scale_of(config),
            precision=precision,
            nil_margin=nil_margin,
            bid_samples=bid_samples,
            bids_are_values=bids_are_values(config),
        )

    def unsupported_reason(self, engine: SpadesEngine) -> str | None:
        """Why the network cannot play ``engine``'s rules, or None if it can."""
        from spades_env.observation import encoder_for

        table = engine.rules
        if self.rules is not None:
            diffs = observation_differences(self.rules, table)
            if diffs:
                return (
                    f"bot {self.name!r} was trained on the rules {self.rules.name!r} and the table plays "
                    f"{table.name!r}; its observations or actions would mean something else: {'; '.join(diffs)}"
                )
        sizes = (engine.layout.n_actions, engine.layout.bid_offset, encoder_for(engine).size)
        wanted = (self.policy.n_actions, self.policy.n_card_actions, self.policy.obs_dim)
        if sizes != wanted:
            return (
                f"bot {self.name!r} has (actions, card actions, observation size) {wanted}, "
                f"the rules {table.name!r} have {sizes}"
            )
        return None

    def act(self, observations: np.ndarray, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        if len(masks) == 0:
            return np.zeros(0, np.int64)
        if self.card_player is None:
            actions = self._network_actions(observations, masks, self._played_cards(observations, masks, context))
        else:
            actions = self._with_card_player(observations, masks, context)
        if self.bid_samples:
            from agents.neural_lookahead import set_lookahead_bids  # the search modules on demand

            set_lookahead_bids(self, observations, masks, context, actions)
        return actions

    def _with_card_player(self, observations, masks: np.ndarray, context: DecisionContext | None) -> np.ndarray:
        """``act`` where ``card_player`` plays the cards and the network the rest."""
        if context is None:
            raise ValueError(f"bot {self.name!r} with play={self.play} needs the decision context (it plays the cards)")
        cards = context.state.phase[context.games] == PLAY
        actions = np.zeros(len(masks), np.int64)
        rows = np.flatnonzero(cards)
        if len(rows):
            sub = context.take(rows)
            actions[rows] = self.card_player.act(None, masks[rows], sub)
        rows = np.flatnonzero(~cards)
        if len(rows):
            network_rows = np.asarray(observations)[rows]
            actions[rows] = self._network_actions(network_rows, masks[rows], np.zeros(len(rows), bool))
        return actions

    def _played_cards(self, observations, masks: np.ndarray, context: DecisionContext | None) -> np.ndarray:
        """(B,) bool: the decisions that play a card to a trick (PLAY), where a card value head's margin rule applies:
        in a game with passing (Hearts) the passes are card actions too, and the value head knows nothing of them.
        Without a context the observation's phase block tells (without passing every card decision plays)."""
        if self.policy.card_value_head is None:
            return np.zeros(len(masks), bool)
        if context is not None:
            return context.state.phase[context.games] == PLAY
        if self.rules is not None and self.rules.has_passing:
            return np.asarray(observations)[:, self._play_column_of_table()] == 1
        return np.ones(len(masks), bool)

    def _play_column_of_table(self) -> int:
        """The observation entry that is 1 in the PLAY phase at this network's table (``phase_column``)."""
        from spades_env.observation import encoder_for

        if self._play_column is None:
            self._play_column = encoder_for(SpadesEngine(self.rules)).phase_column(PLAY)
        return self._play_column

    def _network_actions(self, observations: np.ndarray, masks: np.ndarray, played: np.ndarray) -> np.ndarray:
        """The network's (greedy or sampled) legal actions of (B, D) observations and (B, A) masks; with a card value
        head, the card decisions of ``played`` (B,) bool by the margin rule (``margin_cards``). Greedy, a decision
        with one legal action (a fifth of the cards: the last trick, a lone card of the suit led) takes it without
        the network (sampling draws for every row, so that its random stream does not depend on them)."""
        if not self.greedy:
            return self._network_choices(observations, masks, played)
        actions, free = lone_actions(masks)
        if len(free) == len(masks):  # no lone action: the rows as they are, uncopied
            return self._network_choices(observations, masks, played)
        if len(free):
            actions[free] = self._network_choices(np.asarray(observations)[free], masks[free], played[free])
        return actions

    def _network_choices(self, observations: np.ndarray, masks: np.ndarray, played: np.ndarray) -> np.ndarray:
        """``_network_actions`` with the network asked for every row."""
        c = self.policy.n_card_actions
        with torch.no_grad():
            obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
            logits, values = self.policy.play_outputs(obs, bids=bool(masks[:, c:].any()))
        logits = masked_logits(logits.float().cpu().numpy().astype(np.float64), masks)
        if self.nil_margin:
            logits[:, self._nil_columns] -= self.nil_margin / self.value_scale
        if self.greedy:
            actions = np.argmax(logits, axis=1).astype(np.int64)
        else:
            gumbel = -np.log(-np.log(self.rng.random(logits.shape)))
            actions = np.argmax(logits + gumbel, axis=1).astype(np.int64)
        if values is not None:
            rows = np.flatnonzero((actions < c) & played)
            points = values[torch.as_tensor(rows, device=values.device)].double().cpu().numpy() * self.value_scale
            actions[rows] = margin_cards(actions[rows], points, masks[rows, :c], self.card_margin)
        return actions


def nil_columns(rules: Rules | None, bid_offset: int) -> list[int]:
    """The action ids of the nil bids: nil, and blind nil where ``rules`` have it."""
    if rules is None:
        return [bid_offset]
    from spades_env.engine.actions import ActionLayout

    layout = ActionLayout.for_rules(rules)
    blind = layout.special("blind_nil")
    return ([bid_offset] if layout.max_bid >= 0 else []) + ([] if blind is None else [blind])


def _binary_inputs(rules: Rules | None, obs_dim: int) -> int:
    """The 0/1 entries at the start of the observations of ``rules``' table (0 without rules, or where the sizes
    differ: every input then rounded per row)."""
    if rules is None:
        return 0
    from spades_env.observation import encoder_for

    encoder = encoder_for(SpadesEngine(rules))
    return encoder.binary_size if encoder.size == obs_dim else 0


def bids_are_values(config: dict[str, Any]) -> bool:
    """Whether a checkpoint's training config is a bid-values run's, whose bidding head gives each bid's value."""
    return config.get("algorithm") == "bid_values"


def value_scale_of(config: dict[str, Any]) -> float:
    """Points per unit of a checkpoint's value outputs (its card value head's, a bid-values run's bids): its config's
    ``value_scale`` (the value trainers'), else an expert-iteration run's ``1 / reward_scale`` (its card value head
    learns points times ``reward_scale``), else 100."""
    if "value_scale" in config:
        return float(config["value_scale"])
    if config.get("algorithm") == "expert_iteration" and config.get("reward_scale"):
        return 1.0 / float(config["reward_scale"])
    return 100.0


def trained_card_player(ckpt: dict[str, Any]) -> str:
    """Who played the cards while the checkpoint's network trained (its config's ``card_play``; ``network``
    for checkpoints from before that option): a network trained to bid under heuristic card play plays so."""
    config = ckpt.get("config") or {}
    return str(config.get("card_play", "network"))


def make_neural_agent(
    seed: int | None = None,
    path: str = "",
    greedy: bool | int | str = True,
    device: str = "cpu",
    play: str = "",
    margin: str = "",
    precision: str = "",
    nil_margin: str = "",
    bid_samples: str = "",
) -> NeuralAgent:
    """Factory for bot registries and spec strings (``neural:path=runs/.../latest.pt[,play=heuristic]``);
    ``play`` empty: as the checkpoint trained; ``margin`` (points) empty: the checkpoint's card margin;
    ``precision`` empty: float32 (``int8``: ``agents.neural_int8``)."""
    if not path:
        raise ValueError("the neural bot needs a checkpoint: neural:path=PATH")
    from agents.neural_lookahead import parse_bid_samples

    greedy = parse_bool(greedy, "greedy")
    card_margin = parse_margin(margin, "neural")
    return NeuralAgent.from_checkpoint(
        path, greedy=greedy, device=device, seed=seed, play=play or None, card_margin=card_margin,
        precision=precision or "float32", nil_margin=parse_margin(nil_margin, "neural", "nil_margin") or 0.0,
        bid_samples=parse_bid_samples(bid_samples, "neural"),
    )  # fmt: skip
