"""The PPO policy network (``SpadesPolicy``): a shared torso, a card-play head and a bidding head, with the optional
bidding torso, card value head and torso, and card-counting inputs (``agents.card_features``).

``agents.neural`` plays it from a checkpoint (``NeuralAgent``) and re-exports these names.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.card_features import PER_CARD, CardFeatures, card_feature_spec
from spades_env.engine import SpadesEngine

#: False while ``weights_loaded_next()`` is active: layers are built without initialising their weights.
_INITIALISE: ContextVar[bool] = ContextVar("spades_policy_initialise", default=True)


@contextmanager
def weights_loaded_next() -> Iterator[None]:
    """Build networks whose every weight is loaded right after (a checkpoint): their layers skip the orthogonal
    initialisation, whose QR decompositions cost ~3 s of CPU per 512 x 3 network and would be overwritten at once
    (most of a first ``spades demo``). Nothing is drawn from torch's generator meanwhile."""
    token = _INITIALISE.set(False)
    try:
        yield
    finally:
        _INITIALISE.reset(token)


def _layer(n_in: int, n_out: int, std: float = float(np.sqrt(2))) -> nn.Linear:
    """A linear layer with orthogonal weights and zero bias (CleanRL's ``layer_init``); uninitialised inside
    ``weights_loaded_next()``."""
    with warnings.catch_warnings():  # a game without bids (Hearts) has a bid head of 0 outputs: nothing to initialise
        warnings.filterwarnings("ignore", "Initializing zero-element tensors", UserWarning)
        if not _INITIALISE.get():
            return torch.nn.utils.skip_init(nn.Linear, n_in, n_out)
        layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, 0.0)
    return layer


#: The public name of ``_layer`` (the training side's other networks use it: ``train/ppo/critic.py``).
layer_init = _layer


