"""[Issue 47] A game's spec functions take the rules, the table's facts and the arrays, not the engine: a game
folder depends on ``core/`` and its own rules, never on the engine object (which sits above the games).
"""

from __future__ import annotations

import ast
import inspect
import pathlib

import numpy as np
import pytest

from spades_env import SpadesEngine, games
from spades_env.core.table_facts import TableFacts, table_facts
from spades_env.games.game_spec import GameSpec
from spades_env.rules import Rules
from tests.paths import ROOT
from tests.toy_game import TRICKS

#: Every registered game's spec, the test-only toy game's included.
SPECS = [games.load(parts.spec) for parts in (*games.GAMES.values(), TRICKS)]


def _hooks(spec: GameSpec) -> list[tuple[str, inspect.Signature]]:
    """The spec's methods (its class's and every base's), each with its signature."""
    names = {name for cls in type(spec).__mro__ if cls is not object for name in vars(cls)}
    return [
        (name, inspect.signature(getattr(spec, name)))
        for name in sorted(names)
        if not name.startswith("__") and inspect.ismethod(getattr(spec, name))
    ]


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.name or "base")
def test_no_spec_function_takes_the_engine(spec):
    hooks = _hooks(spec)
    assert len(hooks) > 20  # the base class's hooks are among them
    taking = [name for name, sig in hooks if "engine" in sig.parameters]
    assert not taking, f"{spec.name} spec functions take the engine: {taking}"
    annotated = [name for name, sig in hooks if any("Engine" in str(p.annotation) for p in sig.parameters.values())]
    assert not annotated, f"{spec.name} spec functions take an engine-typed argument: {annotated}"


@pytest.mark.parametrize("parts", [*games.GAMES.values(), TRICKS], ids=lambda parts: parts.spec.split(".")[-2])
def test_no_render_function_takes_the_engine(parts):
    render = games.load(parts.render)
    for function in (render.render_state, render.render_finished_hand):
        assert "engine" not in inspect.signature(function).parameters, f"{parts.render}.{function.__name__}"


def _runtime_engine_imports(path: pathlib.Path) -> list[int]:
    """The lines of the imports of ``spades_env.engine`` (or of ``spades_env.envs``, above it) that run: those
    outside an ``if TYPE_CHECKING:`` block, function-level imports included."""
    tree = ast.parse(path.read_text())
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(sub) for stmt in node.body for sub in ast.walk(stmt)}
    found = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        else:
            continue
        above = ("spades_env.engine", "spades_env.envs")
        if any(m == top or m.startswith(top + ".") for m in modules for top in above):
            found.append(node.lineno)
    return sorted(found)


def test_the_games_import_no_engine_at_run_time():
    files = sorted((ROOT / "spades_env" / "games").rglob("*.py")) + sorted((ROOT / "tests" / "toy_game").glob("*.py"))
    assert len(files) > 30
    found = [f"{path.relative_to(ROOT)}:{line}" for path in files for line in _runtime_engine_imports(path)]
    assert not found, f"game modules import the engine at run time: {found}"


def test_the_scan_sees_a_runtime_import(tmp_path):
    """The scan above finds an import outside TYPE_CHECKING, in a function too, and skips one inside it."""
    path = tmp_path / "probe.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from spades_env.engine.core import SpadesEngine\n"
        "def f():\n    from spades_env import engine\nimport spades_env.envs.aec\n"
    )
    assert _runtime_engine_imports(path) == [5, 6]


@pytest.mark.parametrize("rules", ["partnership", "cutthroat-3", "two-player", "hearts"])
def test_the_engine_builds_the_facts_once_and_shares_its_arrays(rules):
    engine = SpadesEngine(Rules.preset(rules))
    facts = engine.facts
    assert isinstance(facts, TableFacts) and facts.rules is engine.rules and facts.layout is engine.layout
    assert facts.side_of_seat is engine.side_of_seat and facts.partner is engine.partner
    assert facts.trick_tables is engine.trick_tables
    again = table_facts(engine.rules, engine.layout, engine.trick_tables, engine.spec.pass_offsets)
    assert (again.n_players, again.n_sides, again.hand_size, again.pile_size, again.deck) == (
        engine.n_players,
        engine.n_sides,
        engine.hand_size,
        engine.pile_size,
        engine.deck,
    )
    np.testing.assert_array_equal(again.side_of_seat, engine.side_of_seat)
    hands = np.arange(9)
    np.testing.assert_array_equal(facts.pass_offset(hands), engine.pass_offset(hands))
