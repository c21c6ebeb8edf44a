"""The ``learned`` bot: the committed checkpoint trained for the table's rules, or a clear refusal.

Each committed checkpoint (``docs/models/`` has its card) plays the rules it was trained on and those
whose observations and actions mean the same (``agents.checkpoint_io.observation_differences``). The
``learned`` bot holds them all and plays, at each table, the first that can: it binds to a
table at ``check_supports(engine)`` (tournaments, the web app) or at the first ``act`` with a
context; a table none of them can play is refused naming the rules they play and, for the
nearest checkpoint, what differs. torch is imported only when a checkpoint is loaded.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from agents.base import Agent, DecisionContext
from agents.options import check_card_player, parse_bool
from spades_env.engine import SpadesEngine
from spades_env.rules import Rules


def _checkpoint_dir() -> Path:
    """The source checkout's ``checkpoints/``, else the copy a wheel installs in ``<prefix>/share/spades_env``."""
    source = Path(__file__).resolve().parent.parent / "checkpoints"
    installed = Path(sys.prefix) / "share" / "spades_env" / "checkpoints"
    return installed if not source.is_dir() and installed.is_dir() else source


CHECKPOINT_DIR = _checkpoint_dir()

#: The committed checkpoints, in the order they are tried: the preset each was trained on -> its file.
LEARNED_CHECKPOINTS: dict[str, Path] = {
    # partnership_card_values.pt (partnership_bid_values_nil_cards.pt: bids learned as values, distilled into a
    # bidding torso, the heuristic's card play cloned and relearned under them; with a card value head learned on the
    # real deal) with that head on a torso of its own, learned further: its card head's card is played unless a legal
    # card's value beats it by more than the checkpoint's card_margin; that torso then trained further on games
    # against search:fast (partnership_card_values_vs_search.pt)
    "partnership": CHECKPOINT_DIR / "partnership_card_values_vs_search.pt",
    # cutthroat4_card_values.pt (cutthroat4_dagger.pt's bids learned as values, its cloned cards kept by imitation,
    # a card value head learned on the real deal) with that head on a torso of its own, learned further
    "cutthroat-4": CHECKPOINT_DIR / "cutthroat4_card_values_torso.pt",
    # hearts_card_values_torso.pt (hearts_expit.pt, hearts_ppo.pt improved by expert iteration, with a card value head
    # on a torso of its own learned on the real deal) with those values relearned three times on its own continuation
    # (policy iteration); it plays the value head's best card in the tricks (margin 0) and passes by its card head
    "hearts": CHECKPOINT_DIR / "hearts_card_values_iterated3.pt",
    # the one training command from nothing (`spades train --rules two-player --set rounds=60`: expert iteration, its
    # cards valued by search:fast on 4 sampled deals, its bids by its lookahead bidder, its draw cloned from heuristic)
    "two-player": CHECKPOINT_DIR / "two_player_expit.pt",
    # the same command at cutthroat-3, -5 and -6 (`--rules cutthroat-N --set rounds=60`; real-deal card labels at 3, 6)
    "cutthroat-3": CHECKPOINT_DIR / "cutthroat3_expit.pt",
    "cutthroat-5": CHECKPOINT_DIR / "cutthroat5_expit.pt",
    "cutthroat-6": CHECKPOINT_DIR / "cutthroat6_expit.pt",
    # and at hearts-partnership (`spades train --rules hearts-partnership --set rounds=60`)
    "hearts-partnership": CHECKPOINT_DIR / "hearts_partnership_expit.pt",
    # and at partnership-house (`spades train --rules partnership-house --set rounds=200`, cards on 4 sampled deals)
    "partnership-house": CHECKPOINT_DIR / "partnership_house_expit.pt",
}


def available_checkpoints() -> dict[str, Path]:
    """The committed checkpoints that are present (a source checkout and a wheel install have them all)."""
    return {preset: path for preset, path in LEARNED_CHECKPOINTS.items() if path.exists()}


