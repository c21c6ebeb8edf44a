"""Hints: what a bot would play at the human's decision, with its action values where it has them.

The search bot (``agents.search``) rates every legal card by the mean rollout outcome
over sampled layouts of the hidden cards (the seat's view only); those means are the
values. Its other decisions, and every other bot's, come without values (null).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents import DecisionContext
from agents.search import SearchAgent, _granularity, sample_hidden_hands
from spades_env.engine import PLAY
from train.web.sessions import Game, _seed, build_bot
from train.web.views import action_entry


def search_values(agent: SearchAgent, ctx: DecisionContext, legal: np.ndarray) -> np.ndarray:
    """(A,) mean rollout value of each legal card of one decision (-inf elsewhere), as ``SearchAgent`` rates it.

    The steps of ``SearchAgent._search_group`` for one decision, keeping the means (that method returns
    only the best card).
    """
    engine, state, games, seats = ctx.engine, ctx.state, ctx.games, ctx.seats
    s = agent.samples
    hands = sample_hidden_hands(engine, state, games, seats, s, agent.rng)[0]  # (S, N)
    candidates = np.flatnonzero(legal)
    card = np.repeat(candidates, s)
    sample = np.tile(np.arange(s), len(candidates))
    m = len(card)
    pad = -m % _granularity(m)
    card = np.concatenate([card, np.full(pad, card[-1])])
    sample = np.concatenate([sample, np.full(pad, sample[-1])])
    plays_left = engine.hand_size * engine.n_players - (
        state.n_tricks[games] * engine.n_players + state.n_in_trick[games]
    )
    roll = state.take(np.repeat(games, len(card)))
    played = roll.deal & ~roll.hands
    roll.hands = hands[sample]
    roll.deal = roll.hands | played
    values = agent._rollout(engine, roll, card, np.repeat(seats, len(card)), np.repeat(plays_left, len(card)))[:m]
    total = np.zeros(len(legal))
    np.add.at(total, card[:m], values)
    return np.where(legal, total / s, -np.inf)


def hint(game: Game, spec: str) -> dict[str, Any]:
    """``{"action", "label", "values"}`` of bot ``spec`` at the human's decision; ValueError if there is none."""
    if game.awaiting != "you":
        raise ValueError(f"no decision of yours to hint at (awaiting: {game.awaiting})")
    agent = game.hint_bots.get(spec)
    if agent is None:
        agent = build_bot(spec, game.engine, _seed(game.seed, 1000 + game.seat), "hint bot")
        game.hint_bots[spec] = agent
    mask, ctx = game.context()
    phase = game.table.phase
    n_cards = game.engine.layout.n_card_ids
    values = None
    action = game.bot_action(agent) if not isinstance(agent, SearchAgent) else None
    if isinstance(agent, SearchAgent):
        default = int(agent.bidder.act(None, mask, ctx)[0])
        legal = mask[0, :n_cards]
        if phase == PLAY and legal.sum() > 1:
            mean = search_values(agent, ctx, legal)
            values = {str(int(a)): float(mean[a]) for a in np.flatnonzero(legal)}
            mean[default] += 1e-6  # ties keep the heuristic's card, as the search bot does
            action = int(np.argmax(mean))
        else:
            action = default
    return {"action": action, "label": action_entry(game.engine, phase, action)["label"], "values": values}
