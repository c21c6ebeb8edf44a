"""``BOT_PARTS``: the registry from a game's name (``Rules.game``) to its bot parts, the code of the bots
that is one game's own.

The bots play every game by asking its facts (``rules.has_bidding``, ``rules.has_passing``,
``rules.points_are_penalties``, the engine's spec); what cannot be shared is a game's own strategy and
scoring, compiled: the rule-based heuristic (its decisions, and its turns in one game for the
single-seat env), the search's rollouts (which play that heuristic to the hand's end and score the
hand as the game does), and the search's extras a game may have (Spades' exact endgame solver, the
Hearts lookahead pass). Each game's parts live in its folder, ``agents/spades/`` and
``agents/hearts/``, the only modules of ``agents`` that import a game's modules
(``spades_env.games.<game>``) directly.

Built like ``spades_env.games.GAMES``: the registry names its parts as strings and imports the one asked
for (``bot_part``), so that importing it costs nothing and creates no import circle, and a new game's
bots are one folder and one line, ``BOT_PARTS[name] = BotParts(...)``. A game without an entry, or
without a part a bot asks for, is refused in one line naming the bot, the game and the missing part.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from spades_env.games import load


class BotParts(NamedTuple):
    """Where a game's bot parts live: ``"module:attribute"`` ("": the game has none)."""

    heuristic: str
    """The game's rules of the heuristic bot: a class built with the ``HeuristicAgent`` whose options it
    reads, with ``decide(context, masks)`` (the batch's decisions) and ``turns(common)`` (its turns in one
    game, compiled: ``agents.heuristic_turns``)."""
    rollouts: str
    """The search's compiled rollouts: ``add_rollouts(engine, policy, candidates, totals, weight, tail)``
    (``agents.search_rollouts``)."""
    endgame: str = ""
    """An exact endgame solver: ``solve_positions(engine, state, games, hands)``, each legal card's value."""
    passing: str = ""
    """The lookahead pass: ``pass_values(ctx, masks, samples, top, rng, heuristic, threads)``."""
    bid_candidates: str = ""
    """The lookahead bidder's candidates: ``candidate_mask(engine, phase, masks, nil)``, (D, A) bool."""


#: Every game's bot parts, by ``Rules.game``.
BOT_PARTS: dict[str, BotParts] = {
    "spades": BotParts(
        heuristic="agents.spades.heuristic:SpadesHeuristic",
        rollouts="agents.spades.rollouts:add_rollouts",
        endgame="agents.spades.endgame:solve_positions",
        bid_candidates="agents.spades.bid_candidates:candidate_mask",
    ),
    "hearts": BotParts(
        heuristic="agents.hearts.heuristic:HeartsHeuristic",
        rollouts="agents.hearts.rollouts:add_rollouts",
        passing="agents.hearts.passing:pass_values",
    ),
}


def has_bot_part(game: str, name: str) -> bool:
    """Whether ``game`` has the bot part ``name`` (a ``BotParts`` field)."""
    if name not in BotParts._fields:
        raise ValueError(f"a bot part must be one of {list(BotParts._fields)}, got {name!r}")
    return game in BOT_PARTS and bool(getattr(BOT_PARTS[game], name))


def bot_part(game: str, name: str, user: str) -> Any:
    """The bot part ``name`` (a ``BotParts`` field) of ``game``, imported; ``user``: what needs it, for the
    ValueError of a game without it."""
    if not has_bot_part(game, name):
        registered = game in BOT_PARTS
        missing = f"no {name} part" if registered else f"no bot parts (registered: {sorted(BOT_PARTS)})"
        raise ValueError(f"{user} needs the {name} part of game {game!r}, which has {missing} (agents.game_parts)")
    return load(getattr(BOT_PARTS[game], name))