class SpadesPolicy(nn.Module):
    """Actor-critic over seat-relative observations: a shared torso, a card-play head and a bidding head.

    The flat action space is cards first, then bids and the blind-nil choices
    (``spades_env.engine.actions``). Logits are ``cat(card_head, bid_head)``; a legal
    mask never mixes the two ranges, so each decision is taken by exactly one head.
    One network plays every seat (self-play), since observations are seat-relative.
    With ``bid_depth`` > 0 the bidding head reads a torso of its own (``bid_depth`` layers of
    ``bid_hidden``) from the observation instead of the shared one: bids and card play then
    share no weights (``train/values/bid_values_train.py``, ``bid_torso``).
    ``state_value=False`` builds no state value head (``spades export --play-only``: playing never reads it).
    With ``card_value_hidden`` > 0 a card value head (a hidden layer of that width on the shared torso) gives
    each card's value (``card_values``; learned from rollouts on the real deal, ``train/values/card_values.py``): the
    network then plays its card head's card unless a legal card's value beats that card's by a margin
    (``margin_cards``). With ``card_value_torso`` that head reads a torso of its own (the shared torso's shape, a copy
    of it to start with: ``train/values/bid_values_train.py``) instead of the shared one, so that learning the values
    moves no weight the card head or the bids read.
    With ``card_features`` (``agents.card_features.card_feature_spec``) every torso reads the observation and the
    card-counting inputs ``CardFeatures`` derives from it (which cards are the highest still out, which would take
    the trick, who is winning it): the same observation, a wider first layer; with ``card_feature_logits`` each
    card's logit also adds its own features (``agents.card_features.PER_CARD``) weighted by the situation, one weight
    per feature shared by every card, so that "take the trick" or "play my lowest" is learned once for all cards.
    """

    def __init__(
        self,
        obs_dim: int,
        n_actions: int,
        n_card_actions: int,
        hidden: int = 256,
        depth: int = 2,
        bid_hidden: int = 0,
        bid_depth: int = 0,
        card_value_hidden: int = 0,
        card_value_torso: bool = False,
        state_value: bool = True,
        card_features: dict[str, Any] | None = None,
        card_feature_logits: bool = False,
    ) -> None:
        super().__init__()
        self.obs_dim, self.n_actions, self.n_card_actions = obs_dim, n_actions, n_card_actions
        self.card_features = CardFeatures(card_features) if card_features else None
        self.input_dim = obs_dim + (self.card_features.size if self.card_features is not None else 0)
        self.hidden, self.depth = hidden, depth
        self.bid_hidden, self.bid_depth = (bid_hidden, bid_depth) if bid_depth > 0 else (0, 0)
        self.torso = self._new_torso()
        self.card_head = _layer(hidden, n_card_actions, std=0.01)
        self.card_feature_gate: nn.Module | None = None
        if card_feature_logits:
            if self.card_features is None:
                raise ValueError("card_feature_logits needs card_features")
            self.card_feature_gate = _layer(hidden, PER_CARD, std=0.01)
        bid_width = hidden
        if self.bid_depth:
            bid_layers: list[nn.Module] = []
            width = self.input_dim
            for _ in range(self.bid_depth):
                bid_layers += [_layer(width, self.bid_hidden), nn.ReLU()]
                width = self.bid_hidden
            self.bid_torso = nn.Sequential(*bid_layers)
            bid_width = self.bid_hidden
        self.bid_head = nn.Sequential(
            _layer(bid_width, bid_width // 2), nn.ReLU(), _layer(bid_width // 2, n_actions - n_card_actions, std=0.01)
        )
        self.state_value = bool(state_value)
        self.value_head: nn.Module | None = None  # PPO's state value; a play-only export drops it (playing needs none)
        if self.state_value:
            self.value_head = nn.Sequential(_layer(hidden, hidden // 2), nn.ReLU(), _layer(hidden // 2, 1, std=1.0))
        self.card_value_hidden = max(0, card_value_hidden)
        self.card_value_head: nn.Module | None = None
        self.card_value_torso: nn.Module | None = None
        if self.card_value_hidden and card_value_torso:
            self.card_value_torso = self._new_torso()
        if self.card_value_hidden:
            self.card_value_head = nn.Sequential(
                _layer(hidden, self.card_value_hidden),
                nn.ReLU(),
                _layer(self.card_value_hidden, n_card_actions, std=0.0),
            )  # its last layer starts at 0: every card of equal value, the card head's played until it learns

    def _new_torso(self) -> nn.Sequential:
        """``depth`` layers of ``hidden`` on the inputs (the shared torso's shape)."""
        layers: list[nn.Module] = []
        width = self.input_dim
        for _ in range(self.depth):
            layers += [_layer(width, self.hidden), nn.ReLU()]
            width = self.hidden
        return nn.Sequential(*layers)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """obs (B, D) float32 -> (logits (B, A), unmasked; value (B,)). ValueError for a play-only network."""
        logits, value, _ = self.training_outputs(obs, card_values=False)
        return logits, value

    def training_outputs(
        self, obs: torch.Tensor, card_values: bool = True
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """``forward``'s logits and value and, from the same torso pass, the card value head's (B, C) values (None
        without one, or with ``card_values=False``): what a loss on all three reads."""
        if self.value_head is None:
            raise ValueError(
                "this network has no state value head (a play-only export: state_value False); "
                "train from the run's own checkpoint instead"
            )
        x, per_card = self._inputs(obs)
        h = self.torso(x)
        logits = torch.cat([self._card_logits(h, per_card), self._bid_logits(x, h)], dim=-1)
        values = self._card_values(x, h) if card_values and self.card_value_head is not None else None
        return logits, self.value_head(h).squeeze(-1), values

    def inputs(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, input_dim) what the torsos read: the observation, then its card-counting inputs where the network
        has them (``card_features``)."""
        return self._inputs(obs)[0]

    def _inputs(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``inputs`` and each card's own features (B, ``PER_CARD``, C; None without ``card_feature_logits``)."""
        if self.card_features is None:
            return obs, None
        flat, per_card = self.card_features(obs, per_card=self.card_feature_gate is not None)
        return torch.cat([obs, flat], dim=-1), per_card

    def _card_logits(self, h: torch.Tensor, per_card: torch.Tensor | None) -> torch.Tensor:
        """(B, C) the card head's logits; with ``card_feature_logits`` plus each card's own features weighted by
        the situation (``card_feature_gate(h)``: one weight per feature, shared by every card)."""
        logits = self.card_head(h)
        if self.card_feature_gate is None:
            return logits
        return logits + torch.einsum("bfc,bf->bc", per_card, self.card_feature_gate(h))

    def _bid_logits(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """The bidding head's (B, n_bid_actions) logits, from its own torso (on the inputs ``x``) where it has
        one, else from ``h``."""
        return self.bid_head(self.bid_torso(x) if self.bid_depth else h)

    def action_logits(self, obs: torch.Tensor, bids: bool = True) -> torch.Tensor:
        """(B, A) logits as ``forward`` gives them, without the value head (what playing needs); with
        ``bids=False`` (no row may bid) the bid head is skipped and its logits are -inf. The card logits
        are the same bits as ``forward``'s: the same layers on the same batch."""
        return self.play_outputs(obs, bids)[0]

    def play_outputs(self, obs: torch.Tensor, bids: bool = True) -> tuple[torch.Tensor, torch.Tensor | None]:
        """``action_logits`` and, from the same torso pass, the card value head's (B, C) values (None without one)."""
        x, per_card = self._inputs(obs)
        h = self.torso(x)
        cards = self._card_logits(h, per_card)
        values = self._card_values(x, h) if self.card_value_head is not None else None
        if bids:
            return torch.cat([cards, self._bid_logits(x, h)], dim=-1), values
        rest = cards.new_full((len(cards), self.n_actions - self.n_card_actions), -torch.inf)
        return torch.cat([cards, rest], dim=-1), values

    def card_values(self, obs: torch.Tensor) -> torch.Tensor:
        """(B, C) the card value head's outputs (ValueError without one)."""
        if self.card_value_head is None:
            raise ValueError("this network has no card value head (card_value_hidden 0)")
        x = self.inputs(obs)
        return self._card_values(x, None if self.card_value_torso is not None else self.torso(x))

    def _card_values(self, x: torch.Tensor, h: torch.Tensor | None) -> torch.Tensor:
        """The card value head's (B, C) values, from its own torso (on the inputs ``x``) where it has one, else
        from the shared ``h``."""
        return self.card_value_head(self.card_value_torso(x) if self.card_value_torso is not None else h)

    def hyperparameters(self) -> dict[str, Any]:
        """The arguments that rebuild this network (stored in checkpoints; a bidding torso's only where there is one,
        so that the networks before it have the same hyperparameters as ever)."""
        out = {
            "obs_dim": self.obs_dim,
            "n_actions": self.n_actions,
            "n_card_actions": self.n_card_actions,
            "hidden": self.hidden,
            "depth": self.depth,
        }
        if self.bid_depth:
            out |= {"bid_hidden": self.bid_hidden, "bid_depth": self.bid_depth}
        if self.card_value_hidden:
            out["card_value_hidden"] = self.card_value_hidden
        if self.card_value_torso is not None:
            out["card_value_torso"] = True
        if not self.state_value:
            out["state_value"] = False
        if self.card_features is not None:
            out["card_features"] = self.card_features.spec
        if self.card_feature_gate is not None:
            out["card_feature_logits"] = True
        return out

    @classmethod
    def for_engine(
        cls,
        engine: SpadesEngine,
        obs_dim: int,
        hidden: int = 256,
        depth: int = 2,
        card_features: bool = False,
        card_feature_logits: bool = False,
        card_value_hidden: int = 0,
        card_value_torso: bool = False,
    ) -> SpadesPolicy:
        """A fresh network sized for a rule set's action layout (``card_features``: with the card-counting inputs
        of its rules, ``agents.card_features``; ``card_feature_logits``: their per-card part in the card logits;
        ``card_value_hidden``, ``card_value_torso``: a card value head, as the constructor's)."""
        lay = engine.layout
        spec = card_feature_spec(engine) if card_features else None
        return cls(
            obs_dim, lay.n_actions, lay.bid_offset, hidden=hidden, depth=depth, card_features=spec,
            card_feature_logits=card_feature_logits, card_value_hidden=card_value_hidden,
            card_value_torso=card_value_torso,
        )  # fmt: skip
