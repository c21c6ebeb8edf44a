"""Bots behind one batched interface: ``act(observations, masks, context) -> actions``.

``make_agent("search:samples=8", seed=1)`` builds a bot from a spec string (``agents.specs``): a built-in name
of ``AGENTS`` (``name``, ``name:key=value,...``, or ``name:preset,key=value,...`` for a factory with ``presets``,
e.g. ``search:strong,samples=64``), a name an installed package registers under the entry-point group
``spades_env.bots``, or an import string ``module.path:Object[:key=value,...]`` naming the user's own bot. The
options are the factory's keyword parameters, typed from their defaults (``agents.options``); the seed is the
caller's, never a spec option.
"""

from __future__ import annotations

from agents.base import Agent, DecisionContext
from agents.builtin_bots import AGENTS, LEARNED_CHECKPOINT
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.search import SearchAgent
from agents.specs import ENTRY_POINT_GROUP, BotSpec, make_agent, parse_spec, resolve_spec

__all__ = [
    "AGENTS",
    "ENTRY_POINT_GROUP",
    "LEARNED_CHECKPOINT",
    "Agent",
    "BotSpec",
    "DecisionContext",
    "HeuristicAgent",
    "RandomAgent",
    "SearchAgent",
    "make_agent",
    "parse_spec",
    "resolve_spec",
]
