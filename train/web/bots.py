"""The bots of the web table: specs checked and bounded, and one network per checkpoint shared by every game.

A spec (``search:samples=8``) names one of ``BOTS``; its options are bounded by ``OPTION_BOUNDS`` (a search of
32,000 samples or a GPU device is refused in one line naming the bound). Bots that load a network
(``learned``) are built once per canonical spec (``TEMPLATES`` of them, dropped by last use) and copied for
each game with their networks shared: a copy carries its own seeded generator and the same torch modules,
which are only read (``torch.no_grad`` inference), and equal networks of two templates are one object too.
"""

from __future__ import annotations

import copy
import hashlib
import io
import sys
import threading
from collections import OrderedDict
from typing import Any

from agents import Agent, make_agent, parse_spec
from spades_env.engine import SpadesEngine
from spades_env.rules_check import shown

#: The bots a seat may hold (``agents.AGENTS`` names; ``neural`` needs a path, so it is not offered).
BOTS = ("random", "heuristic", "search", "learned")
DEFAULT_BOT = "heuristic"
#: Bots whose building is slow (checkpoints to load): built once per canonical spec, then copied.
SLOW_TO_BUILD = ("learned",)
#: The longest spec string read.
MAX_SPEC_CHARS = 200
#: Per bot, the largest value of each numeric option a web client may set (a search of more samples takes
#: seconds and gigabytes per decision); the other options are checked by the bot itself.
OPTION_BOUNDS: dict[str, dict[str, float]] = {
    "search": {
        "samples": 128, "bid_samples": 64, "pass_samples": 64, "oversample": 8, "max_rollouts": 65536,
        "endgame": 4, "play_votes": 3, "threads": 1, "pass_top": 13, "pass_margin": 1000.0,
        "play_margin": 1000.0,
    },
    "learned": {"bid_samples": 64},
}  # fmt: skip
#: Options whose text must be one of these values on the web (the server has no GPU to lend).
OPTION_CHOICES: dict[str, dict[str, tuple[str, ...]]] = {"learned": {"device": ("cpu",)}}
#: Templates of slow bots kept at once.
TEMPLATES = 8


def canonical_spec(spec: Any, what: str = "bot") -> tuple[str, tuple[tuple[str, Any], ...]]:
    """``(name, sorted options)`` of a spec whose name is one of ``BOTS`` and whose options are within
    ``OPTION_BOUNDS``; ValueError naming ``what``, the option and the bound otherwise."""
    if not isinstance(spec, str) or len(spec) > MAX_SPEC_CHARS:
        raise ValueError(f"{what} must be a bot spec of at most {MAX_SPEC_CHARS} characters, got {shown(spec)}")
    name = spec.partition(":")[0].strip()
    if name not in BOTS:
        raise ValueError(f"{what} {shown(spec)} is not a bot; bots: {', '.join(BOTS)}")
    name, options = parse_spec(spec)
    for option, value in options.items():
        bound = OPTION_BOUNDS.get(name, {}).get(option)
        if bound is not None and _number(value) > bound:
            raise ValueError(f"{what}: {name} option {option!r} is at most {bound} on this server, got {value}")
        choices = OPTION_CHOICES.get(name, {}).get(option)
        if choices is not None and str(value).strip() not in choices:
            raise ValueError(
                f"{what}: {name} option {option!r} must be one of {list(choices)} here, got {shown(value)}"
            )
    return name, tuple(sorted(options.items()))


