"""Bots behind one batched interface: ``act(observations, masks, context) -> actions``."""

from agents.base import Agent, DecisionContext
from agents.random_agent import RandomAgent

__all__ = ["Agent", "DecisionContext", "RandomAgent"]
