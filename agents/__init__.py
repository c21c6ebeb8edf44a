"""Bots behind one batched interface: ``act(observations, masks, context) -> actions``.

``AGENTS`` maps a bot name to its factory; ``make_agent("search:samples=8", seed=1)``
builds one from a spec string (``name`` or ``name:key=value,...``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agents.base import Agent, DecisionContext
from agents.heuristic import HeuristicAgent
from agents.random_agent import RandomAgent
from agents.search import SearchAgent


def _neural(**options) -> Agent:
    """``neural:path=CHECKPOINT``: imported lazily so that torch loads only when asked for."""
    from agents.neural import make_neural_agent

    return make_neural_agent(**options)


#: The committed learned partnership bot (see checkpoints/README.md).
LEARNED_CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "partnership_ppo.pt"


def _learned(**options) -> Agent:
    """``learned``: the committed PPO checkpoint, ``neural:path=checkpoints/partnership_ppo.pt``."""
    if not LEARNED_CHECKPOINT.exists():
        raise ValueError(f"the learned bot needs {LEARNED_CHECKPOINT}, which is missing")
    return _neural(path=str(LEARNED_CHECKPOINT), **options)


#: Bot name -> factory taking ``seed=`` and the bot's keyword options.
AGENTS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
    "search": SearchAgent,
    "neural": _neural,
    "learned": _learned,
}


def parse_spec(spec: str) -> tuple[str, dict[str, int | float | str]]:
    """Split ``"name:key=value,key=value"`` into the name and typed options."""
    name, _, rest = spec.partition(":")
    name = name.strip()
    if name not in AGENTS:
        raise ValueError(f"unknown bot {name!r}; known bots: {sorted(AGENTS)}")
    options: dict[str, int | float | str] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"bot option {item!r} in {spec!r} must look like key=value")
        for cast in (int, float):
            try:
                options[key.strip()] = cast(value)
                break
            except ValueError:
                continue
        else:
            options[key.strip()] = value.strip()
    return name, options


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build a bot from a spec string such as ``"heuristic"`` or ``"search:samples=8"``."""
    name, options = parse_spec(spec)
    return AGENTS[name](seed=seed, **options)


__all__ = [
    "AGENTS",
    "Agent",
    "DecisionContext",
    "HeuristicAgent",
    "RandomAgent",
    "SearchAgent",
    "make_agent",
    "parse_spec",
]
