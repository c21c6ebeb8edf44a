"""Bot specs: the one way a bot is named, whether built in, installed by a package or the user's own.

A spec is one of:

* a built-in name (``agents.builtin_bots.AGENTS``), with options: ``heuristic``, ``search:samples=8``,
  ``search:strong,samples=64`` (a preset first, for a factory with ``presets``);
* a name an installed package registers under the entry-point group ``spades_env.bots`` (``[project.entry-points.
  "spades_env.bots"] mybot = "mypkg.bots:MyBot"`` in its pyproject.toml), with options the same way: ``mybot:depth=2``;
* an import string ``module.path:Object``, its options after a second colon: ``mypkg.bots:MyBot:depth=2,style=calm``.
  The module is imported as Python finds it, or else from the current folder (as ``python -m`` would).

A name is looked up in that order: a built-in name wins over an entry point of the same name, and an import
string is anything else of the form ``module:Object``. The object behind an entry point or an import string is
a bot factory: a subclass of ``agents.Agent``, or a function taking ``seed=`` and keyword options that returns
one. Its options are its keyword parameters, typed from their defaults (``agents.options``); the seed is the
caller's. Every wrong spec is a ValueError in one line: an unknown name (listing the built-in and installed
bots), a module that is not found, a missing attribute, an object that is not a bot.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agents.base import Agent
from agents.builtin_bots import AGENTS
from agents.options import parse_options

#: The entry-point group under which installed packages register bots (name -> ``module:Object``).
ENTRY_POINT_GROUP = "spades_env.bots"
#: What the resolver accepts as a bot, for its error messages.
WHAT_A_BOT_IS = (
    "a bot is a subclass of agents.Agent (act(observations, masks, context) -> actions), "
    "or a function taking seed= and keyword options that returns one"
)


class ModuleMissing(ValueError):
    """The module of an import string is not found (neither installed nor in the current folder)."""


@dataclass(frozen=True)
class BotSpec:
    """A resolved spec: what it names, the factory that builds it and the typed options it is built with."""

    name: str
    """The built-in or entry-point name, or ``module.path:Object`` for an import string."""
    factory: Callable[..., Any]
    options: dict[str, Any] = field(default_factory=dict)
    kind: str = "built-in"
    """``built-in``, ``entry point`` or ``import string``."""

    def build(self, seed: int | None = None) -> Agent:
        """The bot, seeded with ``seed``; ValueError if the factory returns something that is not a bot."""
        bot = self.factory(seed=seed, **self.options)
        if not isinstance(bot, Agent):
            raise ValueError(f"bot {self.name!r} built a {type(bot).__name__}, not a bot; {WHAT_A_BOT_IS}")
        return bot


def resolve_spec(spec: str) -> BotSpec:
    """The bot a spec names, with its options typed and checked (see the module docstring); ValueError otherwise."""
    if not isinstance(spec, str):
        raise ValueError(f"a bot spec must be a string such as 'heuristic' or 'mypkg.bots:MyBot', got {spec!r}")
    head, colon, rest = (part.strip() for part in spec.strip().partition(":"))
    if head in AGENTS:
        return BotSpec(head, AGENTS[head], parse_options(head, AGENTS[head], rest, spec))
    installed = entry_point_bots()
    if head in installed:
        factory = _checked_factory(_load_entry_point(installed[head]), f"entry point {head!r}")
        return BotSpec(head, factory, parse_options(head, factory, rest, spec), "entry point")
    if colon and _is_dotted(head):
        attribute, _, options = (part.strip() for part in rest.partition(":"))
        if not _is_dotted(attribute):
            raise ValueError(
                f"bot spec {spec!r}: an import string is module.path:Object[:key=value,...], and {attribute!r} "
                "is not an object's name"
            )
        name = f"{head}:{attribute}"
        try:
            obj = import_object(head, attribute)
        except ModuleMissing:
            if "." in head:
                raise
            # ``serch:fast``: more likely a misspelt bot than a module
            raise ValueError(
                f"unknown bot {head!r} (and no module {head!r} to import {attribute!r} from); "
                f"{known_bots_text(installed)}"
            ) from None
        factory = _checked_factory(obj, name)
        return BotSpec(name, factory, parse_options(name, factory, options, spec), "import string")
    raise ValueError(f"unknown bot {head!r}; {known_bots_text(installed)}")


def parse_spec(spec: str) -> tuple[str, dict[str, bool | int | float | str]]:
    """The name a spec resolves to (``BotSpec.name``) and its typed options (``resolve_spec``)."""
    resolved = resolve_spec(spec)
    return resolved.name, resolved.options


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build a bot from a spec string such as ``"heuristic"``, ``"search:samples=8"`` or ``"mypkg.bots:MyBot"``,
    seeded with ``seed``."""
    return resolve_spec(spec).build(seed)