def _number(value: Any) -> float | int:
    """An option's value as a number (a text option like ``learned``'s ``bid_samples`` too; else 0)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int | float):
        return value
    for cast in (int, float):
        try:
            return cast(str(value).strip() or 0)
        except ValueError:
            continue
    return 0  # not a number: the bot refuses it itself


def check_bot_spec(spec: Any, what: str = "bot") -> str:
    """``spec`` if it is a bot spec the web plays (``canonical_spec``); ValueError otherwise."""
    canonical_spec(spec, what)
    return spec


class _Templates:
    """Slow bots built once per canonical spec (least recently used dropped) and their shared networks."""

    def __init__(self, size: int = TEMPLATES) -> None:
        self.size = size
        self.agents: OrderedDict[tuple, Agent] = OrderedDict()
        self.networks: dict[str, Any] = {}
        """Digest of a torch module's state -> the one module of that state every template uses."""
        self.lock = threading.Lock()

    def copy_of(self, spec: str, key: tuple, seed: int) -> Agent:
        """A fresh copy of the template of ``key`` (built from ``spec`` if missing), re-seeded with ``seed``."""
        with self.lock:
            template = self.agents.get(key)
            if template is None:
                template = make_agent(spec, seed=0)
                self._share(template)
                self.agents[key] = template
                while len(self.agents) > self.size:
                    self.agents.popitem(last=False)
            self.agents.move_to_end(key)
            memo = {id(m): m for m in _modules(template)}
            agent = copy.deepcopy(template, memo)
        agent.reset(seed)
        return agent

    def _share(self, template: Agent) -> None:
        """Point each network of ``template`` to an equal one already held (the first of its state kept)."""
        for owner, attr, module in _module_slots(template):
            digest = _digest(module)
            held = self.networks.setdefault(digest, module)
            if held is not module:
                _set(owner, attr, held)

    def network_count(self) -> int:
        """Distinct networks held (for tests and the benchmark)."""
        return len(self.networks)


def _is_module(value: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.nn.Module)


def _module_slots(root: Any) -> list[tuple[Any, Any, Any]]:
    """``(owner, attribute or key, module)`` of every torch module reachable from ``root`` through the
    attributes of ``agents`` objects, dicts, lists and tuples (not through the modules themselves)."""
    out: list[tuple[Any, Any, Any]] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, dict):
            items = list(obj.items())
        elif isinstance(obj, list):
            items = list(enumerate(obj))
        elif type(obj).__module__.startswith("agents") and hasattr(obj, "__dict__"):
            items = list(vars(obj).items())
        else:
            continue
        for slot, value in items:
            if _is_module(value):
                out.append((obj, slot, value))
            elif isinstance(value, dict | list) or type(value).__module__.startswith("agents"):
                stack.append(value)
    return out


def _modules(root: Any) -> list[Any]:
    return [module for _, _, module in _module_slots(root)]


def _set(owner: Any, slot: Any, value: Any) -> None:
    if isinstance(owner, dict | list):
        owner[slot] = value
    else:
        setattr(owner, slot, value)


def _digest(module: Any) -> str:
    """The module's class and state (``torch.save`` of its state dict, quantized weights included)."""
    import torch

    buffer = io.BytesIO()
    torch.save(module.state_dict(), buffer)
    return type(module).__qualname__ + ":" + hashlib.sha256(buffer.getvalue()).hexdigest()


TEMPLATE_BOTS = _Templates()


def make_bot(spec: str, seed: int, what: str = "bot") -> Agent:
    """A bot of a checked spec, seeded; slow bots are copies of a shared template."""
    name, options = canonical_spec(spec, what)
    if name not in SLOW_TO_BUILD:
        return make_agent(spec, seed=seed)
    return TEMPLATE_BOTS.copy_of(spec, (name, options), seed)


def build_bot(spec: str, engine: SpadesEngine, seed: int, what: str = "bot") -> Agent:
    """A bot that can play the engine's rules, or ValueError saying why not."""
    agent = make_bot(spec, seed, what)
    try:
        agent.check_supports(engine)
    except ValueError as err:
        raise ValueError(f"{what} {shown(spec)}: {err}") from None
    return agent


def is_heavy(specs: list[str | None]) -> bool:
    """Whether a game with these bots computes for long per decision (a search or a network)."""
    return any(spec is not None and spec.partition(":")[0].strip() in ("search", "learned") for spec in specs)