class LearnedAgent(Agent):
    """Plays the committed checkpoint that fits the table's rules (greedy by default)."""

    name = "learned"
    uses_observations = True

    def __init__(
        self,
        seed: int | None = None,
        greedy: bool = True,
        device: str = "cpu",
        play: str = "",
        margin: str = "",
        precision: str = "",
        nil_margin: str = "",
        bid_samples: str = "",
    ) -> None:
        from agents.neural import parse_margin, torch_device
        from agents.neural_int8 import parse_precision
        from agents.neural_lookahead import parse_bid_samples

        super().__init__(seed)
        self.play = check_card_player(play, "learned") if play else None
        """Who plays the cards (``network``, ``heuristic``, ``search``); None: as each checkpoint trained."""
        self.seed = seed
        self.greedy = parse_bool(greedy, "greedy")
        self.device = str(torch_device(device))  # a bad or absent device fails now, in one line
        self.card_margin = parse_margin(margin, "learned")
        """Points a card value head's card must beat the network's card by (None: each checkpoint's own)."""
        self.precision = parse_precision(precision, "learned")
        """``float32`` or ``int8`` (``agents.neural_int8``) for every checkpoint."""
        self.nil_margin = parse_margin(nil_margin, "learned", "nil_margin") or 0.0
        """Points a nil bid's value must beat the best other bid's by (``NeuralAgent.nil_margin``); 0: as trained.
        Only the networks whose bids are values take it (partnership's, cutthroat-4's); the others bid as trained."""
        self.bid_samples = parse_bid_samples(bid_samples, "learned")
        """Sampled deals of each bid's lookahead (``NeuralAgent.bid_samples``) where the preset bids and the network's
        bids are values (as ``nil_margin``); 0: none."""
        self.paths = available_checkpoints()
        if not self.paths:
            raise ValueError(f"the learned bot needs a checkpoint in {CHECKPOINT_DIR}; none of {_files()} is there")
        self._agents: dict[str, Agent] = {}
        for preset in self.paths:  # loaded now: a copy of this agent (the web app's templates) carries them
            self.agent_for(preset)
        self.bound: Agent | None = None
        """The checkpoint's agent playing the table last checked (``check_supports``) or played."""
        self._bound_to: SpadesEngine | None = None

    def agent_for(self, preset: str) -> Agent:
        """The network trained on ``preset`` (loaded once)."""
        if preset not in self._agents:
            from agents.neural import NeuralAgent

            agent = NeuralAgent.from_checkpoint(
                self.paths[preset], greedy=self.greedy, device=self.device, seed=self.seed, play=self.play,
                card_margin=self.card_margin, precision=self.precision,
            )  # fmt: skip
            if agent.bids_are_values:  # nil_margin and bid_samples act on those networks' bids only
                agent.nil_margin = self.nil_margin
                agent.bid_samples = self.bid_samples if Rules.preset(preset).has_bidding else 0
            self._agents[preset] = agent
        return self._agents[preset]

    def unsupported_reason(self, engine: SpadesEngine) -> str | None:
        """Why no committed checkpoint can play ``engine``'s rules, or None (and the one that can is bound)."""
        from agents.checkpoint_io import observation_differences

        reasons = {}
        for preset in self.paths:
            agent = self.agent_for(preset)
            reason = agent.unsupported_reason(engine)
            if reason is None:
                self.bound, self._bound_to = agent, engine
                return None
            trained = agent.rules if agent.rules is not None else engine.rules
            distance = (trained.game != engine.rules.game, len(observation_differences(trained, engine.rules)))
            reasons[reason] = distance
        nearest = min(reasons, key=reasons.__getitem__)
        return (
            f"bot 'learned' has no checkpoint for the rules {engine.rules.name!r} (it plays {sorted(self.paths)} "
            f"and the rules whose observations mean the same); nearest: {nearest}"
        )

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.seed = seed
        for agent in self._agents.values():
            agent.reset(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        if context is not None and context.engine is not self._bound_to:
            self.check_supports(context.engine)
        if self.bound is None:
            self.bound = self._by_sizes(np.asarray(observations).shape[-1], np.asarray(masks).shape[-1])
        return self.bound.act(observations, masks, context)

    def _by_sizes(self, obs_dim: int, n_actions: int) -> Agent:
        """Without a table (``act`` with no context before any ``check_supports``): the one network of these sizes."""
        fits = [
            preset
            for preset in self.paths
            if (self.agent_for(preset).policy.obs_dim, self.agent_for(preset).policy.n_actions) == (obs_dim, n_actions)
        ]
        if len(fits) != 1:
            raise ValueError(
                f"bot 'learned' cannot tell which checkpoint plays observations of size {obs_dim} with {n_actions} "
                f"actions ({len(fits)} fit: {fits}); call check_supports(engine) first or pass a context"
            )
        return self.agent_for(fits[0])


def _files() -> list[str]:
    return [path.name for path in LEARNED_CHECKPOINTS.values()]