def entry_point_bots() -> dict[str, importlib.metadata.EntryPoint]:
    """The bots installed packages register under ``ENTRY_POINT_GROUP``, by name (read anew on each call)."""
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def known_bots_text(installed: dict[str, Any] | None = None) -> str:
    """What a spec may name, for error messages: the built-in bots, the installed ones, the import string form."""
    installed = entry_point_bots() if installed is None else installed
    names = ", ".join(sorted(installed)) or "none"
    return (
        f"built-in bots: {', '.join(AGENTS)}; installed bots (entry points {ENTRY_POINT_GROUP!r}): {names}; "
        "or an import string module.path:Object"
    )


def import_object(module_name: str, attribute: str) -> Any:
    """``module_name``'s (dotted) ``attribute``, the module imported as Python finds it or else from the current
    folder; ValueError naming the module or the attribute that is missing."""
    try:
        module = _import_module(module_name)
    except ModuleNotFoundError as err:
        missing = err.name or module_name
        if module_name == missing or module_name.startswith(missing + "."):
            raise ModuleMissing(
                f"bot {module_name}:{attribute}: no module named {missing!r} (not installed, and not in the "
                f"current folder {os.getcwd()!r})"
            ) from None
        raise ValueError(f"bot {module_name}:{attribute}: importing {module_name!r} failed: {err}") from err
    except ImportError as err:
        raise ValueError(f"bot {module_name}:{attribute}: importing {module_name!r} failed: {err}") from err
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"bot {module_name}:{attribute}: module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    return target


def _import_module(module_name: str) -> Any:
    """The module, imported as Python finds it, or else with the current folder at the end of ``sys.path``."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        top = module_name.partition(".")[0]
        here = os.getcwd()
        if err.name != top or here in sys.path or "" in sys.path:
            raise
        sys.path.append(here)
        importlib.invalidate_caches()
        return importlib.import_module(module_name)


def _load_entry_point(ep: importlib.metadata.EntryPoint) -> Any:
    """The object an entry point names; ValueError naming the entry point where it cannot be loaded."""
    try:
        return ep.load()
    except (ImportError, AttributeError) as err:
        raise ValueError(
            f"bot {ep.name!r} (entry point {ep.value!r} of {ENTRY_POINT_GROUP!r}) cannot load: {err}"
        ) from err


def _checked_factory(obj: Any, where: str) -> Callable[..., Any]:
    """``obj`` if it can build a bot: an ``Agent`` subclass, or a callable that is not a class; ValueError otherwise."""
    if inspect.isclass(obj):
        if issubclass(obj, Agent):
            return obj
        raise ValueError(f"bot {where} is the class {obj.__name__}, which is not an agents.Agent; {WHAT_A_BOT_IS}")
    if isinstance(obj, Agent):
        raise ValueError(f"bot {where} is a bot object, not its factory: name its class; {WHAT_A_BOT_IS}")
    if not callable(obj):
        raise ValueError(f"bot {where} is a {type(obj).__name__}, not a bot; {WHAT_A_BOT_IS}")
    return obj


def _is_dotted(text: str) -> bool:
    """Whether ``text`` is a dotted Python name (``mypkg.bots``, ``MyBot``)."""
    return bool(text) and all(part.isidentifier() for part in text.split("."))
