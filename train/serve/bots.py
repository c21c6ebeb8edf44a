"""The bots of the web table: the server's menu of bots, specs checked and bounded, one network per checkpoint shared.

A server offers the bots of its ``BotMenu`` (``spades serve --bots``; by default ``BOTS``). A client picks one of
them by its text: an offered built-in name (``search``) may carry options (``search:samples=8``), bounded by
``OPTION_BOUNDS`` (a search of 32,000 samples or a GPU device is refused in one line naming the bound) and never
one of ``SERVER_OPTIONS`` (a file on the server: ``neural:path=``, ``guided:path=``); any other
entry (a built-in with the server's options, an installed bot, an import string ``module.path:Object``) is picked
by its exact text and built with the server's options: a client never names a module the server would import.
Bots that load a network (``learned``) are built once per canonical spec (``TEMPLATES`` of them, dropped by last
use) and copied for each game with their networks shared: a copy carries its own seeded generator and the same
torch modules, which are only read (``torch.no_grad`` inference), and equal networks of two templates are one
object too.
"""

from __future__ import annotations

import copy
import hashlib
import io
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from agents import AGENTS, Agent, make_agent, parse_spec, resolve_spec
from spades_env.engine import SpadesEngine
from spades_env.rules_check import shown

#: The bots a server offers unless ``spades serve --bots`` says otherwise (``neural`` needs a path, so it is not).
BOTS = ("random", "heuristic", "search", "learned")
DEFAULT_BOT = "heuristic"
#: Bots that decide fast; a game with any other bot (a search, a network, a user's bot) runs in the heavy pool.
LIGHT_BOTS = ("random", "heuristic")
#: Bots whose building is slow (checkpoints to load): built once per canonical spec, then copied.
SLOW_TO_BUILD = ("learned", "guided")
#: The longest spec string a client may send (besides the exact text of an offered bot).
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
    "guided": {
        "samples": 128, "bid_samples": 64, "top": 13, "depth": 13, "oversample": 8, "max_rollouts": 65536,
        "threads": 1, "play_margin": 1000.0,
    },
}  # fmt: skip
#: Options whose text must be one of these values on the web (the server has no GPU to lend).
OPTION_CHOICES: dict[str, dict[str, tuple[str, ...]]] = {"learned": {"device": ("cpu",)}}
#: Options a client may never set (they name a file on the server): the server offers them in its own ``--bots``.
SERVER_OPTIONS: dict[str, tuple[str, ...]] = {"neural": ("path",), "guided": ("path",)}
#: Templates of slow bots kept at once.
TEMPLATES = 8


class BotMenu:
    """The bots a server's clients may pick (see the module docstring); every spec resolves when the menu is made."""

    def __init__(self, specs: Iterable[str] = BOTS, default: str = DEFAULT_BOT) -> None:
        offered: list[str] = []
        resolved: dict[str, tuple[str, tuple[tuple[str, Any], ...]]] = {}
        for spec in specs:
            text = spec.strip() if isinstance(spec, str) else ""
            if not text:
                raise ValueError(f"--bots: each bot must be a spec such as 'heuristic', got {shown(spec)}")
            if text in offered:
                raise ValueError(f"--bots: {text!r} is given twice")
            try:
                bot = resolve_spec(text)
            except ValueError as err:
                raise ValueError(f"--bots: {err}") from None
            offered.append(text)
            resolved[text] = (bot.name, tuple(sorted(bot.options.items())))
        if not offered:
            raise ValueError("--bots: give at least one bot for the table")
        self.offered = tuple(offered)
        """Every bot a client may pick, in the server's order (``GET /api/options``)."""
        self.open = frozenset(text for text in offered if text in AGENTS)
        """The offered built-in names: a client may give them options, within the bounds."""
        self.fixed = {text: key for text, key in resolved.items() if text not in self.open}
        """The other offered specs, picked by their text: their ``(name, sorted options)``."""
        self.default = default if default in offered else offered[0]

    def canonical(self, spec: Any, what: str = "bot") -> tuple[str, tuple[tuple[str, Any], ...]]:
        """``(name, sorted options)`` of a spec the menu offers, a built-in's options within ``OPTION_BOUNDS``;
        ValueError naming ``what``, the option and the bound otherwise."""
        if isinstance(spec, str) and spec.strip() in self.fixed:
            return self.fixed[spec.strip()]  # the server's own spec, with the server's options
        if not isinstance(spec, str) or len(spec) > MAX_SPEC_CHARS:
            raise ValueError(f"{what} must be a bot spec of at most {MAX_SPEC_CHARS} characters, got {shown(spec)}")
        name = spec.partition(":")[0].strip()
        if name not in self.open:
            raise ValueError(f"{what} {shown(spec)} is not a bot of this server; bots: {', '.join(self.offered)}")
        name, options = parse_spec(spec)
        for option, value in options.items():
            if option in SERVER_OPTIONS.get(name, ()):
                raise ValueError(
                    f"{what}: {name} option {option!r} names a file on the server, which a client may not choose; "
                    f"the server may offer such a bot in its --bots"
                )
            bound = OPTION_BOUNDS.get(name, {}).get(option)
            if bound is not None and _number(value) > bound:
                raise ValueError(f"{what}: {name} option {option!r} is at most {bound} on this server, got {value}")
            choices = OPTION_CHOICES.get(name, {}).get(option)
            if choices is not None and str(value).strip() not in choices:
                raise ValueError(
                    f"{what}: {name} option {option!r} must be one of {list(choices)} here, got {shown(value)}"
                )
        return name, tuple(sorted(options.items()))

    def check(self, spec: Any, what: str = "bot") -> str:
        """``spec`` if the menu offers it (``canonical``); ValueError otherwise."""
        self.canonical(spec, what)
        return spec

    def make(self, spec: str, seed: int, what: str = "bot") -> Agent:
        """A bot of a checked spec, seeded; slow bots are copies of a shared template."""
        name, options = self.canonical(spec, what)
        if name not in SLOW_TO_BUILD:
            return make_agent(spec.strip(), seed=seed)
        return TEMPLATE_BOTS.copy_of(spec, (name, options), seed)

    def build(self, spec: str, engine: SpadesEngine, seed: int, what: str = "bot") -> Agent:
        """A bot that can play the engine's rules, or ValueError saying why not."""
        agent = self.make(spec, seed, what)
        try:
            agent.check_supports(engine)
        except ValueError as err:
            raise ValueError(f"{what} {shown(spec)}: {err}") from None
        return agent


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


def is_heavy(specs: list[str | None]) -> bool:
    """Whether a game with these bots computes for long per decision: any bot but ``LIGHT_BOTS`` (a search, a
    network, a user's bot, whose cost the server cannot know)."""
    return any(spec is not None and spec.partition(":")[0].strip() not in LIGHT_BOTS for spec in specs)
