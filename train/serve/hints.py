"""Hints: what a bot would play at the human's decision, with its action values where it has them.

The search bot (``agents.search``) rates every legal card by the mean rollout outcome
over sampled layouts of the hidden cards (the seat's view only; ``SearchAgent.card_values``);
those means are the values. Its other decisions, and every other bot's, come without values (null).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.search import SearchAgent
from spades_env.engine import PLAY
from train.serve.sessions import Game
from train.serve.views import action_entry


def hint(game: Game, spec: str) -> dict[str, Any]:
    """``{"action", "label", "values"}`` of bot ``spec`` at the human's decision; ValueError if there is none."""
    if game.awaiting != "you":
        raise ValueError(f"no decision of yours to hint at (awaiting: {game.awaiting})")
    agent = game.hint_bot(spec)
    mask, ctx = game.context(agent)
    phase = game.table.phase
    n_cards = game.engine.layout.n_card_ids
    values = None
    action = game.bot_action(agent) if not isinstance(agent, SearchAgent) else None
    if isinstance(agent, SearchAgent):
        default = int(agent.bidder.act(None, mask, ctx)[0])
        legal = mask[0, :n_cards]
        if phase == PLAY and legal.sum() > 1:
            mean = agent.card_values(ctx, legal[None])[0]
            values = {str(int(a)): float(mean[a]) for a in np.flatnonzero(legal)}
            mean[default] += 1e-6  # ties keep the heuristic's card, as the search bot does
            action = int(np.argmax(mean))
        else:
            action = default
    return {"action": action, "label": action_entry(game.engine, phase, action)["label"], "values": values}
